package table

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/internal/base"
)

// Internal keys and InternalFilterPolicy (db/dbformat.h, db/dbformat.cc).

// Kind is the type byte of an internal key (db/dbformat.h ValueType).
type Kind uint8

// The kinds of entry LevelDB writes.
const (
	KindDeletion Kind = 0 // a tombstone: the user key was deleted
	KindValue    Kind = 1 // a value for the user key
)

// String returns "deletion", "value" or "kind(N)".
func (k Kind) String() string {
	switch k {
	case KindDeletion:
		return "deletion"
	case KindValue:
		return "value"
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// InternalKey is a key as a table stores it.
type InternalKey struct {
	UserKey []byte // the key the user wrote
	Seq     uint64 // sequence number, at most MaxSequence
	Kind    Kind   // deletion or value
}

// MaxSequence is the largest sequence number an internal key can hold.
const MaxSequence = 1<<56 - 1

// internalKeyTagSize is the size of the tag ending every internal key.
const internalKeyTagSize = 8

// ParseInternalKey splits key (UserKey aliases it); it fails under 8 bytes
// or for a kind other than deletion or value.
func ParseInternalKey(key []byte) (InternalKey, error) {
	if len(key) < internalKeyTagSize {
		return InternalKey{}, fmt.Errorf("internal key of %d bytes is shorter than its %d-byte tag", len(key), internalKeyTagSize)
	}
	n := len(key) - internalKeyTagSize
	tag := binary.LittleEndian.Uint64(key[n:])
	k := InternalKey{UserKey: key[:n:n], Seq: tag >> 8, Kind: Kind(tag & 0xff)}
	if k.Kind > KindValue {
		return InternalKey{}, fmt.Errorf("internal key has type %d; want 0 (deletion) or 1 (value)", uint8(k.Kind))
	}
	return k, nil
}

// AppendInternalKey appends the encoding of k to dst.
func AppendInternalKey(dst []byte, k InternalKey) []byte {
	dst = append(dst, k.UserKey...)
	return binary.LittleEndian.AppendUint64(dst, k.Seq<<8|uint64(k.Kind))
}

// String formats k as "userkey(hex)@seq,kind".
func (k InternalKey) String() string {
	return fmt.Sprintf("%x@%d,%s", k.UserKey, k.Seq, k.Kind)
}

// compareInternal is InternalKeyComparator::Compare over bytewise: user
// keys ascending, tags descending. Under 8 bytes is undefined upstream.
func compareInternal(a, b []byte) (int, error) {
	if len(a) < internalKeyTagSize || len(b) < internalKeyTagSize {
		return 0, base.ErrUndefined
	}
	na, nb := len(a)-internalKeyTagSize, len(b)-internalKeyTagSize
	if c := bytes.Compare(a[:na], b[:nb]); c != 0 {
		return c, nil
	}
	ta, tb := binary.LittleEndian.Uint64(a[na:]), binary.LittleEndian.Uint64(b[nb:])
	switch {
	case ta > tb:
		return -1, nil
	case ta < tb:
		return 1, nil
	}
	return 0, nil
}

// recordingPolicy is an InternalFilterPolicy over p recording each answer.
type recordingPolicy struct {
	p     bloom.FilterPolicy
	calls []bool
}

func (r *recordingPolicy) Name() string { return r.p.Name() }

func (r *recordingPolicy) CreateFilter(keys [][]byte, dst []byte) []byte {
	return r.p.CreateFilter(keys, dst)
}

func (r *recordingPolicy) KeyMayMatch(key, filter []byte) bool {
	ok := r.p.KeyMayMatch(key[:len(key)-internalKeyTagSize], filter)
	r.calls = append(r.calls, ok)
	return ok
}
