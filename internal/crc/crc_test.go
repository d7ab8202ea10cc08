package crc

import (
	"bytes"
	"testing"
)

// TestValueUpstream is util/crc32c_test.cc's StandardResults: RFC 3720's
// test vectors (section B.4).
func TestValueUpstream(t *testing.T) {
	asc, desc := make([]byte, 32), make([]byte, 32)
	for i := range asc {
		asc[i], desc[i] = byte(i), byte(31-i)
	}
	iscsi := []byte{
		0x01, 0xc0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00,
		0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x18, 0x28, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	}
	for _, tc := range []struct {
		name string
		data []byte
		want uint32
	}{
		{"32 zeros", make([]byte, 32), 0x8a9136aa},
		{"32 0xff", bytes.Repeat([]byte{0xff}, 32), 0x62a8ab43},
		{"0..31", asc, 0x46dd794e},
		{"31..0", desc, 0x113fdb5c},
		{"iSCSI read", iscsi, 0xd9963a56},
	} {
		if got := Value(tc.data); got != tc.want {
			t.Errorf("Value(%s) = %#08x, want %#08x", tc.name, got, tc.want)
		}
	}
	if Value([]byte("a")) == Value([]byte("foo")) {
		t.Error(`Value("a") == Value("foo")`)
	}
}

// TestExtend is util/crc32c_test.cc's Extend.
func TestExtend(t *testing.T) {
	if got, want := Extend(Value([]byte("hello ")), []byte("world")), Value([]byte("hello world")); got != want {
		t.Errorf("Extend = %#08x, want %#08x", got, want)
	}
}

// TestMask checks Mask against its definition in util/crc32c.h: rotate
// right by 15 bits, add 0xa282ead8 modulo 2^32.
func TestMask(t *testing.T) {
	for _, tc := range []struct{ crc, want uint32 }{
		{0, 0xa282ead8},
		{1 << 15, 1 + 0xa282ead8},
		{1, 1<<17 + 0xa282ead8},
		{0xffffffff, 0xa282ead7},         // 0xffffffff + 0xa282ead8, wrapped
		{0x12345678, 0x4f730f40},         // 0xacf02468 (rotated right by 15) + 0xa282ead8, wrapped
		{0x80000000, 1<<16 + 0xa282ead8}, // the top bit moves to bit 16
	} {
		if got := Mask(tc.crc); got != tc.want {
			t.Errorf("Mask(%#08x) = %#08x, want %#08x", tc.crc, got, tc.want)
		}
	}
}
