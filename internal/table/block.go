package table

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/ldbcompat/ldbcompat/internal/base"
)

// Upstream's status messages (table/block.cc).
const (
	statusBlockContents = "Corruption: bad block contents"
	statusBadEntry      = "Corruption: bad entry in block"
)

// blockIter is table/block.cc's Block::Iter with the Block constructor's
// checks ("bad block contents" if under 4 bytes or the restart count does
// not fit; 0 restarts is empty). Iteration runs from restart 0's offset to
// the restart array; keys are rebuilt in one buffer as key_ is, so
// decoding costs the block's size whatever its prefix compression.
type blockIter struct {
	t        *Table
	b        *Block
	what     blockName
	data     []byte
	restarts uint32 // offset of the restart array: entries end there
	num      uint32 // restart points
	bad      bool   // the Block constructor's error marker

	next     uint32 // where the entry after the current one starts
	cur      uint32 // where the current entry starts
	index    int    // entries decoded so far, the current one included
	key      []byte // the current entry's key (valid until the next move)
	value    []byte // the current entry's value, aliasing the block
	valuePos uint32
	err      error // the iterator's status: nil while OK
}

func (t *Table) newBlockIter(b *Block, what blockName) *blockIter {
	it := &blockIter{}
	t.initBlockIter(it, b, what)
	return it
}

// initBlockIter resets it to iterate b, keeping its key buffer.
func (t *Table) initBlockIter(it *blockIter, b *Block, what blockName) {
	*it = blockIter{t: t, b: b, what: what, data: b.Contents, key: it.key[:0]}
	c := b.Contents
	if len(c) < 4 || uint64(len(c)) > math.MaxUint32 {
		it.bad = true
		return
	}
	it.num = binary.LittleEndian.Uint32(c[len(c)-4:])
	if uint64(it.num) > uint64(len(c)-4)/4 {
		it.bad = true
		return
	}
	it.restarts = uint32(len(c)) - (1+it.num)*4
}

// restart returns restart point i's offset.
func (it *blockIter) restart(i uint32) uint32 {
	return binary.LittleEndian.Uint32(it.data[it.restarts+4*i:])
}

// badContents is Block::NewIterator's error iterator; it returns false.
func (it *blockIter) badContents() bool {
	c := it.data
	switch {
	case len(c) < 4:
		it.err = it.t.blockErrorf(it.b, it.what, 0, statusBlockContents, "block of %d bytes is too short for its restart count (4 bytes)", len(c))
	case uint64(len(c)) > math.MaxUint32:
		it.err = it.t.blockErrorf(it.b, it.what, 0, "", "block of %d bytes: LevelDB keeps block offsets in 32 bits", len(c))
		it.err.(*base.Error).Err = base.ErrUndefined
	default:
		num := binary.LittleEndian.Uint32(c[len(c)-4:])
		it.err = it.t.blockErrorf(it.b, it.what, len(c)-4, statusBlockContents, "restart count %d needs %d bytes; the block has %d before the count", num, 4*uint64(num), len(c)-4)
	}
	return false
}

// first is SeekToFirst: it reports whether there is an entry.
func (it *blockIter) first() bool {
	if it.bad {
		return it.badContents()
	}
	if it.num == 0 {
		return false // Block::NewIterator: NewEmptyIterator
	}
	it.key = it.key[:0]
	it.next = it.restart(0)
	return it.parseNext()
}

// decodeEntry is DecodeEntry at p, entries ending at limit. why is "" when
// it decodes, else what upstream's nullptr stands for; undefined is set
// where non_shared + value_length overflows uint32 yet passes upstream's
// check, so it would read far past the block.
func (it *blockIter) decodeEntry(p, limit uint32) (shared, nonShared, valueLen, k uint32, why string, undefined bool) {
	if p > limit || limit-p < 3 {
		return 0, 0, 0, 0, fmt.Sprintf("want three varint32 lengths: fewer than 3 bytes before the entries' end at byte %d", limit), false
	}
	q := it.data[p:limit]
	var n, at int
	if q[0]|q[1]|q[2] < 0x80 {
		// Upstream's fast path: the three lengths a byte each.
		shared, nonShared, valueLen, at = uint32(q[0]), uint32(q[1]), uint32(q[2]), 3
	} else {
		if shared, n = base.DecodeVarint32(q); n == 0 {
			return 0, 0, 0, 0, "want the shared key length (varint32)", false
		}
		at += n
		if nonShared, n = base.DecodeVarint32(q[at:]); n == 0 {
			return 0, 0, 0, 0, "want the unshared key length (varint32)", false
		}
		at += n
		if valueLen, n = base.DecodeVarint32(q[at:]); n == 0 {
			return 0, 0, 0, 0, "want the value length (varint32)", false
		}
		at += n
	}
	rem := uint32(len(q) - at)
	if rem < nonShared+valueLen { // the uint32 sum, as upstream computes it
		return 0, 0, 0, 0, fmt.Sprintf("key suffix (%d bytes) and value (%d bytes) run past the entries' end at byte %d", nonShared, valueLen, limit), false
	}
	if uint64(nonShared)+uint64(valueLen) > uint64(rem) {
		return nonShared, nonShared, valueLen, 0, "", true
	}
	return shared, nonShared, valueLen, p + uint32(at), "", false
}

// parseNext is ParseNextKey: it decodes the entry at it.next.
func (it *blockIter) parseNext() bool {
	it.cur = it.next
	if it.cur >= it.restarts {
		return false // no more entries
	}
	shared, nonShared, valueLen, k, why, undefined := it.decodeEntry(it.cur, it.restarts)
	switch {
	case undefined:
		return it.undefined(it.cur, "entry %d: key suffix (%d bytes) and value (%d bytes) overflow 32 bits, where LevelDB reads past the block", it.index, nonShared, valueLen)
	case why != "":
		return it.corrupt(it.cur, "entry %d: %s", it.index, why)
	case uint64(shared) > uint64(len(it.key)):
		return it.corrupt(it.cur, "entry %d: shares %d key bytes with a previous key of %d bytes", it.index, shared, len(it.key))
	}
	it.key = append(it.key[:shared], it.data[k:k+nonShared]...)
	it.valuePos = k + nonShared
	it.value = it.data[it.valuePos : it.valuePos+valueLen : it.valuePos+valueLen]
	it.next = it.valuePos + valueLen
	it.index++
	return true
}

// corrupt is CorruptionError: "bad entry in block" at byte pos.
func (it *blockIter) corrupt(pos uint32, format string, args ...any) bool {
	it.err = it.t.blockErrorf(it.b, it.what, int(pos), statusBadEntry, format, args...)
	it.key, it.value = it.key[:0], nil
	return false
}

// undefined ends the iteration where upstream's behaviour is undefined.
func (it *blockIter) undefined(pos uint32, format string, args ...any) bool {
	e := it.t.blockErrorf(it.b, it.what, int(pos), "", format, args...)
	e.(*base.Error).Err = base.ErrUndefined
	it.err = e
	it.key, it.value = it.key[:0], nil
	return false
}

// valueAt returns the value's file offset (the block's if compressed).
func (it *blockIter) valueAt() uint64 {
	if it.b.Compression == NoCompression {
		return it.b.Handle.Offset + uint64(it.valuePos)
	}
	return it.b.Handle.Offset
}

// seek is Seek on a new iterator: binary search of the restarts for the
// last key < target, then a scan for the first >= target.
func (it *blockIter) seek(target []byte, cmp comparator) bool {
	if it.bad {
		return it.badContents()
	}
	if it.num == 0 {
		return false
	}
	left, right := uint32(0), it.num-1
	for left < right {
		mid := uint32((uint64(left) + uint64(right) + 1) / 2)
		region := it.restart(mid)
		shared, nonShared, _, k, why, undefined := it.decodeEntry(region, it.restarts)
		if undefined {
			return it.undefined(region, "restart point %d: key and value lengths overflow 32 bits, where LevelDB reads past the block", mid)
		}
		if why != "" || shared != 0 {
			if why == "" {
				why = fmt.Sprintf("shares %d key bytes; want 0", shared)
			}
			return it.corrupt(region, "restart point %d (byte %d): want an entry storing its whole key: %s", mid, region, why)
		}
		c, err := cmp(it.data[k:k+nonShared], target)
		if err != nil {
			return it.undefined(region, "restart point %d: key of %d bytes is shorter than an internal key's tag; LevelDB's comparator reads out of bounds", mid, nonShared)
		}
		if c < 0 {
			left = mid
		} else {
			right = mid - 1
		}
	}
	it.key = it.key[:0]
	it.next = it.restart(left)
	for it.parseNext() {
		c, err := cmp(it.key, target)
		if err != nil {
			return it.undefined(it.cur, "entry %d: key of %d bytes is shorter than an internal key's tag; LevelDB's comparator reads out of bounds", it.index-1, len(it.key))
		}
		if c >= 0 {
			return true
		}
	}
	return false
}

// blockErrorf returns a *base.Error at pos of b's contents (in the message
// if compressed).
func (t *Table) blockErrorf(b *Block, what blockName, pos int, status, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if b.Compression == NoCompression {
		return t.statusErrorf(b.Handle.Offset+uint64(pos), status, "%s %s: %s", what, b.Handle, msg)
	}
	return t.statusErrorf(b.Handle.Offset, status, "%s %s: at byte %d of %d decompressed: %s", what, b.Handle, pos, len(b.Contents), msg)
}
