package crc

// Finding one flipped bit that explains a checksum mismatch: CRC-32C is
// linear over GF(2), so flipping bit j changes the CRC by a constant that
// depends only on the bits after j, one step per bit walking back: O(len)
// tests every flip. A single flip points at memory or storage, not the
// writer (cockroachdb/pebble#1931 asked for this).

// castagnoliReflected is CRC-32C's polynomial as hash/crc32 uses it.
const castagnoliReflected = 0x82f63b78

// Unmask inverts Mask (util/crc32c.h Unmask).
func Unmask(masked uint32) uint32 {
	rot := masked - maskDelta
	return rot>>17 | rot<<15
}

// BitFlip is one flipped bit that explains a checksum mismatch.
type BitFlip struct {
	// InChecksum: the bit is in the stored checksum; the data is intact.
	InChecksum bool
	// Byte indexes the data (or the stored checksum's 4 LE bytes), Bit 0-7
	// from the least significant.
	Byte, Bit int
}

// FindBitFlip returns the bit (of data or of stored) whose flip makes the
// masked checksum stored match data; ok is false when it matches already
// or no one bit explains it. Where several would (not under 2^31 bits),
// the first in data is returned.
func FindBitFlip(data []byte, stored uint32) (f BitFlip, ok bool) {
	computed := Value(data)
	want := Unmask(stored)
	if computed == want {
		return BitFlip{}, false
	}
	// A bit of the stored checksum.
	for i := 0; i < 32; i++ {
		if Unmask(stored^1<<i) == computed {
			return BitFlip{InChecksum: true, Byte: i / 8, Bit: i % 8}, true
		}
	}
	// A bit of data: flipping bit j changes the CRC by delta(j), the
	// one-bit step applied once for each bit from j to the end; find j
	// with delta(j) == computed ^ want. A byte at a time: with e the
	// delta before byte k's bits, bit b of byte k has delta
	// step^(8-b)(e), which is the syndrome when e is
	// stepBack^(8-b)(syndrome).
	syndrome := computed ^ want
	var targets [8]uint32 // by bit b
	t := syndrome
	for b := 7; b >= 0; b-- {
		t = stepBack(t)
		targets[b] = t
	}
	e := uint32(1)
	for k := len(data) - 1; k >= 0; k-- {
		for b := 7; b >= 0; b-- {
			if e == targets[b] {
				return BitFlip{Byte: k, Bit: b}, true
			}
		}
		e = e>>8 ^ step8[e&0xff]
	}
	return BitFlip{}, false
}

// step8[x] is step applied 8 times to x: eight steps of any s are
// s>>8 ^ step8[s&0xff], the steps being linear and the bits above the
// low 8 only shifted.
var step8 = func() (t [256]uint32) {
	for x := range t {
		s := uint32(x)
		for i := 0; i < 8; i++ {
			s = step(s)
		}
		t[x] = s
	}
	return t
}()

// stepBack inverts step: the polynomial's top bit tells if step added it.
func stepBack(s uint32) uint32 {
	if s&0x80000000 != 0 {
		return (s^castagnoliReflected)<<1 | 1
	}
	return s << 1
}

// step is one reflected CRC register update with a zero input bit.
func step(s uint32) uint32 {
	if s&1 != 0 {
		return s>>1 ^ castagnoliReflected
	}
	return s >> 1
}
