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
	long := bytes.Repeat([]byte{0xab}, 4<<20)
	want := fmt.Sprintf("%x... (%d bytes)", long[:64], len(long))
	if got := verify.KeyText(long); got != want {
		t.Errorf("KeyText of a 4 MiB key = %d bytes, want %q", len(got), want)
	}
}
