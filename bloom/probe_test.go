package bloom

import (
	"math/rand"
	"testing"
)

// TestReducer checks the reducer, which replaces upstream's h % bits,
// against the division, and that its byte index stays inside the array
// (KeyMayMatch and CreateFilter read and write without bounds checks on
// that ground): every size up to 4 KiB and sizes up to the reducer's limit,
// 2^32 bits, with hashes at the edges and at random.
func TestReducer(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	hashes := []uint32{0, 1, 7, 8, 1<<31 - 1, 1 << 31, 1<<32 - 9, 1<<32 - 1}
	for i := 0; i < 64; i++ {
		hashes = append(hashes, rng.Uint32())
	}
	// hugeBytes itself too: the reducer is exact there, so that the two
	// paths agree at the switch between them (nbytes < hugeBytes in
	// KeyMayMatch, len(array) >= hugeBytes in addHashes), whichever takes
	// that size.
	sizes := []int{hugeBytes, hugeBytes - 1, hugeBytes - 2, 1 << 28, 1<<28 - 1, 1<<28 + 1, 1 << 27, 1<<27 + 1, 12500, 1 << 20}
	for n := 1; n <= 4096; n++ {
		sizes = append(sizes, n)
	}
	for i := 0; i < 2000; i++ {
		sizes = append(sizes, 1+rng.Intn(hugeBytes-1))
	}
	for _, n := range sizes {
		r := newReducer(n)
		nbits := uint64(n) * 8
		hs := hashes
		// Hashes just below and at multiples of bits, where the
		// remainder is largest and smallest.
		for _, q := range []uint64{1, 2, (1 << 32) / nbits} {
			if m := q * nbits; m < 1<<32 {
				hs = append(hs, uint32(m), uint32(m-1))
			}
		}
		for _, h := range hs {
			i, bit := r.reduce(h)
			want := uint64(h) % nbits
			if i >= uint64(n) || i != want/8 || uint64(bit) != want%8 {
				t.Fatalf("%d bytes, h %#x: reduce = byte %d bit %d, want byte %d bit %d", n, h, i, bit, want/8, want%8)
			}
		}
	}
}
