package base

// The varints of util/coding.cc as upstream decodes them: the bits of the
// last byte past the 32nd or 64th are dropped rather than refused.

// DecodeVarint32 is util/coding.cc GetVarint32Ptr: the varint at the start
// of b and its length in bytes, 0 when b does not start with one.
func DecodeVarint32(b []byte) (v uint32, n int) {
	v64, n := decodeVarint(b, 5)
	return uint32(v64), n // the bits of a 5th byte past the 32nd dropped
}

// DecodeVarint64 is util/coding.cc GetVarint64Ptr: as DecodeVarint32, of
// at most 10 bytes.
func DecodeVarint64(b []byte) (v uint64, n int) { return decodeVarint(b, 10) }

// decodeVarint decodes a varint of at most limit bytes, dropping the bits
// of the last past the 64th.
func decodeVarint(b []byte, limit int) (v uint64, n int) {
	for shift := uint(0); n < limit && n < len(b); shift += 7 {
		c := b[n]
		n++
		if c < 0x80 {
			return v | uint64(c)<<shift, n
		}
		v |= uint64(c&0x7f) << shift
	}
	return 0, 0
}

// DecodeLengthPrefixed is util/coding.cc GetLengthPrefixedSlice; s aliases
// b, and n, the bytes used, is 0 when b does not hold them.
func DecodeLengthPrefixed(b []byte) (s []byte, n int) {
	l, m := DecodeVarint32(b)
	if m == 0 || uint64(l) > uint64(len(b)-m) {
		return nil, 0
	}
	end := m + int(l)
	return b[m:end:end], end
}
