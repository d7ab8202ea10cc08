package filterblock

import (
	"encoding/binary"
	"slices"
)

// A filter block (table/filter_block.cc, doc/table_format.md): filters of
// the keys of each 2^lg range of data-block offsets (maybe empty), their
// uint32 LE offsets, the array's uint32 offset, and lg (11). Filter i ends
// where the next, or the offset array, starts.

// BaseLg is kFilterBaseLg: a filter per 2 KiB, stored as the last byte.
const BaseLg = 11

// Policy is what a Builder needs of a filter policy.
type Policy interface {
	CreateFilter(keys [][]byte, dst []byte) []byte
}

// HashPolicy is a policy whose filters need one 32-bit hash a key, as
// bloom's do; a Builder keeps hashes rather than keys.
type HashPolicy interface {
	Policy
	// HashKey returns the hash key's filter is made of.
	HashKey(key []byte) uint32
	// SeedHash reports whether HashKey(key) is bloom.Hash(key, Seed), so
	// hashes from elsewhere may be added (AddHashes).
	SeedHash() bool
	// FilterLen returns the length of the filter of n keys.
	FilterLen(n int) int
	// AppendFilter appends what CreateFilter of the keys would,
	// FilterLen(len(hashes)) bytes.
	AppendFilter(dst []byte, hashes []uint32) []byte
}

// Builder is leveldb::FilterBlockBuilder (bloom.FilterBlockBuilder
// documents the calls); its buffers are kept between filters and, by
// Reset, tables.
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

// Initial buffer sizes: a range's keys rarely take more than a few KiB.
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

// Reset readies b for another table, keeping its buffers.
func (b *Builder) Reset() {
	b.hashes = b.hashes[:0]
	b.keys = b.keys[:0]
	b.ends = b.ends[:0]
	b.result = b.result[:0]
	b.filterOffsets = b.filterOffsets[:0]
}

// StartBlock finishes the filters of the ranges before blockOffset's
// (empty without keys); an earlier range is a no-op.
func (b *Builder) StartBlock(blockOffset uint64) {
	index := blockOffset >> BaseLg
	if index <= uint64(len(b.filterOffsets)) {
		return
	}
	b.generateFilter()
	// Further ranges are empty: empty filters at the current end.
	end := uint32(len(b.result))
	for uint64(len(b.filterOffsets)) < index {
		b.filterOffsets = append(b.filterOffsets, end)
	}
}

// AddKey adds key (a copy, or a HashPolicy's hash) to the current range.
func (b *Builder) AddKey(key []byte) {
	if b.hashed != nil {
		b.hashes = append(b.hashes, b.hashed.HashKey(key))
		return
	}
	b.keys = append(b.keys, key...)
	b.ends = append(b.ends, len(b.keys))
}

// AddHashes adds keys by their bloom.Hash(key, Seed) when the policy is
// SeedHash; otherwise it returns false and the caller adds the keys.
func (b *Builder) AddHashes(hashes []uint32) bool {
	if b.hashed == nil || !b.hashed.SeedHash() {
		return false
	}
	b.hashes = append(b.hashes, hashes...)
	return true
}

// Finish appends the last filter and the tail and returns the block, b's
// until its next call; finishing again appends another array, as upstream.
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

// generateFilter closes the current range's filter (empty without keys).
func (b *Builder) generateFilter() {
	b.filterOffsets = append(b.filterOffsets, uint32(len(b.result)))
	if b.hashed != nil {
		n := len(b.hashes)
		if n == 0 {
			return
		}
		// Grow by doubling: a handful of allocations per table.
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
