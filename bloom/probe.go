package bloom

import (
	"math/bits"
	"unsafe"
)

// Probing as util/bloom.cc: probes h, h+delta, ... (delta = h rotr 17),
// each bit probe % bits, modulo in 64 bits. Instead of a division per probe:
//
//	bits < 2^32    reducer: Lemire's fastmod (every filter under 512 MiB)
//	bits >= 2^32   probe % bits == probe: the probe is the bit

// hugeBytes is the size of the smallest bit array with 2^32 bits, whose
// probes are their own bit positions.
const hugeBytes = 1 << 29

// A reducer maps a probe h to its byte and the bit within it, h % bits, in
// a bit array of nbytes bytes, bits = 8*nbytes < 2^32, with two
// multiplications.
//
// It is Lemire's fastmod (Lemire, Kaser and Kurz, "Faster Remainder by
// Direct Computation", 2019): with m = ceil(2^64 / bits), f = m*h mod 2^64
// is the fractional part of h/bits in units of 2^-64, slightly high, and
// the high 64 bits of f*bits are h % bits exactly for every 32-bit h and
// bits. Multiplying by nbytes = bits/8 instead shifts the 128-bit product
// right by 3: its high 64 bits are (h%bits)/8, the byte, and the top 3 of
// its low 64 bits (h%bits)%8, the bit within it. The byte is below nbytes,
// which is why the probes below read and write without bounds checks
// (TestReducer checks it).
type reducer struct {
	m      uint64 // ceil(2^64 / bits)
	nbytes uint64
}

// newReducer returns the reducer of a bit array of nbytes bytes,
// 0 < nbytes < hugeBytes. (2^64-1)/(8*nbytes) is written
// ((2^64-1)/8)/nbytes, the same quotient, so that the compiler sees a
// divisor that cannot be zero when nbytes is not.
func newReducer(nbytes int) reducer {
	return reducer{m: (^uint64(0)>>3)/uint64(nbytes) + 1, nbytes: uint64(nbytes)}
}

// reduce returns the byte and the bit within it of h % bits.
func (r reducer) reduce(h uint32) (i uint64, bit uint32) {
	hi, lo := bits.Mul64(r.m*uint64(h), r.nbytes)
	return hi, uint32(lo >> 61)
}

// bit returns the bit of probe h in the array at base as the lowest bit
// of its result (the higher bits are not zero).
func (r reducer) bit(base unsafe.Pointer, h uint32) uint32 {
	i, b := r.reduce(h)
	return uint32(*(*byte)(unsafe.Add(base, i))) >> b
}

// set sets the bit of probe h in the array at base.
func (r reducer) set(base unsafe.Pointer, h uint32) {
	i, b := r.reduce(h)
	*(*byte)(unsafe.Add(base, i)) |= 1 << b
}

// addHashes sets the k probe bits of each of hashes in array.
func addHashes(array []byte, k int, hashes []uint32) {
	if len(array) >= hugeBytes {
		for _, h := range hashes {
			delta := h>>17 | h<<15
			for j := 0; j < k; j++ {
				array[h/8] |= 1 << (h % 8)
				h += delta
			}
		}
		return
	}
	r := newReducer(len(array))
	base := unsafe.Pointer(unsafe.SliceData(array))
	for _, h := range hashes {
		delta := h>>17 | h<<15
		for j := 0; j < k; j++ {
			r.set(base, h)
			h += delta
		}
	}
}
