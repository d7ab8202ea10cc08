package bloom

import (
	"encoding/binary"

	"github.com/ldbcompat/ldbcompat/internal/filterblock"
)

// table/filter_block.cc; the builder (and the layout's doc) is in
// internal/filterblock, shared with internal/filtercheck.

// FilterBlockBuilder builds a table's filter block as
// leveldb::FilterBlockBuilder does. Call (StartBlock AddKey*)* Finish,
// StartBlock with each data block's offset; a backwards StartBlock is a
// no-op, as in release builds. Buffers are kept between filters and, by
// Reset, tables; a bloom filter keeps only each key's hash.
type FilterBlockBuilder struct{ b filterblock.Builder }

// NewFilterBlockBuilder returns a builder that makes filters with p.
func NewFilterBlockBuilder(p FilterPolicy) *FilterBlockBuilder {
	fb := new(FilterBlockBuilder)
	fb.b.Init(p)
	return fb
}

// Reset readies b for another table, keeping its buffers; it overwrites
// what an earlier Finish returned.
func (b *FilterBlockBuilder) Reset() { b.b.Reset() }

// StartBlock starts the data block at blockOffset, finishing the filters
// of the 2 KiB ranges before it (empty where they have no keys).
func (b *FilterBlockBuilder) StartBlock(blockOffset uint64) { b.b.StartBlock(blockOffset) }

// AddKey adds key (a copy, or a bloom filter's hash) to the current range.
func (b *FilterBlockBuilder) AddKey(key []byte) { b.b.AddKey(key) }

// Finish finishes the last filter, appends the offset array, its offset
// and the base log, and returns the block, valid until the builder's next
// call. Finishing again appends another offset array, as upstream does.
func (b *FilterBlockBuilder) Finish() []byte { return b.b.Finish() }

// filterblock.HashPolicy, by which a filterblock.Builder builds bloom
// filters from hashes; not API, as bloomPolicy is unexported.

// HashKey returns the hash p's filter of key is made of.
func (p *bloomPolicy) HashKey(key []byte) uint32 { return p.hash(key) }

// SeedHash reports whether p's hash is Hash(key, bloomSeed).
func (p *bloomPolicy) SeedHash() bool { return !p.signedTail }

// FilterLen returns the length of p's filter of n keys, k byte included.
func (p *bloomPolicy) FilterLen(n int) int { return p.filterLen(n) }

// AppendFilter appends p's filter of the keys with these hashes to dst.
func (p *bloomPolicy) AppendFilter(dst []byte, hashes []uint32) []byte {
	dst, array := p.appendEmpty(dst, len(hashes))
	addHashes(array, p.k, hashes)
	return dst
}

// FilterBlockReader answers queries as leveldb::FilterBlockReader does:
// what cannot be decoded may match, never an error.
type FilterBlockReader struct {
	policy   FilterPolicy
	contents []byte
	arrayOff uint64 // where the offset array starts; valid only if num > 0
	num      uint64 // number of filters
	baseLg   uint8
}

// NewFilterBlockReader returns a reader of contents, built with p, which
// must not change while in use. Under 5 bytes, or with the array offset
// past the last 5, every query answers true.
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

// KeyMayMatch reports whether key may be in the data block at blockOffset:
// filter blockOffset >> (lg mod 64, as amd64 and arm64 shift); offsets out
// of order or past the array answer true, an empty filter false.
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
