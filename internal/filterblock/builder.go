package filterblock

import (
	"encoding/binary"
	"slices"
)

// Follows table/filter_block.cc's FilterBlockBuilder.

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

// BaseLg is upstream's kFilterBaseLg: the builder makes one filter per
// 2^BaseLg bytes (2 KiB) of data-block offsets, and stores it as the
// block's last byte.
const BaseLg = 11

// Policy is what a Builder needs of a filter policy (bloom.FilterPolicy
// has it).
type Policy interface {
	CreateFilter(keys [][]byte, dst []byte) []byte
}

// HashPolicy is a policy whose filters are made of one 32-bit hash per
// key, as package bloom's are: a Builder given one keeps each key's hash
// instead of a copy of the key.
type HashPolicy interface {
	Policy
	// HashKey returns the hash key's filter is made of.
	HashKey(key []byte) uint32
	// SeedHash reports whether HashKey(key) is bloom.Hash(key, Seed),
	// so that hashes computed elsewhere may be added (AddHashes).
	SeedHash() bool
	// FilterLen returns the length of the filter of n keys.
	FilterLen(n int) int
	// AppendFilter appends to dst the filter of the keys whose hashes
	// (HashKey) are given, FilterLen(len(hashes)) bytes, and returns the
	// extended slice, as CreateFilter of the keys would.
	AppendFilter(dst []byte, hashes []uint32) []byte
}

// Builder builds the filter block of a table, as leveldb::FilterBlockBuilder
// does (bloom.FilterBlockBuilder documents the calls).
//
// It keeps its buffers from filter to filter, and Reset keeps them from
// table to table, so that AddKey allocates nothing once they have grown to
// the size of a filter's keys.
type Builder struct {
	policy        Policy
	hashed        HashPolicy // policy, when it is a HashPolicy
	hashes        []uint32   // hashes of the current filter's keys (hashed)
	keys          []byte     // keys of the current filter, concatenated (other policies)
	ends          []int      // end of each key in keys
	result        []byte     // filters built so far
	tmpKeys       [][]byte   // CreateFilter's argument for other policies, reused
	filterOffsets []uint32   // start of each filter in result
}

// Initial buffer sizes: the keys of a 2 KiB range of data blocks rarely
// take more than a few KiB, and a table has tens to thousands of filters.
const (
	initialKeyBytes = 4 << 10
	initialKeys     = 128
	initialFilters  = 64
	initialResult   = 4 << 10
)

// Init makes b a new builder of filters with p, dropping what it held.
func (b *Builder) Init(p Policy) {
	*b = Builder{policy: p, filterOffsets: make([]uint32, 0, initialFilters)}
	if b.hashed, _ = p.(HashPolicy); b.hashed != nil {
		b.hashes = make([]uint32, 0, initialKeys)
	} else {
		b.keys = make([]byte, 0, initialKeyBytes)
		b.ends = make([]int, 0, initialKeys)
	}
}

// New returns a builder of filters with p.
func New(p Policy) *Builder {
	b := new(Builder)
	b.Init(p)
	return b
}

// Reset makes b ready to build another table's filter block, as a new
// builder with the same policy would, but keeps its buffers.
func (b *Builder) Reset() {
	b.hashes = b.hashes[:0]
	b.keys = b.keys[:0]
	b.ends = b.ends[:0]
	b.result = b.result[:0]
	b.filterOffsets = b.filterOffsets[:0]
}

// StartBlock finishes the filters of every 2 KiB range before the one
// holding blockOffset; ranges without keys get empty filters. A range
// earlier than one already started is a no-op.
func (b *Builder) StartBlock(blockOffset uint64) {
	index := blockOffset >> BaseLg
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

// AddKey adds key to the filter of the current range: a copy of it, or
// for a HashPolicy only its hash.
func (b *Builder) AddKey(key []byte) {
	if b.hashed != nil {
		b.hashes = append(b.hashes, b.hashed.HashKey(key))
		return
	}
	b.keys = append(b.keys, key...)
	b.ends = append(b.ends, len(b.keys))
}

// AddHashes adds keys given their hashes bloom.Hash(key, Seed), as AddKey
// of each would, when b's policy makes its filters of that hash (SeedHash);
// otherwise it adds nothing and returns false, and the caller adds the
// keys.
func (b *Builder) AddHashes(hashes []uint32) bool {
	if b.hashed == nil || !b.hashed.SeedHash() {
		return false
	}
	b.hashes = append(b.hashes, hashes...)
	return true
}

// Finish finishes the last filter and appends the offset array, the array
// offset and the base log, and returns the whole filter block, which
// belongs to b until its next call. Finishing again appends another
// offset array, as upstream does.
func (b *Builder) Finish() []byte {
	if len(b.ends)+len(b.hashes) > 0 {
		b.generateFilter()
	}
	arrayOffset := uint32(len(b.result))
	b.result = slices.Grow(b.result, 4*len(b.filterOffsets)+5)
	for _, off := range b.filterOffsets {
		b.result = binary.LittleEndian.AppendUint32(b.result, off)
	}
	b.result = binary.LittleEndian.AppendUint32(b.result, arrayOffset)
	b.result = append(b.result, BaseLg)
	return b.result
}

// generateFilter closes the current range: an empty filter when it has no
// keys, else the policy's filter of its keys.
func (b *Builder) generateFilter() {
	b.filterOffsets = append(b.filterOffsets, uint32(len(b.result)))
	if b.hashed != nil {
		n := len(b.hashes)
		if n == 0 {
			return
		}
		// Grow the result by doubling, not by append's smaller steps for
		// large slices: a table's filters then take a handful of
		// allocations, whatever their number.
		if need := b.hashed.FilterLen(n); cap(b.result)-len(b.result) < need {
			grown := make([]byte, len(b.result), max(2*cap(b.result), len(b.result)+need, initialResult))
			copy(grown, b.result)
			b.result = grown
		}
		b.result = b.hashed.AppendFilter(b.result, b.hashes)
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
