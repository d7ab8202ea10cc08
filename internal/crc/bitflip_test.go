package crc

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// TestFindBitFlip flips every bit of random messages, and of their stored
// checksums, and asks FindBitFlip which: the answer must be that bit, and
// flipping it back must make the checksum match (checked by Value itself,
// from first principles).
func TestFindBitFlip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 2, 7, 33, 300} {
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(r.Uint32())
		}
		stored := Mask(Value(data))
		if f, ok := FindBitFlip(data, stored); ok {
			t.Fatalf("n=%d: intact data: FindBitFlip = %+v, want none", n, f)
		}
		for i := 0; i < 8*n; i++ {
			data[i/8] ^= 1 << (i % 8)
			f, ok := FindBitFlip(data, stored)
			data[i/8] ^= 1 << (i % 8)
			if want := (BitFlip{Byte: i / 8, Bit: i % 8}); !ok || f != want {
				t.Fatalf("n=%d, bit %d of the data flipped: FindBitFlip = %+v, %v; want %+v", n, i, f, ok, want)
			}
		}
		for i := 0; i < 32; i++ {
			f, ok := FindBitFlip(data, stored^1<<i)
			if want := (BitFlip{InChecksum: true, Byte: i / 8, Bit: i % 8}); !ok || f != want {
				t.Fatalf("n=%d, bit %d of the checksum flipped: FindBitFlip = %+v, %v; want %+v", n, i, f, ok, want)
			}
			var le [4]byte
			binary.LittleEndian.PutUint32(le[:], stored^1<<i)
			le[f.Byte] ^= 1 << f.Bit
			if Unmask(binary.LittleEndian.Uint32(le[:])) != Value(data) {
				t.Fatalf("n=%d: flipping byte %d bit %d of the stored checksum back does not restore it", n, f.Byte, f.Bit)
			}
		}
		// Two flipped bits: CRC-32C's Hamming distance is at least 4 at
		// these lengths, so no single bit explains them.
		if n >= 2 {
			data[0] ^= 1
			data[n-1] ^= 0x80
			if f, ok := FindBitFlip(data, stored); ok {
				t.Errorf("n=%d, two bits flipped: FindBitFlip = %+v, want none", n, f)
			}
			data[0] ^= 1
			data[n-1] ^= 0x80
		}
	}
}

// TestUnmask checks that Unmask inverts Mask.
func TestUnmask(t *testing.T) {
	for _, c := range []uint32{0, 1, 0xffffffff, 0x12345678, maskDelta} {
		if got := Unmask(Mask(c)); got != c {
			t.Errorf("Unmask(Mask(%#x)) = %#x", c, got)
		}
	}
}
