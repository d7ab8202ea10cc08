package bloom

import (
	"encoding/binary"

	"github.com/ldbcompat/ldbcompat/internal/filterblock"
)

// Follows table/filter_block.cc. The builder's code is
// internal/filterblock's, which internal/filtercheck uses too (it rebuilds
// a table's block from hashes it computed while reading the keys); the
// block's layout is drawn there.

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
// to the size of a filter's keys. With this package's bloom filter it keeps
// only each key's hash, which is all the filter needs.
type FilterBlockBuilder struct{ b filterblock.Builder }

// NewFilterBlockBuilder returns a builder that makes filters with p.
func NewFilterBlockBuilder(p FilterPolicy) *FilterBlockBuilder {
	fb := new(FilterBlockBuilder)
	fb.b.Init(p)
	return fb
}

// Reset makes b ready to build another table's filter block, as a new
// builder with the same policy would, but keeps its buffers. The slice an
// earlier Finish returned is overwritten by the next one.
func (b *FilterBlockBuilder) Reset() { b.b.Reset() }

// StartBlock tells the builder that the next keys belong to the data block at
// blockOffset. It finishes the filters of every 2 KiB range before the one
// holding blockOffset; ranges without keys get empty filters.
func (b *FilterBlockBuilder) StartBlock(blockOffset uint64) { b.b.StartBlock(blockOffset) }

// AddKey adds key to the filter of the current range. The builder copies
// it, or for this package's bloom filter only its hash.
func (b *FilterBlockBuilder) AddKey(key []byte) { b.b.AddKey(key) }

// Finish finishes the last filter and appends the offset array, the array
// offset and the base log, and returns the whole filter block. The returned
// slice belongs to the builder; it is valid until the builder's next call.
//
// As upstream's, a builder is meant to be finished once (or Reset); calling
// Finish again appends another offset array to the block, exactly as
// upstream does.
func (b *FilterBlockBuilder) Finish() []byte { return b.b.Finish() }

// The methods by which a filterblock.Builder (this package's, and
// internal/filtercheck's) builds a bloom filter from the keys' hashes
// (filterblock.HashPolicy). They are not part of the package's API:
// bloomPolicy is unexported, and FilterPolicy does not name them.

// HashKey returns the hash p's filter of key is made of.
func (p *bloomPolicy) HashKey(key []byte) uint32 { return p.hash(key) }

// SeedHash reports whether p's hash is Hash(key, bloomSeed), not the
// legacy hash of signed tail bytes.
func (p *bloomPolicy) SeedHash() bool { return !p.signedTail }

// FilterLen returns the length of p's filter of n keys, k byte included.
func (p *bloomPolicy) FilterLen(n int) int { return p.filterLen(n) }

// AppendFilter appends to dst p's filter of the keys whose hashes
// (HashKey) are given.
func (p *bloomPolicy) AppendFilter(dst []byte, hashes []uint32) []byte {
	dst, array := p.appendEmpty(dst, len(hashes))
	addHashes(array, p.k, hashes)
	return dst
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
