package bloom

import (
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
			hashKeys(chunk, hashes)
		}
		addHashes(array, p.k, hashes)
	}
	return dst
}

// hashKeys sets hashes[i] to Hash(keys[i], bloomSeed) for each key. Hash is
// written out, as in KeyMayMatch, so that the loop calls nothing and spills
// nothing around a call per key; TestHashKeys holds it equal to Hash.
func hashKeys(keys [][]byte, hashes []uint32) {
	hashes = hashes[:len(keys)]
	if !unalignedLE {
		for x, key := range keys {
			hashes[x] = Hash(key, bloomSeed)
		}
		return
	}
	for x, key := range keys {
		kp := unsafe.Pointer(unsafe.SliceData(key))
		kn := len(key)
		h := bloomSeed ^ uint32(kn)*hashM
		i, r := 0, kn // r = kn - i, the bytes left
		for ; r >= 16; i, r = i+16, r-16 {
			w0 := *(*uint64)(unsafe.Add(kp, i))
			w1 := *(*uint64)(unsafe.Add(kp, i+8))
			h += uint32(w0)
			h *= hashM
			h ^= h >> 16
			h += uint32(w0 >> 32)
			h *= hashM
			h ^= h >> 16
			h += uint32(w1)
			h *= hashM
			h ^= h >> 16
			h += uint32(w1 >> 32)
			h *= hashM
			h ^= h >> 16
		}
		if r != 0 {
			if r >= 8 {
				w := *(*uint64)(unsafe.Add(kp, i))
				h += uint32(w)
				h *= hashM
				h ^= h >> 16
				h += uint32(w >> 32)
				h *= hashM
				h ^= h >> 16
				i, r = i+8, r-8
			}
			if r >= 4 {
				h += *(*uint32)(unsafe.Add(kp, i))
				h *= hashM
				h ^= h >> 16
				r -= 4
			}
			if r > 0 {
				// One to three tail bytes, unsigned: from the key's
				// last 4 bytes when it has them, else one by one.
				var t uint32
				if kn >= 4 {
					t = *(*uint32)(unsafe.Add(kp, kn-4)) >> (32 - 8*uint(r))
				} else {
					for j := kn - 1; j >= 0; j-- {
						t = t<<8 | uint32(*(*byte)(unsafe.Add(kp, j)))
					}
				}
				h += t
				h *= hashM
				h ^= h >> hashR
			}
		}
		hashes[x] = h
	}
}

// hash is the hash the policy's filters are made of: Hash, or
// HashSignedTail for the legacy policy of LevelDB v1.4 to v1.17 on x86.
func (p *bloomPolicy) hash(key []byte) uint32 {
	if p.signedTail {
		return HashSignedTail(key, bloomSeed)
	}
	return Hash(key, bloomSeed)
}

// KeyMayMatch calls nothing, so that it needs no stack frame and spills
// nothing: its hash is Hash (or HashSignedTail) written out, held equal to
// them by TestKeyMayMatchInlineHash.
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
	if unalignedLE {
		// Hash(key, bloomSeed), reading the key through unsafe.Add at
		// offsets checked against its length, by loads of the machine's
		// own, which are little-endian and may be unaligned.
		kp := unsafe.Pointer(unsafe.SliceData(key))
		kn := len(key)
		h = bloomSeed ^ uint32(kn)*hashM
		i, r := 0, kn // r = kn - i, the bytes left
		for ; r >= 16; i, r = i+16, r-16 {
			w0 := *(*uint64)(unsafe.Add(kp, i))
			w1 := *(*uint64)(unsafe.Add(kp, i+8))
			h += uint32(w0)
			h *= hashM
			h ^= h >> 16
			h += uint32(w0 >> 32)
			h *= hashM
			h ^= h >> 16
			h += uint32(w1)
			h *= hashM
			h ^= h >> 16
			h += uint32(w1 >> 32)
			h *= hashM
			h ^= h >> 16
		}
		// The 1 to 15 bytes left, behind one test: a key of a multiple
		// of 16 bytes passes them in one branch instead of three.
		if r != 0 {
			if r >= 8 {
				w := *(*uint64)(unsafe.Add(kp, i))
				h += uint32(w)
				h *= hashM
				h ^= h >> 16
				h += uint32(w >> 32)
				h *= hashM
				h ^= h >> 16
				i, r = i+8, r-8
			}
			if r >= 4 {
				h += *(*uint32)(unsafe.Add(kp, i))
				h *= hashM
				h ^= h >> 16
				r -= 4
			}
			if r > 0 {
				// One to three tail bytes: unsigned, from the key's
				// last 4 bytes when it has them (as in Hash), or
				// sign-extended as HashSignedTail does.
				var t uint32
				if kn >= 4 && !p.signedTail {
					t = *(*uint32)(unsafe.Add(kp, kn-4)) >> (32 - 8*uint(r))
				} else {
					for j := kn - 1; j >= kn-r; j-- {
						b := *(*byte)(unsafe.Add(kp, j))
						if p.signedTail {
							t = t<<8 + uint32(int32(int8(b)))
						} else {
							t = t<<8 | uint32(b)
						}
					}
				}
				h += t
				h *= hashM
				h ^= h >> hashR
			}
		}
	} else {
		h = p.hash(key)
	}

	nbytes := n - 1
	base := unsafe.Pointer(unsafe.SliceData(filter))
	delta := h>>17 | h<<15
	if nbytes >= hugeBytes {
		// 2^32 bits or more: the probe is the bit (see probe.go).
		for j := 0; j < k; j++ {
			if *(*byte)(unsafe.Add(base, h/8))&(1<<(h%8)) == 0 {
				return false
			}
			h += delta
		}
		return true
	}
	// All k bits are read and ANDed rather than returning at the first
	// clear one, as upstream does: for an absent key where that bit falls
	// is random, and the mispredicted branch costs more than the probes.
	r := newReducer(nbytes)
	all := uint32(1)
	for j := 0; j < k; j++ {
		all &= r.bit(base, h)
		h += delta
	}
	return all&1 != 0
}
