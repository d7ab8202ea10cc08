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
			l, err := filtercheck.ParseLayout(fb)
			if err != nil {
				t.Fatal(err)
			}
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
