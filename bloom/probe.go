package bloom

import "math/bits"

// Probing. A key's hash h gives k probes, h, h+delta, h+2*delta, ... (mod
// 2^32) with delta = h rotated right by 17, and each probe sets or tests
// bit (probe % bits) of the filter's bit array, where bits = 8*len(array)
// and the modulo is 64-bit, as in util/bloom.cc.
//
// A division per probe is what upstream pays; here the remainder comes
// from multiplications (a reducer) with one division per filter. Three
// sizes of filter take three paths, all exact:
//
//	bits < 2^31          reducer: two 64-bit multiplications per probe
//	2^31 <= bits < 2^32  wideReducer: a 64x64->128-bit multiplication more
//	bits >= 2^32         probe % bits == probe: the probe is the bit
//
// The first covers every filter below 256 MiB, which is all of them in
// practice; the others exist to match upstream everywhere.

// narrowBytes is the size of the smallest bit array the reducer does not
// handle: 2^31 bits.
const narrowBytes = 1 << 28

// A reducer maps a probe h to its byte and bit, h % bits, in a bit array of
// nbytes bytes, bits = 8*nbytes < 2^31, with multiplications only.
//
// It is Lemire's fastmod (Lemire, Kaser and Kurz, "Faster Remainder by
// Direct Computation", 2019) with the second multiplication narrowed. Let
// m = ceil(2^64 / bits). Then f = m*h mod 2^64 is the fractional part of
// h/bits in units of 2^-64, slightly high:
//
//	f*bits / 2^64 = h%bits + e,  0 <= e = (m*bits - 2^64)*h / 2^64 < bits*2^32/2^64 < 1/2
//
// Rounding f up to a multiple of 2^32, g = floor(f/2^32) + 1, adds less
// than bits/2^32 < 1/2 more, so p = g*bits / 2^32 lies in [h%bits,
// h%bits+1) and its integer part is exactly h%bits. With bits = 8*nbytes,
// g*nbytes = p*2^29 holds that integer part split as the filter wants it:
// bits 32 and up are (h%bits)/8, the byte, and bits 29..31 are (h%bits)%8,
// the bit within it. g*nbytes < 2^32 * 2^28 does not overflow.
type reducer struct {
	m      uint64 // ceil(2^64 / bits)
	nbytes uint64
}

// newReducer returns the reducer of a bit array of nbytes bytes,
// 0 < nbytes < narrowBytes.
func newReducer(nbytes int) reducer {
	return reducer{m: ^uint64(0)/(uint64(nbytes)*8) + 1, nbytes: uint64(nbytes)}
}

// reduce returns the byte and the bit within it of h % bits.
func (r reducer) reduce(h uint32) (i uint64, bit uint32) {
	p := (r.m*uint64(h)>>32 + 1) * r.nbytes
	return p >> 32, uint32(p) >> 29
}

// A wideReducer is a reducer for 2^31 <= bits < 2^32, where g*nbytes could
// err: it is fastmod itself. The high 64 bits of the 128-bit product
// f*nbytes are (h%bits)/8 and the top 3 of its low 64 bits (h%bits)%8.
type wideReducer struct {
	m      uint64 // ceil(2^64 / bits)
	nbytes uint64
}

func newWideReducer(nbytes int) wideReducer {
	return wideReducer{m: ^uint64(0)/(uint64(nbytes)*8) + 1, nbytes: uint64(nbytes)}
}

func (r wideReducer) reduce(h uint32) (i uint64, bit uint32) {
	hi, lo := bits.Mul64(r.m*uint64(h), r.nbytes)
	return hi, uint32(lo >> 61)
}

// addHashes sets the k probe bits of each of hashes in array.
func addHashes(array []byte, k int, hashes []uint32) {
	switch {
	case len(array) < narrowBytes:
		r := newReducer(len(array))
		for _, h := range hashes {
			delta := h>>17 | h<<15
			for j := 0; j < k; j++ {
				i, bit := r.reduce(h)
				array[i] |= 1 << bit
				h += delta
			}
		}
	case len(array) < 1<<29:
		r := newWideReducer(len(array))
		for _, h := range hashes {
			delta := h>>17 | h<<15
			for j := 0; j < k; j++ {
				i, bit := r.reduce(h)
				array[i] |= 1 << bit
				h += delta
			}
		}
	default:
		for _, h := range hashes {
			delta := h>>17 | h<<15
			for j := 0; j < k; j++ {
				array[h/8] |= 1 << (h % 8)
				h += delta
			}
		}
	}
}

// mayContainLarge reports whether all k probe bits of h are set in an
// array of 2^31 bits or more.
func mayContainLarge(array []byte, k int, h uint32) bool {
	delta := h>>17 | h<<15
	if len(array) >= 1<<29 {
		for j := 0; j < k; j++ {
			if array[h/8]&(1<<(h%8)) == 0 {
				return false
			}
			h += delta
		}
		return true
	}
	r := newWideReducer(len(array))
	for j := 0; j < k; j++ {
		i, bit := r.reduce(h)
		if array[i]>>bit&1 == 0 {
			return false
		}
		h += delta
	}
	return true
}
