package bloom

import (
	"math/bits"
	"unsafe"
)

// Probing. A key's hash h gives k probes, h, h+delta, h+2*delta, ... (mod
// 2^32) with delta = h rotated right by 17, and each probe sets or tests
// bit (probe % bits) of the filter's bit array, where bits = 8*len(array)
// and the modulo is 64-bit, as in util/bloom.cc.
//
// A division per probe is what upstream pays; here the remainder comes
// from two multiplications (a reducer) with one division per filter. Two
// sizes of filter take two paths, both exact:
//
//	bits < 2^32    reducer: Lemire's fastmod
//	bits >= 2^32   probe % bits == probe: the probe is the bit
//
// The first covers every filter below 512 MiB, which is all of them in
// practice; the other exists to match upstream everywhere.
//
// How KeyMayMatch tests the k bits differs by processor, with the same
// answer. Upstream returns at the first clear bit. On the Intel Xeons this
// package was measured on, reading all k bits and ANDing them was faster:
// for an absent key, where the first clear bit falls is random, and the
// mispredicted branch cost more than the probes it saved. On AMD EPYC
// (family 25) it is the other way round: an absent key takes about 40%
// less time returning at the first clear bit (it reads 1.8 bits on
// average instead of 6), and a present one about the same (make bench,
// docs/performance.md). earlyExitFaster (cpu_*.go) picks the early return
// on AMD processors. On AMD's family 25 (divProbesFaster), at 10 bits per
// key, two of the six probes divide as upstream does (isSetDiv): the
// multiplier is what a present key's probes wait for, and the divider, a
// unit of its own, is idle beside it. Present keys took about 7% less time
// than with six reducer probes; two divisions were the best of the mixes
// timed. On family 26 (Zen 5) the same mix made present keys 3% and
// absent ones 9% slower than six reducer probes, and every probe by
// division made present keys about 1.5 times as slow: there all six use
// the reducer, on a path KeyMayMatch tests first and writes out (early6).
//
// How CreateFilter sets the bits differs too: on AMD processors with AVX2,
// the probes of four keys at a time are reduced in the vector unit
// (vector_amd64.s), with the same remainders (vectorCreateFaster).

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

// isSet reports whether the bit of probe h is set in the bit array at
// base, of r's size.
func (r reducer) isSet(base unsafe.Pointer, h uint32) bool {
	i, b := r.reduce(h)
	return uint32(*(*byte)(unsafe.Add(base, i)))&(1<<b) != 0
}

// isSetDiv is isSet with upstream's arithmetic, a division, for a bit
// array of bits < 2^32 bits. The division runs in the divider, apart from
// the multiplier that a reducer's two multiplications wait for.
func isSetDiv(base unsafe.Pointer, h, bits uint32) bool {
	b := h % bits
	return uint32(*(*byte)(unsafe.Add(base, b/8)))&(1<<(b%8)) != 0
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

// addHashes sets the k probe bits of each of hashes in array, in the
// vector kernel (vector_*.go) when vector is true and there is one.
func addHashes(array []byte, k int, hashes []uint32, vector bool) {
	if vector && len(array) < hugeBytes {
		addHashesVector(array, k, hashes)
		return
	}
	addHashesScalar(array, k, hashes)
}

// addHashesScalar is addHashes in scalar code.
func addHashesScalar(array []byte, k int, hashes []uint32) {
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
	if k == 6 {
		// 10 bits per key, written out.
		for _, h := range hashes {
			delta := h>>17 | h<<15
			r.set(base, h)
			r.set(base, h+delta)
			r.set(base, h+2*delta)
			r.set(base, h+3*delta)
			r.set(base, h+4*delta)
			r.set(base, h+5*delta)
		}
		return
	}
	for _, h := range hashes {
		delta := h>>17 | h<<15
		for j := 0; j < k; j++ {
			r.set(base, h)
			h += delta
		}
	}
}
