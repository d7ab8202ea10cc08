//go:build !purego

package bloom

import "unsafe"

// The AVX2 kernel of CreateFilter (vector_amd64.s): probe positions of four
// keys at a time, computed in the vector unit. On AMD EPYC family 25,
// CreateFilter's scalar probes keep the processor's one 64-bit multiplier
// busy (two multiplications per probe, one of them 64x64 to 128 bits,
// on top of the hash's); the vector unit has two multipliers of its own
// (VPMULUDQ, 32x32 to 64 bits) and computes the same remainder exactly
// with four of them per four probes (addProbesAVX2's comment in
// vector_amd64.s says how). The kernel sets each group's bits while the
// next group is computed: the order bits are set in does not change the
// filter.

// addProbesAVX2 sets in the bit array at array, of bits bits, the k
// probe bits of each hash in hashes[:n] (n a multiple of 4): bits
// (h + j*delta mod 2^32) % bits for j < k, delta = h rotated right by 17,
// as util/bloom.cc sets them. m is ceil(2^64 / bits), and 8 <= bits < 2^32.
//
//go:noescape
func addProbesAVX2(hashes *uint32, n int, k int, m uint64, bits uint64, array *byte)

// xgetbv returns the low 32 bits of extended control register 0.
func xgetbv() uint32

// hasAVX2 reports whether the processor has AVX2 and the operating
// system saves its registers.
var hasAVX2 = func() bool {
	maxLeaf, _, _, _ := cpuid(0, 0)
	if maxLeaf < 7 {
		return false
	}
	_, _, c1, _ := cpuid(1, 0)
	const osxsave, avx = 1 << 27, 1 << 28
	if c1&osxsave == 0 || c1&avx == 0 {
		return false
	}
	if xgetbv()&6 != 6 { // XMM and YMM state enabled
		return false
	}
	_, b7, _, _ := cpuid(7, 0)
	return b7&(1<<5) != 0
}()

// vectorCreateFaster reports whether CreateFilter's probes are faster in
// the AVX2 kernel than in scalar code on this processor: on AMD's with
// AVX2, as measured on AMD EPYC family 25 (docs/performance.md). Intel's
// keep the scalar probes, which is what was measured there.
var vectorCreateFaster = hasAVX2 && earlyExitFaster

// addHashesVector sets the k probe bits of each of hashes in array,
// len(array) < hugeBytes: those of groups of four keys in addProbesAVX2,
// those of the last keys (and all where the processor has no AVX2) by the
// reducer.
func addHashesVector(array []byte, k int, hashes []uint32) {
	if !hasAVX2 {
		addHashesScalar(array, k, hashes)
		return
	}
	// Filters have 64 bits or more (FilterBits), so nbits is not zero.
	nbits := uint64(len(array)) * 8
	n := len(hashes) &^ 3
	addProbesAVX2(unsafe.SliceData(hashes), n, k, ^uint64(0)/nbits+1, nbits, unsafe.SliceData(array))
	addHashesScalar(array, k, hashes[n:])
}
