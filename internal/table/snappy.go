package table

import (
	"encoding/binary"

	"github.com/klauspost/compress/s2"
)

// decodeSnappy decodes a snappy block (the raw format, not the framed one)
// into dst, which it grows as needed, accepting exactly what C++ snappy's
// RawUncompress (snappy.cc, as table/format.cc ReadBlock calls it through
// port::Snappy_GetUncompressedLength and port::Snappy_Uncompress) accepts:
//
//   - the decoded length is a varint of at most 5 bytes whose value fits 32
//     bits (SnappyDecompressor::ReadUncompressedLength; Go's snappy package
//     also takes longer encodings);
//   - every tag is whole, literals lie inside the input, and a copy's offset
//     is at least 1 and at most the bytes produced so far (C++ refuses the
//     offset 0 that the S2 decoder behind klauspost/compress/snappy reads as
//     "repeat the last offset");
//   - the output is exactly the decoded length, and the input is used up.
//
// ok is false for any other input, which upstream reports as "Corruption:
// corrupted compressed block contents". maxLen bounds the decoded length the
// caller will allocate; a longer one gives ok false with tooLong set.
func decodeSnappy(dst, src []byte, maxLen uint64) (out []byte, ok, tooLong bool) {
	var n uint64
	s := 0
	for shift := uint(0); ; shift += 7 {
		if shift >= 32 || s >= len(src) {
			return dst, false, false
		}
		c := src[s]
		s++
		v := uint64(c & 0x7f)
		if shift == 28 && v > 0x0f { // LeftShiftOverflows
			return dst, false, false
		}
		n |= v << shift
		if c < 0x80 {
			break
		}
	}
	if n > maxLen {
		return dst, false, true
	}
	if !validSnappy(src[s:], n) {
		return dst, false, false
	}
	if uint64(cap(dst)) < n {
		dst = make([]byte, n)
	}
	// A stream validSnappy accepts is plain snappy, which the S2 decoder
	// (a superset, in assembly) decodes as C++ does.
	out, err := s2.Decode(dst[:cap(dst)], src)
	if err != nil || uint64(len(out)) != n {
		return dst, false, false
	}
	return out, true, false
}

// validSnappy walks the tags of a snappy stream (after its length header)
// without decoding it, and reports whether C++ snappy's decompressor
// accepts it with n bytes of output: the rules listed at decodeSnappy.
func validSnappy(src []byte, n uint64) bool {
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
