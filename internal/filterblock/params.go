package filterblock

// The arithmetic of util/bloom.cc that readers of stored filters need:
// how many probes a bits-per-key setting gives and how long a filter of n
// keys is, what settings give a stored filter's probe count or length,
// and the start of a filter made without the rest of it. Package bloom
// has its own copies of Probes and FilterBits (ProbesFor, filterBits),
// judged by the kit; tests hold these to upstream's filters and to them.

// Seed is the seed util/bloom.cc's BloomHash passes to Hash: a bloom
// filter of LevelDB 1.18 and later is made of bloom.Hash(key, Seed).
const Seed = 0xbc9f1d34

// MaxProbes is the largest number of probes util/bloom.cc uses, 30; a
// filter whose k byte is larger matches every key, the encoding being
// reserved for other filters.
const MaxProbes = 30

// Probes is the number of probes, k, of util/bloom.cc's BloomFilterPolicy
// for bitsPerKey: int(bitsPerKey * 0.69) clamped to 1..30, a negative
// bitsPerKey taken as 0 (bloom.ProbesFor).
func Probes(bitsPerKey int) int {
	k := int(float64(max(bitsPerKey, 0)) * 0.69)
	return min(max(k, 1), MaxProbes)
}

// FilterBits is the size in bits of the bit array of util/bloom.cc's
// filter of n keys at bitsPerKey (negative taken as 0): n*bitsPerKey, at
// least 64, rounded up to a multiple of 8. Duplicate keys count.
func FilterBits(n, bitsPerKey int) uint64 {
	nbits := uint64(max(n, 0)) * uint64(max(bitsPerKey, 0))
	return (max(nbits, 64) + 7) / 8 * 8
}

// FilterLen is the length of util/bloom.cc's filter of n keys at
// bitsPerKey, in bytes: its bit array and the k byte after it.
func FilterLen(n, bitsPerKey int) int { return int(FilterBits(n, bitsPerKey)/8) + 1 }

// clampedAt is the smallest bits/key whose k is the largest, 30: every
// larger value gives 30 too.
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

// AppendFilterPrefix appends to dst the first n bytes of util/bloom.cc's
// filter at bitsPerKey of the keys whose hashes are given (each key's
// bloom.Hash(key, Seed), or bloom.HashSignedTail for the legacy policy),
// all of it when it is no longer, without making the rest: a reader
// comparing a stored filter with the one its setting implies needs no
// more than the stored filter's length, where a damaged k byte or size
// can imply a filter far larger than the table. It probes as util/bloom.cc
// does: bit h % bits for each of k probes h, h+delta, h+2*delta, ... with
// delta h rotated right by 17 bits.
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
