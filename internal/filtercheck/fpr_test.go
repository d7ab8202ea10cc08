package filtercheck_test

import (
	"math"
	"testing"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/internal/filtercheck"
	"github.com/ldbcompat/ldbcompat/internal/table/tabletest"
)

func TestTheoreticalFPR(t *testing.T) {
	// 10 bits per key, k = 6: about 0.84%.
	if got := filtercheck.TheoreticalFPR(10000, 1000, 6); math.Abs(got-0.00843) > 0.0001 {
		t.Errorf("TheoreticalFPR(10000, 1000, 6) = %v", got)
	}
	if got := filtercheck.TheoreticalFPR(0, 1, 1); got != 1 {
		t.Errorf("no bits: %v", got)
	}
}

func TestMeasureFPR(t *testing.T) {
	for _, b := range []int{2, 5, 10} {
		tb := buildTable(t, 20000, tabletest.Options{BlockSize: 1500, Policy: bloom.NewPolicy(b)})
		blocks, err := filtercheck.ReadKeys(tb)
		if err != nil {
			t.Fatal(err)
		}
		_, contents, _ := tb.FilterBlock()
		l, err := filtercheck.ParseLayout(contents)
		if err != nil {
			t.Fatal(err)
		}
		f := filtercheck.MeasureFPR(contents, l, blocks, bloom.NewPolicy(b), 40000, 1)
		if f.Samples != 40000 || f.Theoretical <= 0 || f.Measured < f.Theoretical/2 || f.Measured > f.Theoretical*2 {
			t.Errorf("bits/key %d: %+v", b, f)
		}
		g := filtercheck.MeasureFPR(contents, l, blocks, bloom.NewPolicy(b), 40000, 1)
		filtercheck.ExpectFilters(&f, contents, l, blocks, bloom.NewPolicy(b), 1)
		filtercheck.ExpectFilters(&g, contents, l, blocks, bloom.NewPolicy(b), 1)
		if g != f {
			t.Errorf("same seed, different result: %+v, %+v", f, g)
		}
		// The filters are the policy's: the expectation is computed, and
		// the measurement (40,000 queries) lies near it.
		if math.IsNaN(f.Expected) || f.Measured < f.Expected*0.8 || f.Measured > f.Expected*1.25 {
			t.Errorf("bits/key %d: measured %v, expected %v", b, f.Measured, f.Expected)
		}
	}
}

// probes is util/bloom.cc's probe sequence, from first principles: k
// positions from one 32-bit hash h, delta = h rotated right by 17, each
// position h mod bits, h += delta.
func probes(h uint32, bits, k int) []int {
	var pos []int
	delta := h>>17 | h<<15
	for j := 0; j < k; j++ {
		pos = append(pos, int(uint64(h)%uint64(bits)))
		h += delta
	}
	return pos
}

// TestExpectedFPRSmallFilter: for a 64-bit filter holding one key, only 12
// bits of a hash choose its probes (the low 6 of h and of delta), so the
// exact false-positive rate is a count over 4096 x 4096 hash classes:
// the share of pairs where the query's probes all fall on the key's bits.
// ExpectedFPR's simulation must find it, and it differs from the
// independent-hash formula, which is why dump shows both.
func TestExpectedFPRSmallFilter(t *testing.T) {
	const bits, k = 64, 6                                                  // 10 bits/key with 1 key: 64 bits (the minimum), k 6
	class := func(c int) uint32 { return uint32(c&63) | uint32(c>>6)<<17 } // low 6 bits of h and of delta
	var sets [4096]uint64
	for c := range sets {
		for _, p := range probes(class(c), bits, k) {
			sets[c] |= 1 << p
		}
	}
	hits := 0
	for key := range sets {
		for q := range sets {
			if sets[q]&^sets[key] == 0 {
				hits++
			}
		}
	}
	exact := float64(hits) / (4096 * 4096)
	got, length, gotK := filtercheck.ExpectedFPR(bloom.NewPolicy(10), 1, 1, 1)
	if length != 9 || gotK != k {
		t.Fatalf("filter of %d bytes, k %d; want 9 bytes, k %d", length, gotK, k)
	}
	sigma := math.Sqrt(exact * (1 - exact) / (32 * 1024))
	if math.Abs(got-exact) > 5*sigma {
		t.Errorf("ExpectedFPR = %.5f, exact %.5f (sigma %.5f)", got, exact, sigma)
	}
	if formula := filtercheck.TheoreticalFPR(bits, 1, k); formula*10 > exact {
		t.Errorf("the independent-hash formula (%.5f) is as good as exact (%.5f) here; the test shows nothing", formula, exact)
	}
	t.Logf("64 bits, 1 key, k %d: exact %.5f, simulated %.5f, independent-hash formula %.7f", k, exact, got, filtercheck.TheoreticalFPR(bits, 1, k))
}

// TestExpectedFPRLargeFilter: with many keys the probes of double hashing
// behave as independent ones, and the expectation meets the formula.
func TestExpectedFPRLargeFilter(t *testing.T) {
	got, length, k := filtercheck.ExpectedFPR(bloom.NewPolicy(10), 1000, 1000, 1)
	want := filtercheck.TheoreticalFPR((length-1)*8, 1000, k)
	if math.Abs(got-want) > want*0.2 {
		t.Errorf("1000 keys at 10 bits/key: ExpectedFPR %.5f, formula %.5f", got, want)
	}
}
