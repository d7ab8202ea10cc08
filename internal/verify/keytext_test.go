package verify_test

import (
	"bytes"
	"fmt"
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
