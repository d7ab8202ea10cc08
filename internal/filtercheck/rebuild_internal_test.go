package filtercheck

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"hash/fnv"
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
		name   string
		p      func(int) bloom.FilterPolicy
		signed bool
	}
	pols := []pol{
		{"current", func(b int) bloom.FilterPolicy { return bloom.NewPolicy(b) }, false},
		{"legacy unsigned", func(b int) bloom.FilterPolicy { return bloom.NewLegacyPolicy(b, false) }, false},
		{"legacy signed", func(b int) bloom.FilterPolicy { return bloom.NewLegacyPolicy(b, true) }, true},
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
		// rebuildDiff takes the bounded way for blocks much larger
		// than the stored one, the ordinary way for others: the same
		// difference either way.
		if d, _ := rebuildDiff(stored, blocks, pl.p(bpk), bpk, pl.signed, new(compareBufs)); d == nil || *d != *want {
			t.Fatalf("%s: rebuildDiff %v, full diff %v", name, d, want)
		}
	}
	// A rebuilt block far larger than the stored one (the bounded way
	// only): 400 keys at 3000 bits/key, 150 KB.
	blocks := randomBlocks(rng, 30)
	for len(blocks[0].Keys) < 400 {
		blocks[0].Keys = append(blocks[0].Keys, []byte(fmt.Sprint(len(blocks[0].Keys))))
	}
	full := Build(blocks, bloom.NewPolicy(3000))
	for _, n := range []int{0, 1, 100, 5000, 40000} {
		for _, flip := range []bool{false, true} {
			stored := bytes.Clone(full[:n])
			if flip && n > 0 {
				stored[n-1] ^= 1
			}
			if RebuiltSize(blocks, 3000) <= maxRebuild(len(stored)) {
				t.Fatalf("%d bytes stored: the rebuilt block is not large enough to be rebuilt the bounded way", n)
			}
			want := FirstDiff(stored, full)
			if d, _ := rebuildDiff(stored, blocks, bloom.NewPolicy(3000), 3000, false, new(compareBufs)); d == nil || *d != *want {
				t.Errorf("%d bytes stored, flipped %v: rebuildDiff %v, full diff %v", n, flip, d, want)
			}
		}
	}
}

// TestDistinctKeysPerFilter: a key counts once per filter, and again in
// each filter it appears in.
func TestDistinctKeysPerFilter(t *testing.T) {
	b := func(off uint64, keys ...string) BlockKeys {
		bk := BlockKeys{Handle: table.BlockHandle{Offset: off, Size: 10}}
		for _, k := range keys {
			bk.Keys = append(bk.Keys, []byte(k))
		}
		return bk
	}
	blocks := []BlockKeys{b(0, "a", "b"), b(100, "a"), b(2048, "a", "c"), b(2100, "a"), b(3*2048, "a")}
	got := distinctKeysPerFilter(blocks, 11, 3)
	if want := []int{2, 2, 0}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("distinct keys per filter %v, want %v (the last range's block is past the 3 filters)", got, want)
	}
}

// TestDistinctKeysLong: keys of up to 32 bytes are counted exactly, even
// two whose 64-bit FNV-1a hashes collide (a pair found by lattice
// reduction, checked here with hash/fnv); longer keys are counted once
// per filter too.
func TestDistinctKeysLong(t *testing.T) {
	a, _ := hex.DecodeString("65737a7963696470796f70756d7a67647061c0b9760f5c83593972116c0b46ac")
	b, _ := hex.DecodeString("65737a7963696470796f70756d7a67647061c366da0eee87a0582e02dd3451a9")
	sum := func(k []byte) uint64 { h := fnv.New64a(); h.Write(k); return h.Sum64() }
	if len(a) != 32 || len(b) != 32 || bytes.Equal(a, b) || sum(a) != sum(b) {
		t.Fatalf("setup: %x and %x are not two 32-byte keys of one FNV-1a hash", a, b)
	}
	long := func(c byte, n int) []byte { return bytes.Repeat([]byte{c}, n) }
	blocks := []BlockKeys{
		{Handle: table.BlockHandle{Offset: 0, Size: 10}, Keys: [][]byte{a, b, a}},
		{Handle: table.BlockHandle{Offset: 2048, Size: 10}, Keys: [][]byte{long('x', 40), long('y', 40), long('x', 40), long('x', 33)}},
		{Handle: table.BlockHandle{Offset: 2100, Size: 10}, Keys: [][]byte{long('y', 40), long('z', 1000)}},
	}
	got := distinctKeysPerFilter(blocks, 11, 2)
	if want := []int{2, 4}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("distinct keys per filter %v, want %v", got, want)
	}
}
