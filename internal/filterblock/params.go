package filterblock

// util/bloom.cc's arithmetic for readers of stored filters, with inverses
// and a filter's prefix. bloom keeps its own Probes and FilterBits
// (judged by the kit); tests hold these to them and to upstream.

// Seed is BloomHash's seed: filters from 1.18 are of bloom.Hash(key, Seed).
const Seed = 0xbc9f1d34

// MaxProbes is util/bloom.cc's largest k; a larger k byte matches all.
const MaxProbes = 30

// Probes is BloomFilterPolicy's k: int(bitsPerKey * 0.69) clamped to 1..30,
// negative taken as 0 (bloom.ProbesFor).
func Probes(bitsPerKey int) int {
	k := int(float64(max(bitsPerKey, 0)) * 0.69)
	return min(max(k, 1), MaxProbes)
}

// FilterBits is the bit array's size for n keys: n*bitsPerKey (negative
// as 0), at least 64, rounded up to 8. Duplicates count.
func FilterBits(n, bitsPerKey int) uint64 {
	nbits := uint64(max(n, 0)) * uint64(max(bitsPerKey, 0))
	return (max(nbits, 64) + 7) / 8 * 8
}

// FilterLen is a filter's length in bytes, k byte included.
func FilterLen(n, bitsPerKey int) int { return int(FilterBits(n, bitsPerKey)/8) + 1 }

// clampedAt is the smallest bits/key giving k = 30, as all larger do.
const clampedAt = 44

// BitsPerKeyForProbes returns the bits-per-key values lo..hi, hi at most
// limit, for which Probes gives k; ok is false when there are none.
func BitsPerKeyForProbes(k, limit int) (lo, hi int, ok bool) {
	lo, hi = -1, -1
	for b := 0; b <= min(limit, clampedAt); b++ {
		if Probes(b) == k {
			if lo < 0 {
				lo = b
			}
			hi = b
		}
	}
	if k == MaxProbes && hi == clampedAt {
		hi = limit
	}
	return lo, hi, lo >= 0
}

// BitsPerKeyForLen returns the bits-per-key values lo..hi for which
// util/bloom.cc writes a filter of flen bytes, the k byte included, for
// n > 0 keys (FilterLen); ok is false when none does.
func BitsPerKeyForLen(n, flen int) (lo, hi int, ok bool) {
	if n <= 0 || flen < 9 { // at least 64 bits and the k byte
		return 0, 0, false
	}
	bits := (flen - 1) * 8
	if bits == 64 {
		return 0, 64 / n, true
	}
	lo, hi = (bits-8)/n+1, bits/n
	return lo, hi, lo <= hi
}

// AppendFilterPrefix appends the first n bytes (or all) of util/bloom.cc's
// filter at bitsPerKey of these hashes (bloom.Hash(key, Seed), or
// HashSignedTail for legacy) without the rest, since a damaged k or size
// can imply a filter far larger than the table. Probes as util/bloom.cc.
func AppendFilterPrefix(dst []byte, hashes []uint32, bitsPerKey, n int) []byte {
	bits := FilterBits(len(hashes), bitsPerKey)
	k := Probes(bitsPerKey)
	n = min(max(n, 0), int(bits/8)+1)
	start := len(dst)
	dst = append(dst, make([]byte, n)...)
	prefix := dst[start:]
	if n > int(bits/8) {
		prefix[n-1] = byte(k)
	}
	for _, h := range hashes {
		delta := h>>17 | h<<15
		for j := 0; j < k; j++ {
			if pos := uint64(h) % bits; pos/8 < uint64(n) {
				prefix[pos/8] |= 1 << (pos % 8)
			}
			h += delta
		}
	}
	return dst
}
