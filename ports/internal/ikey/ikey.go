// Package ikey orders and shortens LevelDB's internal keys (a user key,
// then 8 bytes little-endian of the sequence number shifted left by 8 bits
// and the value type), for the adapters whose port's database wraps its
// user comparer and filter in unexported types (syndtr/goleveldb's
// iComparer and iFilter, golang/leveldb's internalKeyComparer): an adapter
// that writes or reads a table as the port's database does needs the same
// wrapping, written here.
package ikey

import (
	"bytes"
	"encoding/binary"
)

// Follows db/dbformat.cc InternalKeyComparator and InternalFilterPolicy.

// TagLen is the length of an internal key's tag: its sequence number and
// value type.
const TagLen = 8

// MaxTag is the tag InternalKeyComparator appends to a shortened user key:
// kMaxSequenceNumber with kValueTypeForSeek, the first internal key of
// that user key.
var MaxTag = binary.LittleEndian.AppendUint64(nil, (1<<56-1)<<8|1)

// UserKey returns the user key of the internal key k: all of k when it is
// shorter than a tag (which a table a database wrote never holds).
func UserKey(k []byte) []byte {
	if len(k) < TagLen {
		return k
	}
	return k[:len(k)-TagLen]
}

// Tag returns the tag of k, 0 when k is shorter than a tag.
func Tag(k []byte) uint64 {
	if len(k) < TagLen {
		return 0
	}
	return binary.LittleEndian.Uint64(k[len(k)-TagLen:])
}

// Make returns the internal key of user and tag, in new memory.
func Make(user []byte, tag uint64) []byte {
	return binary.LittleEndian.AppendUint64(append(make([]byte, 0, len(user)+TagLen), user...), tag)
}

// Compare orders internal keys as InternalKeyComparator over the bytewise
// comparator: by user key ascending, then by tag (sequence number, then
// type) descending.
func Compare(a, b []byte) int {
	if c := bytes.Compare(UserKey(a), UserKey(b)); c != 0 {
		return c
	}
	ta, tb := Tag(a), Tag(b)
	switch {
	case ta > tb:
		return -1
	case ta < tb:
		return +1
	}
	return 0
}

// UserComparer is a user comparer's shortening, with syndtr/goleveldb's
// comparer.Comparer methods: each appends the shortened key to dst, or
// returns nil when it does not shorten.
type UserComparer interface {
	Name() string
	Separator(dst, a, b []byte) []byte
	Successor(dst, b []byte) []byte
}

// Syndtr is syndtr/goleveldb's comparer.Comparer over internal keys, as its
// database's unexported iComparer wraps the user comparer User (the same
// as upstream's InternalKeyComparator: shorten the user key, and append
// MaxTag when the result is shorter and greater; else leave the key
// unchanged, which the table writer does when Separator returns nil).
type Syndtr struct{ User UserComparer }

// Name returns the user comparer's name, as iComparer does.
func (c Syndtr) Name() string { return c.User.Name() }

// Compare calls Compare.
func (c Syndtr) Compare(a, b []byte) int { return Compare(a, b) }

// Separator shortens a's user key towards b's, or returns nil.
func (c Syndtr) Separator(dst, a, b []byte) []byte {
	ua, ub := UserKey(a), UserKey(b)
	return c.withTag(dst, ua, c.User.Separator(dst, ua, ub))
}

// Successor shortens b's user key upwards, or returns nil.
func (c Syndtr) Successor(dst, b []byte) []byte {
	ub := UserKey(b)
	return c.withTag(dst, ub, c.User.Successor(dst, ub))
}

// withTag returns short, which the user comparer appended to dst, with
// MaxTag when it is a shorter user key greater than u, else nil.
func (c Syndtr) withTag(dst, u, short []byte) []byte {
	if short == nil {
		return nil
	}
	s := short[len(dst):]
	if len(s) < len(u) && bytes.Compare(u, s) < 0 {
		return append(short, MaxTag...)
	}
	return nil
}
