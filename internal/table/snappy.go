package table

import (
	"encoding/binary"
	"unsafe"
)

// The snappy decoder, written here from the format (format_description.txt
// in the snappy sources) rather than taken from a library: one pass over
// the tags both checks the stream as C++ snappy's decompressor does
// (snappy.cc SnappyDecompressor::DecompressAllTags into a SnappyArrayWriter)
// and decodes it. A block is a varint (the decoded length), then a sequence
// of elements, each starting with a tag byte whose low two bits give its
// kind:
//
//	tag&3 == 0  literal: length-1 in tag>>2 when below 60, else in the
//	            1 to 4 little-endian bytes after the tag (tag>>2 - 59 of
//	            them); the literal's bytes follow
//	tag&3 == 1  copy: length-4 in tag>>2&7 (4..11), offset in 11 bits:
//	            tag>>5 high, the next byte low
//	tag&3 == 2  copy: length-1 in tag>>2 (1..64), offset in the next 2
//	            bytes (little-endian)
//	tag&3 == 3  copy: length-1 in tag>>2 (1..64), offset in the next 4
//	            bytes (little-endian)
//
// A copy repeats length bytes starting offset bytes back in the output; it
// may overlap what it writes (offset < length repeats a pattern).

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
//     offset 0 that the S2 extension of the format reads as "repeat the
//     last offset");
//   - no literal or copy runs past the decoded length, the output is
//     exactly the decoded length, and the input is used up.
//
// ok is false for any other input, which upstream reports as "Corruption:
// corrupted compressed block contents". maxLen bounds the decoded length the
// caller will allocate; a longer one gives ok false with tooLong set, before
// anything is allocated. Otherwise dst is grown to the decoded length
// before the stream is checked, so that out, even when ok is false, may be
// a new buffer for the caller to reuse; when ok, out is the decoded block,
// in dst's memory when it had room.
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
	if uint64(cap(dst)) < n {
		dst = make([]byte, n)
	}
	dst = dst[:n]
	return dst, snappyTags(dst, src[s:]), false
}

// The fast loop of snappyTags runs while at least snappySrcSlack bytes of
// input and snappyDstSlack bytes of output remain, so that it can read a
// tag with the bytes after it, or a literal of up to 16 bytes, and write
// any copy (at most 64 bytes) in whole 8-byte words, without looking at
// where the input and output end.
const (
	snappySrcSlack = 17 // a tag and a 16-byte literal
	snappyDstSlack = 64 // the longest copy
)

// snappyPattern[o] serves a copy whose offset o is below 8, which repeats
// the o bytes before it: mask keeps those bytes of the word read there, and
// mul repeats them through the word (its set bytes are o apart, so that
// nothing carries) to make the first word written. Each next word, 8 bytes
// on, is the pattern moved on by r = 8 mod o bytes: byte i of the next word
// is byte i+r of this one, or, for the last r bytes, byte i+r-o, which is
// w>>right | w<<left with right = 8r bits and left = 8(o-r) bits (the two
// agree where they overlap, o bytes being one period).
var snappyPattern = [8]struct {
	mul         uint64
	mask        uint64
	right, left uint8
}{
	1: {0x0101010101010101, 0xff, 0, 8},
	2: {0x0001000100010001, 0xffff, 0, 16},
	3: {0x0001000001000001, 0xffffff, 16, 8},
	4: {0x0000000100000001, 0xffffffff, 0, 32},
	5: {0x0000010000000001, 0xffffffffff, 24, 16},
	6: {0x0001000000000001, 0xffffffffffff, 16, 32},
	7: {0x0100000000000001, 0xffffffffffffff, 8, 48},
}

// snappyTags decodes the elements of a snappy stream, src without its
// length header, into dst, which is exactly the decoded length long, and
// reports whether C++ snappy accepts them: the rules listed at
// decodeSnappy. Where it does not, dst holds garbage.
func snappyTags(dst, src []byte) bool {
	s, d := 0, 0 // read and write positions

	// The fast loop: while it runs, s+snappySrcSlack <= len(src) and
	// d+snappyDstSlack <= len(dst) at the top of each pass, which is what
	// makes the unchecked word reads and writes below lie inside src and
	// dst (see ld64 and st64).
	sp, dp := unsafe.Pointer(unsafe.SliceData(src)), unsafe.Pointer(unsafe.SliceData(dst))
	for s < len(src)-(snappySrcSlack-1) && d < len(dst)-(snappyDstSlack-1) {
		x := ld64(sp, s) // the tag and the 7 bytes after it
		tag := uint(x & 0xff)
		var length, offset uint
		switch tag & 3 {
		case 0:
			length = tag>>2 + 1
			if length <= 16 {
				// Within the slack: s+1+16 <= len(src), d+16 <= len(dst).
				st64(dp, d, ld64(sp, s+1))
				st64(dp, d+8, ld64(sp, s+9))
				s += 1 + int(length)
				d += int(length)
				continue
			}
			s++
			if length <= 60 && len(src)-s >= 64 {
				// 17..60 bytes, copied 16 at a time: the reads stay
				// in src, and the writes in the slack of dst.
				for i := 0; i < int(length); i += 16 {
					st64(dp, d+i, ld64(sp, s+i))
					st64(dp, d+i+8, ld64(sp, s+i+8))
				}
				s += int(length)
				d += int(length)
				continue
			}
			long := uint64(length)
			if length > 60 {
				extra := length - 60 // 1..4 bytes, inside the slack
				long = x>>8&(1<<(8*extra)-1) + 1
				s += int(extra)
			}
			if long > uint64(len(src)-s) || long > uint64(len(dst)-d) {
				return false
			}
			s += copy(dst[d:], src[s:s+int(long)])
			d += int(long)
			continue
		case 1:
			length = tag>>2&7 + 4
			offset = tag&0xe0<<3 | uint(x>>8&0xff)
			s += 2
		case 2:
			length = tag>>2 + 1
			offset = uint(x >> 8 & 0xffff)
			s += 3
		default:
			length = tag>>2 + 1
			offset = uint(x >> 8 & 0xffffffff)
			s += 5
		}
		// A copy: length <= 64 <= len(dst)-d, within the slack.
		if offset-1 >= uint(d) { // offset 0 wraps
			return false
		}
		from := d - int(offset)
		if offset >= 8 {
			// Each word read lies before the one written, which may
			// overlap the word written before it.
			st64(dp, d, ld64(dp, from))
			st64(dp, d+8, ld64(dp, from+8))
			for i := 16; i < int(length); i += 8 {
				st64(dp, d+i, ld64(dp, from+i))
			}
		} else {
			// The offset's bytes repeated through a word, written 8
			// bytes at a time, each word the last one moved on by 8
			// bytes of the pattern. d+8 <= len(dst): the read is in dst.
			p := &snappyPattern[offset&7]
			w := ld64(dp, from) & p.mask * p.mul
			for i := 0; i < int(length); i += 8 {
				st64(dp, d+i, w)
				w = w>>p.right | w<<p.left
			}
		}
		d += int(length)
	}

	// The slow loop, near the end of the input or the output: every
	// bound checked.
	for s < len(src) {
		tag := uint(src[s])
		var length, offset uint64
		switch tag & 3 {
		case 0:
			length = uint64(tag>>2) + 1
			s++
			if length > 60 {
				extra := int(length - 60)
				if len(src)-s < extra {
					return false
				}
				length = 0
				for i := extra - 1; i >= 0; i-- {
					length = length<<8 | uint64(src[s+i])
				}
				length++
				s += extra
			}
			if length > uint64(len(src)-s) || length > uint64(len(dst)-d) {
				return false
			}
			d += copy(dst[d:], src[s:s+int(length)])
			s += int(length)
			continue
		case 1:
			if len(src)-s < 2 {
				return false
			}
			length = uint64(tag>>2&7) + 4
			offset = uint64(tag&0xe0)<<3 | uint64(src[s+1])
			s += 2
		case 2:
			if len(src)-s < 3 {
				return false
			}
			length = uint64(tag>>2) + 1
			offset = uint64(binary.LittleEndian.Uint16(src[s+1:]))
			s += 3
		default:
			if len(src)-s < 5 {
				return false
			}
			length = uint64(tag>>2) + 1
			offset = uint64(binary.LittleEndian.Uint32(src[s+1:]))
			s += 5
		}
		if offset-1 >= uint64(d) || length > uint64(len(dst)-d) {
			return false
		}
		end := d + int(length)
		for from := d - int(offset); d < end; d++ {
			dst[d] = dst[from]
			from++
		}
	}
	return d == len(dst)
}

// ld64 reads the little-endian word at p+i, which the caller knows to lie
// inside the slice p points into.
func ld64(p unsafe.Pointer, i int) uint64 {
	return binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(p, i))[:])
}

// st64 writes the little-endian word v at p+i, which the caller knows to
// lie inside the slice p points into.
func st64(p unsafe.Pointer, i int, v uint64) {
	binary.LittleEndian.PutUint64((*[8]byte)(unsafe.Add(p, i))[:], v)
}
