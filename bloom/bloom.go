package bloom

import "slices"

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

// bloomPolicy implements util/bloom.cc's BloomFilterPolicy, and the pre-1.16
// legacy variants that differ only in name and hash.
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
		k:          probesFor(bitsPerKey),
		name:       name,
		signedTail: signedTail,
	}
}

// probesFor is upstream's k: bitsPerKey*ln(2), with ln(2) written as 0.69,
// truncated and clamped to 1..30.
func probesFor(bitsPerKey int) int {
	k := int(float64(bitsPerKey) * 0.69)
	if k < 1 {
		k = 1
	}
	if k > maxK {
		k = maxK
	}
	return k
}

func (p *bloomPolicy) Name() string { return p.name }

func (p *bloomPolicy) hash(key []byte) uint32 {
	if p.signedTail {
		return HashSignedTail(key, bloomSeed)
	}
	return Hash(key, bloomSeed)
}

// filterBits returns upstream's filter size in bits for n keys: at least 64,
// a multiple of 8.
func (p *bloomPolicy) filterBits(n int) uint64 {
	bits := uint64(n) * p.bitsPerKey
	if bits < 64 {
		bits = 64
	}
	return (bits + 7) / 8 * 8
}

func (p *bloomPolicy) CreateFilter(keys [][]byte, dst []byte) []byte {
	bits := p.filterBits(len(keys))
	nbytes := int(bits / 8)
	start := len(dst)
	dst = slices.Grow(dst, nbytes+1)[:start+nbytes+1]
	array := dst[start : start+nbytes]
	clear(array)
	dst[start+nbytes] = byte(p.k)
	if bits >= 1<<32 {
		for _, key := range keys {
			setBitsWide(array, p.k, p.hash(key))
		}
		return dst
	}
	b := uint32(bits)
	for _, key := range keys {
		h := p.hash(key)
		delta := h>>17 | h<<15
		for j := 0; j < p.k; j++ {
			pos := h % b
			array[pos/8] |= 1 << (pos % 8)
			h += delta
		}
	}
	return dst
}

// setBitsWide sets the k probe bits of hash h in a filter of 2^32 bits or
// more, where upstream's 64-bit modulo leaves h unchanged.
func setBitsWide(array []byte, k int, h uint32) {
	delta := h>>17 | h<<15
	for j := 0; j < k; j++ {
		array[h/8] |= 1 << (h % 8)
		h += delta
	}
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
	return mayContain(filter[:n-1], k, p.hash(key))
}

// mayContain probes the bit array of a filter with k probes derived from h.
func mayContain(array []byte, k int, h uint32) bool {
	bits := uint64(len(array)) * 8
	delta := h>>17 | h<<15
	if bits >= 1<<32 {
		for j := 0; j < k; j++ {
			if array[h/8]&(1<<(h%8)) == 0 {
				return false
			}
			h += delta
		}
		return true
	}
	b := uint32(bits)
	for j := 0; j < k; j++ {
		pos := h % b
		if array[pos/8]&(1<<(pos%8)) == 0 {
			return false
		}
		h += delta
	}
	return true
}
