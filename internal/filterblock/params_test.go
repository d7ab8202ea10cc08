package filterblock_test

import (
	"bytes"
	"encoding/hex"
	"strconv"
	"strings"
	"testing"

	"github.com/ldbcompat/ldbcompat"
	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/internal/cases"
	"github.com/ldbcompat/ldbcompat/internal/filterblock"
)

// TestParamsUpstream: FilterLen and Probes give the length and k byte
// of every filter upstream wrote for the golden vectors' cases (bits/key
// 0 to 1000, 0 to 100000 keys).
func TestParamsUpstream(t *testing.T) {
	vs, err := cases.LoadVectors(ldbcompat.TestData, cases.VectorDir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range cases.VectorSet().Filter {
		r, err := vs.Lookup("filter", c.Name, c.In())
		if err != nil {
			t.Fatal(err)
		}
		// Out is the dst and the filter, in hex or as
		// sha256:<digest>/<length>.
		var length, k int
		if _, size, ok := strings.Cut(r.Out, "/"); ok && strings.HasPrefix(r.Out, "sha256:") {
			if length, err = strconv.Atoi(size); err != nil {
				t.Fatalf("%s: %q", c.Name, r.Out)
			}
			k = -1 // not recorded
		} else {
			out, err := hex.DecodeString(r.Out)
			if err != nil || len(out) == 0 {
				t.Fatalf("%s: %q", c.Name, r.Out)
			}
			length, k = len(out), int(out[len(out)-1])
		}
		length -= len(c.Dst)
		if got := filterblock.FilterLen(len(c.Keys), c.BitsPerKey); got != length {
			t.Errorf("%s: FilterLen(%d, %d) = %d, upstream's filter has %d bytes", c.Name, len(c.Keys), c.BitsPerKey, got, length)
		}
		if got := filterblock.Probes(c.BitsPerKey); k >= 0 && got != k {
			t.Errorf("%s: Probes(%d) = %d, upstream's k byte %d", c.Name, c.BitsPerKey, got, k)
		}
		n++
	}
	if n < 100 {
		t.Fatalf("only %d filter cases", n)
	}
}

// TestParamsInverse: BitsPerKeyForLen and BitsPerKeyForProbes return
// exactly the bits/key values that give a length or a k, and
// bloom.ProbesFor is Probes.
func TestParamsInverse(t *testing.T) {
	const limit = 1000
	for b := 0; b <= 300; b++ {
		k := filterblock.Probes(b)
		if got := bloom.ProbesFor(b); got != k {
			t.Fatalf("bloom.ProbesFor(%d) = %d, Probes %d", b, got, k)
		}
		lo, hi, ok := filterblock.BitsPerKeyForProbes(k, limit)
		if !ok || lo > b || hi < b {
			t.Fatalf("BitsPerKeyForProbes(%d) = %d..%d, %v; want a range holding %d", k, lo, hi, ok, b)
		}
		if (lo > 0 && filterblock.Probes(lo-1) == k) || (hi < limit && filterblock.Probes(hi+1) == k) {
			t.Errorf("BitsPerKeyForProbes(%d) = %d..%d: a value outside gives k %d too", k, lo, hi, k)
		}
		for _, n := range []int{1, 2, 3, 7, 10, 64, 100, 1000} {
			flen := filterblock.FilterLen(n, b)
			lo, hi, ok := filterblock.BitsPerKeyForLen(n, flen)
			if !ok || lo > b || hi < b || filterblock.FilterLen(n, lo) != flen || filterblock.FilterLen(n, hi) != flen {
				t.Fatalf("BitsPerKeyForLen(%d, %d) = %d..%d, %v; want a range holding %d", n, flen, lo, hi, ok, b)
			}
			if (lo > 0 && filterblock.FilterLen(n, lo-1) == flen) || filterblock.FilterLen(n, hi+1) == flen {
				t.Errorf("BitsPerKeyForLen(%d, %d) = %d..%d: a value outside gives the length too", n, flen, lo, hi)
			}
		}
	}
	if _, _, ok := filterblock.BitsPerKeyForProbes(31, limit); ok {
		t.Error("k 31: some bits/key gives it")
	}
	if _, _, ok := filterblock.BitsPerKeyForLen(3, 8); ok {
		t.Error("a filter of 8 bytes: some bits/key gives it, under the 64-bit minimum")
	}
}

// TestAppendFilterPrefix: the prefix is the start of the filter
// CreateFilter makes, for the current and legacy policies, appended after
// dst.
func TestAppendFilterPrefix(t *testing.T) {
	var keys [][]byte
	for i := 0; i < 40; i++ {
		keys = append(keys, []byte(strconv.Itoa(i*7919)+"\x80\xff"[:i%3]))
	}
	for _, c := range []struct {
		p          bloom.FilterPolicy
		bitsPerKey int
		hash       func([]byte, uint32) uint32
	}{
		{bloom.NewPolicy(10), 10, bloom.Hash},
		{bloom.NewPolicy(1000), 1000, bloom.Hash},
		{bloom.NewLegacyPolicy(10, true), 10, bloom.HashSignedTail},
		{bloom.NewLegacyPolicy(7, false), 7, bloom.Hash},
	} {
		hashes := make([]uint32, len(keys))
		for i, k := range keys {
			hashes[i] = c.hash(k, filterblock.Seed)
		}
		whole := c.p.CreateFilter(keys, nil)
		for _, n := range []int{-1, 0, 1, 7, len(whole) / 2, len(whole) - 1, len(whole), len(whole) + 3} {
			dst := []byte("dst")
			got := filterblock.AppendFilterPrefix(dst, hashes, c.bitsPerKey, n)
			want := append([]byte("dst"), whole[:min(max(n, 0), len(whole))]...)
			if !bytes.Equal(got, want) {
				t.Errorf("%s at %d bits/key, %d bytes of %d: % x\nwant % x", c.p.Name(), c.bitsPerKey, n, len(whole), got, want)
			}
		}
	}
}
