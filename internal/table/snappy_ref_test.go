package table

import (
	"encoding/binary"
	"math"

	"github.com/klauspost/compress/s2"
)

// The decoder decodeSnappy replaced, kept as the reference that
// FuzzSnappyDecode and BenchmarkSnappyDecode compare it with: validSnappy
// checks the stream as C++ snappy does, then the S2 decoder of
// klauspost/compress (assembly) decodes it.

// refDecodeSnappy is decodeSnappy as it was: the same results for every
// input.
func refDecodeSnappy(dst, src []byte, maxLen uint64) (out []byte, ok, tooLong bool) {
	// The length header as a varint of at most 5 bytes below 2^32, read
	// here by encoding/binary rather than decodeSnappy's loop.
	n, s := binary.Uvarint(src)
	if s <= 0 || s > 5 || n > math.MaxUint32 {
		return dst, false, false
	}
	if n > maxLen {
		return dst, false, true
	}
	if !refValidSnappy(src[s:], n) {
		return dst, false, false
	}
	if uint64(cap(dst)) < n {
		dst = make([]byte, n)
	}
	// A stream refValidSnappy accepts is plain snappy, which the S2
	// decoder (a superset) decodes as C++ does.
	out, err := s2.Decode(dst[:cap(dst)], src)
	if err != nil || uint64(len(out)) != n {
		return dst, false, false
	}
	return out, true, false
}

// refValidSnappy walks the tags of a snappy stream (after its length
// header) without decoding it, and reports whether C++ snappy's
// decompressor accepts it with n bytes of output.
func refValidSnappy(src []byte, n uint64) bool {
	d := uint64(0) // bytes produced so far
	for len(src) > 0 {
		tag := src[0]
		var length, offset uint64
		switch tag & 3 {
		case 0: // literal
			length = uint64(tag>>2) + 1
			src = src[1:]
			if length > 60 {
				extra := int(length - 60)
				if len(src) < extra {
					return false
				}
				length = 0
				for i := extra - 1; i >= 0; i-- {
					length = length<<8 | uint64(src[i])
				}
				length++
				src = src[extra:]
			}
			if length > uint64(len(src)) || length > n-d {
				return false
			}
			d += length
			src = src[length:]
			continue
		case 1: // copy, 1-byte offset
			if len(src) < 2 {
				return false
			}
			length = uint64(tag>>2&7) + 4
			offset = uint64(tag&0xe0)<<3 | uint64(src[1])
			src = src[2:]
		case 2: // copy, 2-byte offset
			if len(src) < 3 {
				return false
			}
			length = uint64(tag>>2) + 1
			offset = uint64(src[1]) | uint64(src[2])<<8
			src = src[3:]
		default: // copy, 4-byte offset
			if len(src) < 5 {
				return false
			}
			length = uint64(tag>>2) + 1
			offset = uint64(binary.LittleEndian.Uint32(src[1:]))
			src = src[5:]
		}
		if offset-1 >= d || length > n-d { // offset 0 wraps
			return false
		}
		d += length
	}
	return d == n
}
