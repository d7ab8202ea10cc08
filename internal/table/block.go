package table

import (
	"encoding/binary"
	"fmt"
	"math"
)

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

// InternalKey is a key as a table stores it: the user's key, a 56-bit
// sequence number and a kind.
type InternalKey struct {
	UserKey []byte // the key the user wrote
	Seq     uint64 // sequence number, at most MaxSequence
	Kind    Kind   // deletion or value
}

// MaxSequence is the largest sequence number an internal key can hold.
const MaxSequence = 1<<56 - 1

// internalKeyTagSize is the size of the tag ending every internal key.
const internalKeyTagSize = 8

// ParseInternalKey splits an encoded internal key into its parts. UserKey
// aliases key. It fails when key is shorter than its 8-byte tag or the kind
// is neither deletion nor value.
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

// Entry is one entry of a data block.
type Entry struct {
	Key   InternalKey // UserKey is the entry's own copy
	Value []byte      // aliases the block's contents
}

// DataBlock is a data block and its entries in table order.
type DataBlock struct {
	Block
	Entries []Entry // in table order
}

// ReadDataBlock reads and decodes the i-th data block listed by the index.
// Every entry's key must be a valid internal key.
func (t *Table) ReadDataBlock(i int) (*DataBlock, error) {
	if i < 0 || i >= len(t.index) {
		return nil, fmt.Errorf("table %s: data block %d out of range [0, %d)", t.name, i, len(t.index))
	}
	what := fmt.Sprintf("data block %d", i)
	b, err := t.ReadBlock(t.index[i].Handle, what)
	if err != nil {
		return nil, err
	}
	db := &DataBlock{Block: *b}
	err = t.forEachEntry(b, what, nil, func(e rawEntry) error {
		k, err := ParseInternalKey(e.key)
		if err != nil {
			return e.errorf("entry %d: %v", e.index, err)
		}
		db.Entries = append(db.Entries, Entry{Key: k, Value: e.value})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return db, nil
}

// DataBlocks calls fn with each data block in table order, stopping at the
// first error, which it returns. Only one block is held at a time, so a
// large table can be walked in little memory if fn keeps nothing.
func (t *Table) DataBlocks(fn func(*DataBlock) error) error {
	for i := range t.index {
		b, err := t.ReadDataBlock(i)
		if err != nil {
			return err
		}
		if err := fn(b); err != nil {
			return err
		}
	}
	return nil
}

// DataKeys reads every data block in table order and calls key with the
// internal key of each of its entries, in order, then block with the
// block's position i in the index, its handle and its number of entries.
// It reads and checks every block and key as ReadDataBlock does, returning
// the same errors, but keeps neither the blocks nor the keys: k is valid
// only during the call to key, which must copy what it keeps. It stops at
// the first error, which it returns.
func (t *Table) DataKeys(key func(k []byte), block func(i int, h BlockHandle, n int) error) error {
	if len(t.index) == 0 {
		return nil
	}
	// Read the data blocks with one read when it succeeds; they lie in
	// order before the footer (see readIndex), so the span is at most the
	// file. Otherwise read them one by one, for each block's error.
	lo, hi := t.index[0].Handle.Offset, t.index[len(t.index)-1].Handle.End()
	span := make([]byte, hi-lo)
	if n, _ := t.r.ReadAt(span, int64(lo)); n != len(span) {
		span = nil
	}
	var (
		scratch, raw []byte
		keys         [2][]byte
		b            Block
	)
	for i := range t.index {
		h := t.index[i].Handle
		what := fmt.Sprintf("data block %d", i)
		var stored []byte
		if span != nil {
			stored = span[h.Offset-lo : h.End()-lo]
		} else {
			if uint64(cap(raw)) < h.Size+TrailerSize {
				raw = make([]byte, h.Size+TrailerSize)
			}
			stored = raw[:h.Size+TrailerSize]
			if err := t.readAt(stored, h.Offset, what); err != nil {
				return err
			}
		}
		var err error
		if scratch, err = t.decodeBlock(&b, h, what, stored, scratch); err != nil {
			return err
		}
		n := 0
		err = t.forEachEntry(&b, what, &keys, func(e rawEntry) error {
			if m := len(e.key) - internalKeyTagSize; m < 0 || Kind(e.key[m]) > KindValue {
				_, err := ParseInternalKey(e.key)
				return e.errorf("entry %d: %v", e.index, err)
			}
			key(e.key)
			n++
			return nil
		})
		if err != nil {
			return err
		}
		if err := block(i, h, n); err != nil {
			return err
		}
	}
	return nil
}

// rawEntry is one decoded entry of a block, handed to forEachEntry's
// callback.
type rawEntry struct {
	t        *Table
	b        *Block
	what     string
	index    int    // position of the entry in the block
	pos      int    // where the entry starts in the decompressed contents
	valuePos int    // where its value starts
	key      []byte // the whole key, a fresh copy unless in a flat buffer
	value    []byte // aliases the block's contents
}

// errorf returns an *Error located at the entry.
func (e rawEntry) errorf(format string, args ...any) error {
	return e.t.blockErrorf(e.b, e.what, e.pos, format, args...)
}

// valueAt returns the file offset of the entry's value, or of its block when
// the block is compressed.
func (e rawEntry) valueAt() uint64 {
	if e.b.Compression == NoCompression {
		return e.b.Handle.Offset + uint64(e.valuePos)
	}
	return e.b.Handle.Offset
}

// blockErrorf returns an *Error at byte pos of block b's decompressed
// contents: its file offset when the block is stored uncompressed, else the
// block's offset with pos given in the message.
func (t *Table) blockErrorf(b *Block, what string, pos int, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if b.Compression == NoCompression {
		return t.errorf(b.Handle.Offset+uint64(pos), "%s %s: %s", what, b.Handle, msg)
	}
	return t.errorf(b.Handle.Offset, "%s %s: at byte %d of %d decompressed: %s", what, b.Handle, pos, len(b.Contents), msg)
}

// uvarint32 decodes a varint of at most 5 bytes holding a 32-bit value, as
// util/coding.cc GetVarint32Ptr does; n <= 0 means there is none.
func uvarint32(b []byte) (v uint32, n int) {
	if len(b) > 5 {
		b = b[:5]
	}
	x, n := binary.Uvarint(b)
	if n <= 0 || x > math.MaxUint32 {
		return 0, 0
	}
	return uint32(x), n
}

// The key budget of a block: keyBudgetFactor times its decompressed size
// and, for a compressed block, at most storedKeyBudgetFactor times its
// stored size, plus keyBudgetSlack bytes. The second bound keeps snappy's
// expansion (up to 22 times) and prefix compression's from compounding: a
// 25 KB table of one snappy block of identical entries, each repeating a
// 2000-byte key, decoded to 38 MB of keys without it. The slack is per
// block, so it must stay small: a table of many small blocks, each filled
// up to its budget, would otherwise decode to the slack times the number
// of blocks (1 MiB a block let a 200 KB table decode to 30 MB of keys).
const (
	keyBudgetFactor       = 64
	storedKeyBudgetFactor = 256
	keyBudgetSlack        = 4 << 10
)

// forEachEntry decodes the entries of a block (data, index or metaindex
// layout) and calls fn with each in order. Besides the bounds of every
// entry, it checks the restart array: the first entry and every restart
// point hold whole keys, and every restart point is an entry boundary.
//
// When bufs is nil, each entry's key is a fresh copy; else the keys are
// built in the two buffers of *bufs in turn, so that fn must not keep an
// entry's key past the call.
func (t *Table) forEachEntry(b *Block, what string, bufs *[2][]byte, fn func(rawEntry) error) error {
	c := b.Contents
	if len(c) < 4 {
		return t.blockErrorf(b, what, 0, "block of %d bytes is too short for its restart count (4 bytes)", len(c))
	}
	num := uint64(binary.LittleEndian.Uint32(c[len(c)-4:]))
	if max := uint64(len(c)-4) / 4; num > max {
		return t.blockErrorf(b, what, len(c)-4, "restart count %d needs %d bytes; the block has %d before the count", num, 4*num, len(c)-4)
	}
	limit := len(c) - 4 - 4*int(num) // entries end, restart array starts
	restart := func(i uint64) int {
		return int(binary.LittleEndian.Uint32(c[limit+4*int(i):]))
	}
	var last []byte
	next := uint64(0) // next restart point expected
	index := 0
	// Prefix compression lets a block hold keys much longer in total than
	// the block itself; bound the total so that a crafted block cannot make
	// the reader allocate without limit. LevelDB's restart interval (16 by
	// default) keeps real blocks far below this.
	budget, factor, of := keyBudgetFactor*uint64(len(c)), keyBudgetFactor, "size"
	if b.Compression != NoCompression && storedKeyBudgetFactor*b.Handle.Size < budget {
		budget, factor, of = storedKeyBudgetFactor*b.Handle.Size, storedKeyBudgetFactor, "stored size"
	}
	budget += keyBudgetSlack
	for pos := 0; pos < limit; index++ {
		p := pos
		shared, n := uvarint32(c[p:limit])
		if n <= 0 {
			return t.blockErrorf(b, what, p, "entry %d: want the shared key length (varint32)", index)
		}
		p += n
		nonShared, n := uvarint32(c[p:limit])
		if n <= 0 {
			return t.blockErrorf(b, what, p, "entry %d: want the unshared key length (varint32)", index)
		}
		p += n
		valueLen, n := uvarint32(c[p:limit])
		if n <= 0 {
			return t.blockErrorf(b, what, p, "entry %d: want the value length (varint32)", index)
		}
		p += n
		if uint64(nonShared)+uint64(valueLen) > uint64(limit-p) {
			return t.blockErrorf(b, what, pos, "entry %d: key suffix (%d bytes) and value (%d bytes) run past the entries' end at byte %d", index, nonShared, valueLen, limit)
		}
		if uint64(shared) > uint64(len(last)) {
			return t.blockErrorf(b, what, pos, "entry %d: shares %d key bytes with a previous key of %d bytes", index, shared, len(last))
		}
		switch {
		case next < num && restart(next) == pos:
			if shared != 0 {
				return t.blockErrorf(b, what, pos, "entry %d: at restart point %d but shares %d key bytes; want 0", index, next, shared)
			}
			next++
		case pos == 0:
			return t.blockErrorf(b, what, pos, "entry 0: not a restart point (restart count %d); want restart 0 at byte 0", num)
		case next < num && restart(next) < pos:
			return t.blockErrorf(b, what, limit+4*int(next), "restart point %d (byte %d) is not an entry boundary", next, restart(next))
		}
		klen := uint64(shared) + uint64(nonShared)
		if klen > budget {
			return t.blockErrorf(b, what, pos, "entry %d: keys decode to more than %d times the block's %s; want prefix compression as shallow as LevelDB writes", index, factor, of)
		}
		budget -= klen
		var key []byte
		if bufs != nil {
			// last is in the other buffer.
			buf := &bufs[index&1]
			*buf = append(append((*buf)[:0], last[:shared]...), c[p:p+int(nonShared)]...)
			key = *buf
		} else {
			key = make([]byte, klen)
			copy(key, last[:shared])
			copy(key[shared:], c[p:p+int(nonShared)])
		}
		vp := p + int(nonShared)
		e := rawEntry{t: t, b: b, what: what, index: index, pos: pos, valuePos: vp, key: key, value: c[vp : vp+int(valueLen) : vp+int(valueLen)]}
		if err := fn(e); err != nil {
			return err
		}
		last = key
		pos = vp + int(valueLen)
	}
	for ; next < num; next++ {
		// An empty block still has restart point 0 (BlockBuilder always
		// writes one); any other leftover restart is out of place.
		if r := restart(next); limit != 0 || r != 0 {
			return t.blockErrorf(b, what, limit+4*int(next), "restart point %d (byte %d) is not an entry boundary", next, r)
		}
	}
	return nil
}
