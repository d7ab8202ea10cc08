package filtercheck

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/internal/table"
)

// randomBlocks returns n data blocks at increasing offsets, some empty,
// some sharing a 2 KiB range, some skipping ranges, with random keys.
func randomBlocks(rng *rand.Rand, n int) []BlockKeys {
	var bs []BlockKeys
	off := uint64(0)
	for i := 0; i < n; i++ {
		size := uint64(rng.IntN(3000))
		if rng.IntN(8) == 0 {
			size += uint64(rng.IntN(20000))
		}
		b := BlockKeys{Handle: table.BlockHandle{Offset: off, Size: size}}
		for j := rng.IntN(40); j > 0; j-- {
			k := make([]byte, rng.IntN(12))
			for x := range k {
				k[x] = byte(rng.Uint32())
			}
			b.Keys = append(b.Keys, k)
		}
		if rng.IntN(6) == 0 {
			b.Keys = nil
		}
		bs = append(bs, b)
		off = b.Handle.End()
	}
	return bs
}

// TestRebuildPrefix checks the bounded rebuild against the ordinary one:
// RebuiltSize is the length Build returns, and rebuildPrefix returns
// Build's first n bytes, for every policy Check rebuilds with.
func TestRebuildPrefix(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	type pol struct {
		name string
		p    func(int) bloom.FilterPolicy
	}
	pols := []pol{
		{"current", func(b int) bloom.FilterPolicy { return bloom.NewPolicy(b) }},
		{"legacy unsigned", func(b int) bloom.FilterPolicy { return bloom.NewLegacyPolicy(b, false) }},
		{"legacy signed", func(b int) bloom.FilterPolicy { return bloom.NewLegacyPolicy(b, true) }},
	}
	for iter := 0; iter < 300; iter++ {
		blocks := randomBlocks(rng, rng.IntN(12))
		bpk := rng.IntN(50)
		if iter%10 == 0 {
			bpk = rng.IntN(3000)
		}
		pl := pols[iter%len(pols)]
		full := Build(blocks, pl.p(bpk))
		name := fmt.Sprintf("iter %d, %s, bits/key %d, %d blocks", iter, pl.name, bpk, len(blocks))
		if got := RebuiltSize(blocks, bpk); got != uint64(len(full)) {
			t.Fatalf("%s: RebuiltSize %d, Build wrote %d bytes", name, got, len(full))
		}
		for _, n := range []int{0, 1, len(full) / 3, len(full) / 2, len(full) - 6, len(full) - 5, len(full) - 1, rng.IntN(len(full))} {
			if n < 0 {
				continue
			}
			if got := rebuildPrefix(blocks, pl.p(bpk), bpk, n); !bytes.Equal(got, full[:n]) {
				t.Fatalf("%s: prefix of %d bytes differs from Build's\n got % x\nwant % x", name, n, got, full[:n])
			}
		}
		// A stored block that is a prefix of the rebuilt one, or differs
		// from it in one byte: the bounded comparison finds what Compare
		// finds.
		stored := bytes.Clone(full[:rng.IntN(len(full))])
		if len(stored) > 0 && rng.IntN(2) == 0 {
			stored[rng.IntN(len(stored))] ^= 1 << rng.IntN(8)
		}
		want := FirstDiff(stored, full)
		got := FirstDiff(stored, rebuildPrefix(blocks, pl.p(bpk), bpk, len(stored)+1))
		got.RebuiltLen = len(full)
		if *got != *want {
			t.Fatalf("%s: bounded diff %v, full diff %v", name, got, want)
		}
	}
}
