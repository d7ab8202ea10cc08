//go:build leveldb

package kit

import (
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/ldbcompat/ldbcompat/internal/blockop"
	"github.com/ldbcompat/ldbcompat/internal/cases"
)

// TestLive compares the bloom package with upstream LevelDB, called through
// cgo (for v1.4 to v1.17, bloom.NewLegacyPolicy: see livePort), on every
// golden-vector case and on larger ones: filters of up to
// 100000 keys at every bits/key, and 500 random builder sequences.
func TestLive(t *testing.T) {
	cs := cases.VectorSet()
	cs.Origin = "TestLive"
	cs.Filter = cases.FilterCases(true)
	cs.Block = cases.BlockCases(500)
	reportResults(t, runCheck(livePort(t), cases.UpstreamOracle, cs))
}

// TestLiveRandom runs cases from a seed that changes with every run; the
// seed is printed and LDBCOMPAT_SEED replays it.
func TestLiveRandom(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("LDBCOMPAT_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 0, 64)
		if err != nil {
			t.Fatalf("LDBCOMPAT_SEED=%q: %v", s, err)
		}
		seed = v
	}
	t.Logf("seed %d (replay: LDBCOMPAT_SEED=%d)", seed, seed)
	g := cases.NewGen(seed)
	cs := cases.Set{Origin: fmt.Sprintf("TestLiveRandom with LDBCOMPAT_SEED=%d", seed)}
	for i := 0; i < 200; i++ {
		b := g.R.IntN(70)
		keys := g.Keys(g.R.IntN(3000), 0, 64)
		cs.Filter = append(cs.Filter, cases.FilterCase{Name: fmt.Sprintf("seed%d/%d", seed, i), BitsPerKey: b, Keys: keys,
			Dst: g.Bytes(g.R.IntN(3)), Queries: append(cases.Sample(keys, 50), g.Absent(keys, 200, 0, 64)...)})
		f := g.Bytes(g.R.IntN(300))
		cs.Match = append(cs.Match, cases.MatchCase{Name: fmt.Sprintf("seed%d/%d", seed, i), BitsPerKey: b, Filter: f, Queries: g.Keys(50, 0, 30)})
		c := g.BlockCase(fmt.Sprintf("seed%d/%d", seed, i), cases.Policy{Test: i%2 == 0, BitsPerKey: b}, i%3 == 0, i%5 == 0)
		cs.Block = append(cs.Block, c)
		contents := g.Bytes(g.R.IntN(80))
		var qs []blockop.Query
		for j := 0; j < 40; j++ {
			qs = append(qs, blockop.Query{Offset: g.R.Uint64() >> g.R.IntN(64), Key: g.Bytes(g.R.IntN(8))})
		}
		cs.Reader = append(cs.Reader, cases.ReaderCase{Name: fmt.Sprintf("seed%d/%d", seed, i), Policy: cases.Policy{Test: i%2 == 0, BitsPerKey: b}, Contents: contents, Queries: qs})
	}
	res := runCheck(livePort(t), cases.UpstreamOracle, cs)
	if len(res.byProp) > 0 {
		t.Errorf("failures with seed %d (replay: LDBCOMPAT_SEED=%d)", seed, seed)
	}
	reportResults(t, res)
}

// TestLiveHashAllLengths compares Hash on every length 0..64 of random data
// with bytes of 0x80 and above, under random seeds.
func TestLiveHashAllLengths(t *testing.T) {
	g := cases.NewGen(99)
	cs := cases.Set{Origin: "TestLiveHashAllLengths"}
	for n := 0; n <= 64; n++ {
		for i := 0; i < 50; i++ {
			cs.Hash = append(cs.Hash, cases.HashCase{Name: fmt.Sprintf("len%d/%d", n, i), Data: g.Bytes(n), Seed: g.R.Uint32()})
		}
	}
	reportResults(t, runCheck(livePort(t), cases.UpstreamOracle, cs))
}

// TestLiveWideFilter compares KeyMayMatch on filters of 2^32 bits and just
// over, where upstream's 64-bit modulo leaves the hash unchanged (a 32-bit
// modulo would wrap). The filters are 512 MiB of dense random bits.
func TestLiveWideFilter(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates 512 MiB")
	}
	g := cases.NewGen(7)
	pattern := g.Bytes(1 << 16)
	for i := range pattern {
		for j := 0; j < 3; j++ {
			pattern[i] |= byte(g.R.Uint32()) // four random draws OR'ed: ~94% ones
		}
	}
	queries := g.Keys(3000, 0, 24)
	for _, size := range []int{1<<29 + 1, 1<<29 + 2} {
		f := make([]byte, size)
		for i := 0; i < size-1; i += len(pattern) {
			copy(f[i:size-1], pattern)
		}
		f[size-1] = 6
		cs := cases.Set{Origin: "TestLiveWideFilter", Match: []cases.MatchCase{{Name: fmt.Sprintf("wide/%d", size), BitsPerKey: 10, Filter: f, Queries: queries}}}
		reportResults(t, runCheck(livePort(t), cases.UpstreamOracle, cs))
		if size == 1<<29+2 {
			// A 32-bit modulo (2^32+8 bits wraps to 8) must answer
			// differently somewhere, or the case proves nothing.
			want, _ := cases.UpstreamOracle.Match(cs.Match[0])
			wrapped := make([]bool, len(queries))
			for i, q := range queries {
				h := liveHash(q, 0xbc9f1d34)
				delta := h>>17 | h<<15
				wrapped[i] = true
				for j := 0; j < 6; j++ {
					if f[(h%8)/8]&(1<<(h%8%8)) == 0 {
						wrapped[i] = false
						break
					}
					h += delta
				}
			}
			if cases.EncodeBools(wrapped) == want.Rec.Ans {
				t.Error("a 32-bit modulo gives upstream's answers on every query: the case does not test the wide rule")
			}
		}
	}
}
