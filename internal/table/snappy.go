package table

import (
	"encoding/binary"
	"unsafe"
)

// decodeSnappy decodes a raw snappy block into dst (grown as needed),
// written from snappy's format_description.txt and accepting exactly what
// C++ snappy's RawUncompress accepts as table/format.cc ReadBlock calls it:
// a length varint of at most 5 bytes below 2^32 (Go's snappy takes longer
// ones), whole tags, copy offsets from 1 (no S2 repeat-offset 0) to the
// bytes produced, nothing past the decoded length, and all input used. ok
// false is upstream's "corrupted compressed block contents"; a length over
// maxLen gives tooLong before anything is allocated. dst is grown first, so
// out may be reused even when ok is false.
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

// snappyTags' fast loop runs while this much input and output remain, so
// it can read a tag and a 16-byte literal and write a 64-byte copy in whole
// words unchecked.
const (
	snappySrcSlack = 17 // a tag and a 16-byte literal
	snappyDstSlack = 64 // the longest copy
)

// snappyPattern[o] serves a copy of offset o below 8: mask keeps the o
// bytes, mul repeats them through a word, and each next word is this one
// moved on by r = 8 mod o bytes: w>>right | w<<left (right = 8r bits, left
// = 8(o-r) bits).
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

// snappyTags decodes src, without its length header, into dst (exactly the
// decoded length) and reports whether C++ snappy accepts it; if not, dst
// holds garbage.
func snappyTags(dst, src []byte) bool {
	s, d := 0, 0 // read and write positions

	// The fast loop: the slacks keep its unchecked ld64 and st64 in bounds.
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
			st64(dp, d, ld64(dp, from))
			st64(dp, d+8, ld64(dp, from+8))
			for i := 16; i < int(length); i += 8 {
				st64(dp, d+i, ld64(dp, from+i))
			}
		} else {
			// d+8 <= len(dst): the read is in dst.
			p := &snappyPattern[offset&7]
			w := ld64(dp, from) & p.mask * p.mul
			for i := 0; i < int(length); i += 8 {
				st64(dp, d+i, w)
				w = w>>p.right | w<<p.left
			}
		}
		d += int(length)
	}

	// The slow loop, near the end: every bound checked.
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

// ld64 reads the LE word at p+i, known to lie in p's slice.
func ld64(p unsafe.Pointer, i int) uint64 {
	return binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(p, i))[:])
}

// st64 writes the LE word v at p+i, known to lie in p's slice.
func st64(p unsafe.Pointer, i int, v uint64) {
	binary.LittleEndian.PutUint64((*[8]byte)(unsafe.Add(p, i))[:], v)
}
