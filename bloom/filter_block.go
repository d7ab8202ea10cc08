package bloom

import (
	"encoding/binary"
	"slices"

	"github.com/ldbcompat/ldbcompat/internal/prehash"
)

func init() { registerPrehash() }

// registerPrehash sets prehash.AddHashes to add hashes to this package's
// builders, handing any other value to the function it replaces: a
// program may link more than one copy of this package (the mutation tests
// build a mutated copy beside it), each with its own builder type.
func registerPrehash() {
	prev := prehash.AddHashes
	prehash.AddHashes = func(fb any, hashes []uint32) bool {
		if b, ok := fb.(*FilterBlockBuilder); ok {
			return b.addHashes(hashes)
		}
		return prev != nil && prev(fb, hashes)
	}
}

// A filter block holds one filter per 2 KiB range of data-block offsets in a
// table. Its layout, from table/filter_block.cc and doc/table_format.md:
//
//	+----------------------+
//	| filter 0             |  policy.CreateFilter of the keys of every data
//	| filter 1             |  block whose offset lies in [i*2^lg, (i+1)*2^lg)
//	| ...                  |  (possibly empty)
//	| filter N-1           |
//	+----------------------+
//	| offset of filter 0   |  uint32 little-endian, from the start of the block
//	| ...                  |
//	| offset of filter N-1 |
//	+----------------------+
//	| array offset         |  uint32 little-endian: where the offsets start
//	| lg                   |  1 byte: base 2 log of the range size, 11
//	+----------------------+
//
// Filter i spans from its offset to the next filter's offset; the last one
// ends where the offset array starts.

// FilterBaseLg is upstream's kFilterBaseLg: the builder makes one filter
// per 2^FilterBaseLg bytes (2 KiB) of data-block offsets, and stores it as
// the block's last byte.
const FilterBaseLg = 11

// FilterBlockBuilder builds the filter block of a table, as
// leveldb::FilterBlockBuilder does.
//
// The calls must follow the pattern (StartBlock AddKey*)* Finish, with
// StartBlock called with each data block's offset before that block's keys.
// A StartBlock for a range earlier than one already started is a no-op, as
// in upstream release builds (debug builds assert).
//
// The builder keeps its buffers from filter to filter, and Reset keeps them
// from table to table, so that AddKey allocates nothing once they have grown
// to the size of a filter's keys.
type FilterBlockBuilder struct {
	policy FilterPolicy
	// bloom is policy when it is this package's bloom filter: the builder
	// then keeps only each key's hash, which is all the filter needs.
	bloom         *bloomPolicy
	hashes        []uint32 // hashes of the current filter's keys (bloom)
	keys          []byte   // keys of the current filter, concatenated (other policies)
	ends          []int    // end of each key in keys
	result        []byte   // filters built so far
	tmpKeys       [][]byte // CreateFilter's argument for other policies, reused
	filterOffsets []uint32 // start of each filter in result
}

// Initial buffer sizes: the keys of a 2 KiB range of data blocks rarely
// take more than a few KiB, and a table has tens to thousands of filters.
const (
	initialKeyBytes = 4 << 10
	initialKeys     = 128
	initialFilters  = 64
	initialResult   = 4 << 10
)

// NewFilterBlockBuilder returns a builder that makes filters with p.
func NewFilterBlockBuilder(p FilterPolicy) *FilterBlockBuilder {
	b := &FilterBlockBuilder{policy: p, filterOffsets: make([]uint32, 0, initialFilters)}
	if b.bloom, _ = p.(*bloomPolicy); b.bloom != nil {
		b.hashes = make([]uint32, 0, initialKeys)
	} else {
		b.keys = make([]byte, 0, initialKeyBytes)
		b.ends = make([]int, 0, initialKeys)
	}
	return b
}

// Reset makes b ready to build another table's filter block, as a new
// builder with the same policy would, but keeps its buffers. The slice an
// earlier Finish returned is overwritten by the next one.
func (b *FilterBlockBuilder) Reset() {
	b.hashes = b.hashes[:0]
	b.keys = b.keys[:0]
	b.ends = b.ends[:0]
	b.result = b.result[:0]
	b.filterOffsets = b.filterOffsets[:0]
}

// StartBlock tells the builder that the next keys belong to the data block at
// blockOffset. It finishes the filters of every 2 KiB range before the one
// holding blockOffset; ranges without keys get empty filters.
func (b *FilterBlockBuilder) StartBlock(blockOffset uint64) {
	index := blockOffset >> FilterBaseLg
	if index <= uint64(len(b.filterOffsets)) {
		return
	}
	b.generateFilter()
	// Every further range is empty: each gets an empty filter at the
	// current end of the result.
	end := uint32(len(b.result))
	for uint64(len(b.filterOffsets)) < index {
		b.filterOffsets = append(b.filterOffsets, end)
	}
}

// AddKey adds key to the filter of the current range. The builder copies
// it, or for this package's bloom filter only its hash.
func (b *FilterBlockBuilder) AddKey(key []byte) {
	if b.bloom != nil {
		h := b.bloom.hash(key)
		b.hashes = append(b.hashes, h)
		return
	}
	b.keys = append(b.keys, key...)
	b.ends = append(b.ends, len(b.keys))
}

// addHashes adds keys given their hashes Hash(key, bloomSeed), as AddKey
// of each would, when b's policy makes its filters of that hash; otherwise
// it adds nothing and returns false (prehash.AddHashes).
func (b *FilterBlockBuilder) addHashes(hashes []uint32) bool {
	if b.bloom == nil || b.bloom.signedTail {
		return false
	}
	b.hashes = append(b.hashes, hashes...)
	return true
}

// Finish finishes the last filter and appends the offset array, the array
// offset and the base log, and returns the whole filter block. The returned
// slice belongs to the builder; it is valid until the builder's next call.
//
// As upstream's, a builder is meant to be finished once (or Reset); calling
// Finish again appends another offset array to the block, exactly as
// upstream does.
func (b *FilterBlockBuilder) Finish() []byte {
	if len(b.ends)+len(b.hashes) > 0 {
		b.generateFilter()
	}
	arrayOffset := uint32(len(b.result))
	b.result = slices.Grow(b.result, 4*len(b.filterOffsets)+5)
	for _, off := range b.filterOffsets {
		b.result = binary.LittleEndian.AppendUint32(b.result, off)
	}
	b.result = binary.LittleEndian.AppendUint32(b.result, arrayOffset)
	b.result = append(b.result, FilterBaseLg)
	return b.result
}

// generateFilter closes the current range: an empty filter when it has no
// keys, else the policy's filter of its keys.
func (b *FilterBlockBuilder) generateFilter() {
	b.filterOffsets = append(b.filterOffsets, uint32(len(b.result)))
	if b.bloom != nil {
		n := len(b.hashes)
		if n == 0 {
			return
		}
		// Grow the result by doubling, not by append's smaller steps for
		// large slices: a table's filters then take a handful of
		// allocations, whatever their number.
		if need := b.bloom.filterLen(n); cap(b.result)-len(b.result) < need {
			grown := make([]byte, len(b.result), max(2*cap(b.result), len(b.result)+need, initialResult))
			copy(grown, b.result)
			b.result = grown
		}
		var array []byte
		b.result, array = b.bloom.appendEmpty(b.result, n)
		addHashes(array, b.bloom.k, b.hashes)
		b.hashes = b.hashes[:0]
		return
	}
	if len(b.ends) == 0 {
		return
	}
	b.tmpKeys = b.tmpKeys[:0]
	start := 0
	for _, end := range b.ends {
		b.tmpKeys = append(b.tmpKeys, b.keys[start:end:end])
		start = end
	}
	b.result = b.policy.CreateFilter(b.tmpKeys, b.result)
	// Drop the references into keys, which the next filter reuses.
	clear(b.tmpKeys)
	b.keys = b.keys[:0]
	b.ends = b.ends[:0]
}

// FilterBlockReader answers queries against a filter block, as
// leveldb::FilterBlockReader does, including for damaged blocks: whatever
// cannot be decoded is treated as a potential match, never as an error.
type FilterBlockReader struct {
	policy   FilterPolicy
	contents []byte
	arrayOff uint64 // where the offset array starts; valid only if num > 0
	num      uint64 // number of filters
	baseLg   uint8
}

// NewFilterBlockReader returns a reader of a filter block built with p. The
// reader keeps contents; the caller must not modify it while the reader is
// in use.
//
// A block shorter than 5 bytes, or whose array offset lies past its last 5
// bytes, holds no usable filter: every query on it answers true.
func NewFilterBlockReader(p FilterPolicy, contents []byte) *FilterBlockReader {
	r := &FilterBlockReader{policy: p}
	n := uint64(len(contents))
	if n < 5 {
		return r
	}
	r.baseLg = contents[n-1]
	last := uint64(binary.LittleEndian.Uint32(contents[n-5:]))
	if last > n-5 {
		return r
	}
	r.contents = contents
	r.arrayOff = last
	r.num = (n - 5 - last) / 4
	return r
}

// KeyMayMatch reports whether key may be in the data block at blockOffset.
//
// The filter is chosen as blockOffset >> lg, with lg taken modulo 64 as
// amd64 and arm64 do for upstream's over-wide shift. A filter whose offsets
// are out of order or point past the offset array answers true; an empty
// filter answers false.
func (r *FilterBlockReader) KeyMayMatch(blockOffset uint64, key []byte) bool {
	index := blockOffset >> (r.baseLg & 63)
	if index >= r.num {
		return true
	}
	// index < num guarantees both words lie within the block.
	p := r.arrayOff + index*4
	start := binary.LittleEndian.Uint32(r.contents[p:])
	limit := binary.LittleEndian.Uint32(r.contents[p+4:])
	if start <= limit && uint64(limit) <= r.arrayOff {
		return r.policy.KeyMayMatch(key, r.contents[start:limit:limit])
	}
	return start != limit
}
