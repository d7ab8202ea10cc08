package bloom

import (
	"slices"
	"unsafe"
)

// FilterPolicy is leveldb::FilterPolicy: a named filter format that builds
// filters and answers membership queries. The filter block builder and
// reader take any FilterPolicy.
type FilterPolicy interface {
	// Name is stored in the metaindex as "filter.<Name>"; readers ignore
	// filters of another name.
	Name() string

	// CreateFilter appends a filter for keys to dst, never modifying
	// dst[:len(dst)]. Duplicate keys count as separate keys.
	CreateFilter(keys [][]byte, dst []byte) []byte

	// KeyMayMatch reports whether key may be in filter's set: true for
	// every key added, maybe for others (false positives).
	KeyMayMatch(key, filter []byte) bool
}

// PolicyName is the name of LevelDB's current built-in bloom filter.
const PolicyName = "leveldb.BuiltinBloomFilter2"

// maxK is the largest probe count upstream uses; a larger k byte is
// reserved for other encodings and matches every key.
const maxK = 30

// NewPolicy returns leveldb::NewBloomFilterPolicy(bitsPerKey), named
// "leveldb.BuiltinBloomFilter2": k = int(bitsPerKey*0.69) clamped to
// 1..30, filters of max(n*bitsPerKey, 64) bits in whole bytes, then k.
// Upstream recommends 10 (about 1% false positives). A negative
// bitsPerKey, which crashes upstream, is taken as 0.
func NewPolicy(bitsPerKey int) FilterPolicy {
	return newBloom(bitsPerKey, PolicyName, false)
}

// bloomPolicy is util/bloom.cc's BloomFilterPolicy, and the v1.4 to v1.17
// variants that differ in name and hash.
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

// appendEmpty appends n keys' zeroed bit array and k byte; it returns both.
func (p *bloomPolicy) appendEmpty(dst []byte, n int) ([]byte, []byte) {
	nbytes := p.filterLen(n) - 1
	start := len(dst)
	dst = slices.Grow(dst, nbytes+1)[:start+nbytes+1]
	array := dst[start : start+nbytes : start+nbytes]
	clear(array)
	dst[start+nbytes] = byte(p.k)
	return dst, array
}

// hashChunk is how many keys CreateFilter hashes before setting bits, so
// the independent hashes overlap and the probe loop is free of them.
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

// hashKeys sets hashes[i] to Hash(keys[i], bloomSeed), with Hash written
// out so the loop calls nothing; TestHashKeys holds it equal to Hash.
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
				// 1 to 3 unsigned tail bytes, from the last 4 if any.
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

// hash is Hash, or HashSignedTail for the legacy x86 policy.
func (p *bloomPolicy) hash(key []byte) uint32 {
	if p.signedTail {
		return HashSignedTail(key, bloomSeed)
	}
	return Hash(key, bloomSeed)
}

// KeyMayMatch calls nothing, so it needs no stack frame: Hash (or
// HashSignedTail) is written out, held equal by TestKeyMayMatchInlineHash.
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
		// Hash(key, bloomSeed) by unaligned little-endian loads at
		// offsets checked against the length.
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
		// 1 to 15 bytes left, behind one test for multiples of 16.
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
				// 1 to 3 tail bytes: unsigned from the last 4 (as in
				// Hash), or sign-extended as HashSignedTail does.
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
	// All k bits are ANDed, not returning at the first clear one as
	// upstream does: that branch mispredicts for absent keys.
	r := newReducer(nbytes)
	all := uint32(1)
	for j := 0; j < k; j++ {
		all &= r.bit(base, h)
		h += delta
	}
	return all&1 != 0
}
