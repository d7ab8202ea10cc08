//go:build linux

package bloom

import (
	"fmt"
	"math/bits"
	"math/rand"
	"syscall"
	"testing"
	"unsafe"
)

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

// TestAddHashesHuge checks that bit arrays of 2^32 bits or more take the
// path where the probe is the bit, as util/bloom.cc's h % bits with bits a
// size_t gives: exactly 2^29 bytes and a little more.
func TestAddHashesHuge(t *testing.T) {
	rng := rand.New(rand.NewSource(13))
	hs := []uint32{0, 7, 8, 1<<32 - 1}
	for len(hs) < 16 {
		hs = append(hs, rng.Uint32())
	}
	for _, nbytes := range []int{hugeBytes, hugeBytes + 1000} {
		array, free := zeroArray(t, nbytes)
		const k = 6
		addHashes(array, k, hs)
		checkProbeBits(t, array, hs, k, fmt.Sprintf("%d bytes", nbytes))
		free()
	}
}
