package verify_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/ldbcompat/ldbcompat/internal/verify"
)

// TestKeyText: a key shown in a line is at most 64 bytes of hex and its
// length, whatever its size (a 4 MiB key would make an 8 MB line).
func TestKeyText(t *testing.T) {
	short := []byte("key")
	if got := verify.KeyText(short); got != "6b6579" {
		t.Errorf("KeyText(%q) = %q", short, got)
	}
	// 64 bytes are shown whole; one more is cut.
	k64 := bytes.Repeat([]byte{0xcd}, 64)
	if got, want := verify.KeyText(k64), fmt.Sprintf("%x", k64); got != want {
		t.Errorf("KeyText of a 64-byte key = %q, want %q", got, want)
	}
	k65 := bytes.Repeat([]byte{0xcd}, 65)
	if got, want := verify.KeyText(k65), fmt.Sprintf("%x... (65 bytes)", k65[:64]); got != want {
		t.Errorf("KeyText of a 65-byte key = %q, want %q", got, want)
	}
	long := bytes.Repeat([]byte{0xab}, 4<<20)
	want := fmt.Sprintf("%x... (%d bytes)", long[:64], len(long))
	if got := verify.KeyText(long); got != want {
		t.Errorf("KeyText of a 4 MiB key = %d bytes, want %q", len(got), want)
	}
}

// TestEscapeKey: a log record's key is printed as leveldbutil's
// EscapeString prints it (printable ASCII, space to tilde, as it is; any
// other byte as \xNN), a backslash too as \x5c so that no escape can be
// forged, and only its first 64 bytes, followed by how many are left.
func TestEscapeKey(t *testing.T) {
	for _, tc := range []struct {
		k    []byte
		want string
	}{
		{nil, ""},
		{[]byte(" az~"), " az~"},
		{[]byte{0x1f, 0x7f, '\\', 0x80, 0xff, 0}, `\x1f\x7f\x5c\x80\xff\x00`},
		{bytes.Repeat([]byte{'k'}, 64), strings.Repeat("k", 64)},
		{bytes.Repeat([]byte{'k'}, 70), strings.Repeat("k", 64) + "... (6 more bytes)"},
	} {
		if got := verify.EscapeKey(tc.k); got != tc.want {
			t.Errorf("EscapeKey(%q) = %q, want %q", tc.k, got, tc.want)
		}
	}
}
