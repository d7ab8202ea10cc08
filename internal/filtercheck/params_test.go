package filtercheck_test

import (
	"bytes"
	"testing"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/internal/filtercheck"
)

// TestInferParams builds filter blocks at many bits/key values and key
// counts and requires the inferred range to contain the value used, to
// give its k, and to rebuild the same block.
func TestInferParams(t *testing.T) {
	for b := 0; b <= 60; b++ {
		for _, perBlock := range []int{1, 3, 7, 50, 400} {
			blocks := synthBlocks(4*perBlock, perBlock, 2500)
			fb := filtercheck.Build(blocks, bloom.NewPolicy(b))
			l := parseLayout(t, fb)
			p := filtercheck.InferParams(fb, l, filtercheck.KeysPerFilter(blocks, l.BaseLg, len(l.Filters)))
			wantK := int(bloom.NewPolicy(b).CreateFilter(nil, nil)[8])
			if !p.Consistent() || p.MinBitsPerKey > b || p.MaxBitsPerKey < b || p.K != wantK || p.BitsPerKey != p.MinBitsPerKey {
				t.Errorf("b %d, %d keys per filter: inferred %+v (%v), want a range holding %d with k %d", b, perBlock, p, p, b, wantK)
				continue
			}
			for _, bb := range []int{p.MinBitsPerKey, p.MaxBitsPerKey} {
				if !bytes.Equal(filtercheck.Build(blocks, bloom.NewPolicy(bb)), fb) {
					t.Errorf("b %d, %d keys per filter: inferred %v, but bits/key %d builds another block", b, perBlock, p, bb)
				}
			}
		}
	}
	// Small filters are all 64 bits: bits/key is then ambiguous.
	blocks := synthBlocks(10, 10, 100)
	fb := filtercheck.Build(blocks, bloom.NewPolicy(1))
	l, _ := filtercheck.ParseLayout(fb)
	p := filtercheck.InferParams(fb, l, filtercheck.KeysPerFilter(blocks, l.BaseLg, len(l.Filters)))
	if got := p.String(); got != "bits/key 0..2, k 1" {
		t.Errorf("10 keys at 1 bit/key: %q", got)
	}
	// A filter whose k byte was damaged is not explained.
	fb[len(fb)-5-4-1] = 9
	p = filtercheck.InferParams(fb, l, filtercheck.KeysPerFilter(blocks, l.BaseLg, len(l.Filters)))
	if p.Consistent() || p.String() != "bits/key 14, k 9 (explains 0 of 1 filters)" {
		t.Errorf("damaged k: %v", p)
	}
	// No keys at all.
	if p := filtercheck.InferParams([]byte{0, 0, 0, 0, 11}, &filtercheck.Layout{BaseLg: 11}, nil); p.Known || p.String() != "bits/key unknown (no keys)" {
		t.Errorf("no keys: %+v", p)
	}
}

// hand lays out filters of the given lengths and k bytes as a filter
// block, and returns it with its layout.
func hand(t *testing.T, filters ...[2]int) ([]byte, *filtercheck.Layout) {
	t.Helper()
	var fs [][]byte
	for _, f := range filters {
		b := make([]byte, f[0])
		if f[0] > 0 {
			b[f[0]-1] = byte(f[1])
		}
		fs = append(fs, b)
	}
	contents := filterBlock(fs...)
	l := parseLayout(t, contents)
	return contents, l
}

// TestInferParamsEdges: util/bloom.cc gives 10 keys a 14-byte filter with
// k 6 only at 10 bits/key (104 bits, 13 bytes and the k byte), a 15-byte
// one with k 7 only at 11, a 16-byte one with k 8 only at 12. Filters
// explained by neighbouring or distant values do not add up; of values
// that explain as many filters, the smallest is taken.
func TestInferParamsEdges(t *testing.T) {
	for _, tc := range []struct {
		name    string
		filters [][2]int
		keys    []int
		want    string
	}{
		{"neighbours", [][2]int{{14, 6}, {15, 7}}, []int{10, 10}, "bits/key 10, k 6 (explains 1 of 2 filters)"},
		{"neighbours, the other way", [][2]int{{15, 7}, {14, 6}}, []int{10, 10}, "bits/key 10, k 6 (explains 1 of 2 filters)"},
		{"apart", [][2]int{{16, 8}, {14, 6}}, []int{10, 10}, "bits/key 10, k 6 (explains 1 of 2 filters)"},
		// Fewer key counts than filters: the rest hold no keys.
		{"keys for the first only", [][2]int{{14, 6}, {15, 7}}, []int{10}, "bits/key 10, k 6"},
		// No value explains a filter: the first filter with keys and
		// bytes gives its k, and the least bits/key giving it.
		{"unexplained, empty first", [][2]int{{0, 0}, {4, 7}}, []int{5, 5}, "bits/key 11, k 7 (explains 0 of 2 filters)"},
		{"unexplained, no keys first", [][2]int{{9, 3}, {4, 7}}, []int{0, 5}, "bits/key 11, k 7 (explains 0 of 1 filters)"},
		{"unexplained, keys for the first only", [][2]int{{0, 0}, {4, 7}}, []int{5}, "bits/key 0, k 1 (explains 0 of 1 filters)"},
	} {
		contents, l := hand(t, tc.filters...)
		if got := filtercheck.InferParams(contents, l, tc.keys).String(); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
