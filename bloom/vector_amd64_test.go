//go:build !purego && linux

package bloom

import (
	"fmt"
	"math/bits"
	"math/rand"
	"syscall"
	"testing"
	"unsafe"
)

// TestAddProbesAVX2 checks the AVX2 kernel against upstream's arithmetic:
// after it, the bit array holds exactly the bits
// (h + j*delta mod 2^32) % bits, j < k, of its hashes (a 64-bit modulo,
// as util/bloom.cc). Bit arrays of every size to 4 KiB and sizes up to the
// kernel's limit, 2^32 bits, where the arithmetic's bounds are tightest
// (arrays of hundreds of MiB are anonymous memory maps of which only the
// pages the probes touch are ever written), with hashes at the edges, at
// and around multiples of bits, and at random, for k of 1, 6, 7 and 30.
func TestAddProbesAVX2(t *testing.T) {
	if !hasAVX2 {
		t.Skip("this processor has no AVX2")
	}
	rng := rand.New(rand.NewSource(11))
	sizes := []int{hugeBytes - 1, hugeBytes - 2, 1<<28 + 1, 1 << 27, 12500, 1 << 20}
	for n := 1; n <= 4096; n++ {
		sizes = append(sizes, n)
	}
	for i := 0; i < 300; i++ {
		sizes = append(sizes, 1+rng.Intn(1<<24))
	}
	for i := 0; i < 4; i++ {
		sizes = append(sizes, 1<<24+rng.Intn(hugeBytes-1<<24))
	}
	for _, nbytes := range sizes {
		array, free := zeroArray(t, nbytes)
		nbits := uint64(nbytes) * 8
		hs := []uint32{0, 1, 7, 8, 1<<31 - 1, 1 << 31, 1<<32 - 9, 1<<32 - 1}
		for _, q := range []uint64{1, 2, 3, (1 << 32) / nbits} {
			if m := q * nbits; m < 1<<32 {
				hs = append(hs, uint32(m), uint32(m-1), uint32(m+1))
			}
		}
		for len(hs)%4 != 0 || len(hs) < 16 {
			hs = append(hs, rng.Uint32())
		}
		for _, k := range []int{1, 6, 7, 30} {
			addProbesAVX2(&hs[0], len(hs), k, ^uint64(0)/nbits+1, nbits, &array[0])
			checkProbeBits(t, array, hs, k, fmt.Sprintf("%d bits, k %d", nbits, k))
		}
		free()
	}
}

// checkProbeBits checks that array holds exactly the bits of upstream's
// probes of hs, (h + j*delta mod 2^32) % bits for j < k with a 64-bit
// modulo, bits = 8*len(array): each is set, and clearing them all (which
// it does) leaves the array zero. what names the case in failures.
func checkProbeBits(t *testing.T, array []byte, hs []uint32, k int, what string) {
	t.Helper()
	nbits := uint64(len(array)) * 8
	for _, h := range hs {
		delta := h>>17 | h<<15
		for j := 0; j < k; j++ {
			r := uint64(h+uint32(j)*delta) % nbits
			if array[r/8]&(1<<(r%8)) == 0 {
				t.Fatalf("%s: hash %#x, probe %d: bit %d not set", what, h, j, r)
			}
		}
	}
	for _, h := range hs {
		delta := h>>17 | h<<15
		for j := 0; j < k; j++ {
			r := uint64(h+uint32(j)*delta) % nbits
			array[r/8] &^= 1 << (r % 8)
		}
	}
	if i := firstNonZero(array); i >= 0 {
		t.Fatalf("%s: byte %d is %#x, set by no probe", what, i, array[i])
	}
}

// zeroArray returns a zeroed array of n bytes: an anonymous memory map for
// large ones, whose untouched pages take no memory, and the function that
// frees it.
func zeroArray(t *testing.T, n int) ([]byte, func()) {
	if n < 1<<24 {
		return make([]byte, n), func() {}
	}
	m, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE|syscall.MAP_NORESERVE)
	if err != nil {
		t.Fatalf("mmap %d bytes: %v", n, err)
	}
	return m, func() {
		if err := syscall.Munmap(m); err != nil {
			t.Fatalf("munmap: %v", err)
		}
	}
}

// firstNonZero returns the index of the first non-zero byte of b, or -1.
func firstNonZero(b []byte) int {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		if w := *(*uint64)(unsafe.Pointer(&b[i])); w != 0 {
			return i + bits.TrailingZeros64(w)/8
		}
	}
	for ; i < len(b); i++ {
		if b[i] != 0 {
			return i
		}
	}
	return -1
}

// TestAddHashesHugeVector checks that bit arrays of 2^32 bits or more,
// which the vector kernel cannot reduce into (its remainder multiplies by
// the low 32 bits of bits), take the path where the probe is the bit, as
// util/bloom.cc's h % bits with bits a size_t gives, even with the vector
// kernel chosen: exactly 2^29 bytes and a little more.
func TestAddHashesHugeVector(t *testing.T) {
	rng := rand.New(rand.NewSource(13))
	hs := []uint32{0, 7, 8, 1<<32 - 1}
	for len(hs) < 16 {
		hs = append(hs, rng.Uint32())
	}
	for _, nbytes := range []int{hugeBytes, hugeBytes + 1000} {
		array, free := zeroArray(t, nbytes)
		const k = 6
		addHashes(array, k, hs, true)
		checkProbeBits(t, array, hs, k, fmt.Sprintf("%d bytes", nbytes))
		free()
	}
}
