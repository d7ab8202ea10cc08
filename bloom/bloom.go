package bloom

import (
	"encoding/binary"
	"slices"
	"unsafe"
)

// FilterPolicy is the Go form of leveldb::FilterPolicy: it names a filter
// format, builds a filter from a set of keys and answers whether a key may be
// in the set a filter was built from.
//
// A FilterBlockBuilder and a FilterBlockReader work with any FilterPolicy,
// not only the bloom filter of this package.
type FilterPolicy interface {
	// Name returns the name stored in a table's metaindex as
	// "filter.<Name>". A reader ignores filters whose name differs from its
	// policy's.
	Name() string

	// CreateFilter appends a filter for keys to dst and returns the extended
	// slice. It never modifies dst[:len(dst)]. Duplicate keys count as
	// separate keys.
	CreateFilter(keys [][]byte, dst []byte) []byte

	// KeyMayMatch reports whether key may be in the set filter was built
	// from. It must return true for every key that was added; it may return
	// true for other keys (false positives).
	KeyMayMatch(key, filter []byte) bool
}

// PolicyName is the name of LevelDB's current built-in bloom filter.
const PolicyName = "leveldb.BuiltinBloomFilter2"

// maxK is the largest number of probes upstream builds or reads; a filter
// whose trailing k byte is larger is reserved for other encodings and
// matches every key.
const maxK = 30

// NewPolicy returns LevelDB's built-in bloom filter policy,
// leveldb::NewBloomFilterPolicy(bitsPerKey), named
// "leveldb.BuiltinBloomFilter2".
//
// The number of probes is k = int(bitsPerKey * 0.69) clamped to 1..30; a
// filter for n keys has max(n*bitsPerKey, 64) bits rounded up to whole bytes,
// followed by one byte holding k. Upstream's recommended value is 10 bits per
// key (a false-positive rate near 1%).
//
// A negative bitsPerKey, which makes upstream crash or allocate without bound,
// is treated as 0: filters are then 64 bits with k = 1.
func NewPolicy(bitsPerKey int) FilterPolicy {
	return newBloom(bitsPerKey, PolicyName, false)
}

// bloomPolicy implements util/bloom.cc's BloomFilterPolicy, and the legacy
// variants of LevelDB v1.4 to v1.17 that differ only in name and hash.
type bloomPolicy struct {
	bitsPerKey uint64
	k          int
	name       string
	signedTail bool
}

func newBloom(bitsPerKey int, name string, signedTail bool) *bloomPolicy {
	if bitsPerKey < 0 {
		bitsPerKey = 0
	}
	return &bloomPolicy{
		bitsPerKey: uint64(bitsPerKey),
		k:          ProbesFor(bitsPerKey),
		name:       name,
		signedTail: signedTail,
	}
}

func (p *bloomPolicy) Name() string { return p.name }

// filterBits returns upstream's filter size in bits for n keys (FilterBits).
func (p *bloomPolicy) filterBits(n int) uint64 { return FilterBits(n, int(p.bitsPerKey)) }

// filterLen returns the length of a filter of n keys, k byte included.
func (p *bloomPolicy) filterLen(n int) int { return int(p.filterBits(n)/8) + 1 }

// appendEmpty appends an empty filter for n keys to dst: its bit array,
// all zero, and the k byte. It returns the extended slice and the array.
func (p *bloomPolicy) appendEmpty(dst []byte, n int) ([]byte, []byte) {
	nbytes := p.filterLen(n) - 1
	start := len(dst)
	dst = slices.Grow(dst, nbytes+1)[:start+nbytes+1]
	array := dst[start : start+nbytes : start+nbytes]
	clear(array)
	dst[start+nbytes] = byte(p.k)
	return dst, array
}

// hashChunk is how many keys CreateFilter hashes before it sets their bits.
// Hashing a run of keys first lets the processor overlap the hashes, which
// are independent, and keeps the probe loop free of them.
const hashChunk = 64

func (p *bloomPolicy) CreateFilter(keys [][]byte, dst []byte) []byte {
	dst, array := p.appendEmpty(dst, len(keys))
	var hs [hashChunk]uint32
	for len(keys) > 0 {
		chunk := keys[:min(len(keys), hashChunk)]
		keys = keys[len(chunk):]
		hashes := hs[:len(chunk)]
		if p.signedTail {
			for i, key := range chunk {
				hashes[i] = HashSignedTail(key, bloomSeed)
			}
		} else {
			for i, key := range chunk {
				hashes[i] = Hash(key, bloomSeed)
			}
		}
		addHashes(array, p.k, hashes)
	}
	return dst
}

// appendFilterFlat is CreateFilter for keys stored back to back in flat:
// key i is flat[ends[i-1]:ends[i]], the first one starting at 0.
// FilterBlockBuilder keeps its keys this way.
func (p *bloomPolicy) appendFilterFlat(dst, flat []byte, ends []int) []byte {
	dst, array := p.appendEmpty(dst, len(ends))
	var hs [hashChunk]uint32
	start := 0
	for len(ends) > 0 {
		chunk := ends[:min(len(ends), hashChunk)]
		ends = ends[len(chunk):]
		hashes := hs[:len(chunk)]
		if p.signedTail {
			for i, end := range chunk {
				hashes[i] = HashSignedTail(flat[start:end], bloomSeed)
				start = end
			}
		} else {
			for i, end := range chunk {
				hashes[i] = Hash(flat[start:end], bloomSeed)
				start = end
			}
		}
		addHashes(array, p.k, hashes)
	}
	return dst
}

func (p *bloomPolicy) KeyMayMatch(key, filter []byte) bool {
	n := len(filter)
	if n < 2 {
		return false
	}
	k := int(filter[n-1])
	if k > maxK {
		return true
	}
	var h uint32
	if p.signedTail {
		h = HashSignedTail(key, bloomSeed)
	} else {
		// Hash(key, bloomSeed), written out: the call, and the spills and
		// reloads around it, cost a tenth of a KeyMayMatch. The same
		// arithmetic as Hash; TestKeyMayMatchInlineHash holds them equal.
		h = bloomSeed ^ uint32(len(key))*hashM
		for len(key) >= 16 {
			w0 := binary.LittleEndian.Uint64(key)
			w1 := binary.LittleEndian.Uint64(key[8:])
			h = mixWord(h, uint32(w0))
			h = mixWord(h, uint32(w0>>32))
			h = mixWord(h, uint32(w1))
			h = mixWord(h, uint32(w1>>32))
			key = key[16:]
		}
		if len(key) >= 8 {
			w := binary.LittleEndian.Uint64(key)
			h = mixWord(h, uint32(w))
			h = mixWord(h, uint32(w>>32))
			key = key[8:]
		}
		if len(key) >= 4 {
			h = mixWord(h, binary.LittleEndian.Uint32(key))
			key = key[4:]
		}
		if len(key) > 0 {
			h = mixTail(h, key)
		}
	}
	array := filter[:n-1]
	if len(array) >= narrowBytes {
		return mayContainLarge(array, k, h)
	}
	// Read all k bits and AND them instead of returning at the first clear
	// bit: for an absent key, where the first clear bit falls is random,
	// and the early return's mispredicted branch costs more than the
	// probes it saves. The answer is the same.
	r := newReducer(len(array))
	delta := h>>17 | h<<15
	// The reducer's byte index is below len(array) by construction (see
	// reducer), so the probes read without bounds checks, which cost a
	// tenth of a KeyMayMatch. TestReducer checks the bound.
	base := unsafe.Pointer(unsafe.SliceData(array))
	bit := func(h uint32) byte {
		i, b := r.reduce(h)
		return *(*byte)(unsafe.Add(base, i)) >> b
	}
	if k == 6 {
		// 10 bits per key, upstream's recommendation and the usual
		// setting: the probes written out, free of loop bookkeeping.
		all := bit(h) & bit(h+delta) & bit(h+2*delta) & bit(h+3*delta) & bit(h+4*delta) & bit(h+5*delta)
		return all&1 != 0
	}
	all := byte(1)
	for j := 0; j < k; j++ {
		all &= bit(h)
		h += delta
	}
	return all&1 != 0
}
