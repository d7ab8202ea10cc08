//go:build leveldb

package logfile_test

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/ldbcompat/ldbcompat/cgo/upstream"
	"github.com/ldbcompat/ldbcompat/internal/cases"
	"github.com/ldbcompat/ldbcompat/internal/logfile"
)

// diffWrite requires WriteLog to write upstream's log::Writer's bytes.
func diffWrite(t testing.TB, what string, recs [][]byte) {
	t.Helper()
	want := upstream.WriteLog(recs)
	got := logfile.WriteLog(recs)
	if !bytes.Equal(got, want) {
		i := 0
		for i < len(got) && i < len(want) && got[i] == want[i] {
			i++
		}
		t.Fatalf("%s: %d bytes, upstream %d; first difference at byte %d", what, len(got), len(want), i)
	}
}

// TestUpstreamWriter compares the writer with upstream's on the layouts
// that reach each boundary of a block, every size around them, the
// kit's log cases and random sizes.
func TestUpstreamWriter(t *testing.T) {
	for name, recs := range layouts() {
		diffWrite(t, name, recs)
	}
	const B, H = logfile.BlockSize, logfile.HeaderSize
	for left := 0; left <= 2*H+1; left++ {
		for _, next := range []int{0, 1, left, B - H, B, 3 * B} {
			diffWrite(t, "block end", records(B-H-left, next, 5))
		}
	}
	for _, c := range append(cases.LogCases(), cases.LiveLogCases()...) {
		diffWrite(t, c.Name, c.Records)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 50; i++ {
		sizes := make([]int, 1+r.IntN(40))
		for j := range sizes {
			sizes[j] = r.IntN(1 << r.IntN(18))
		}
		diffWrite(t, "random sizes", records(sizes...))
	}
}

// FuzzUpstreamWriter compares the writer with upstream's on records cut
// from the fuzzer's bytes, each size a byte pair scaled up to 128 KiB.
func FuzzUpstreamWriter(f *testing.F) {
	f.Add([]byte{0, 0, 255, 255, 1, 2})
	f.Add([]byte{0xff, 0xf0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		var sizes []int
		for i := 0; i+1 < len(data) && len(sizes) < 64; i += 2 {
			sizes = append(sizes, (int(data[i])<<8|int(data[i+1]))*2+int(data[i]&1))
		}
		diffWrite(t, "fuzzed sizes", records(sizes...))
	})
}
