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
		if g := filtercheck.MeasureFPR(contents, l, blocks, bloom.NewPolicy(b), 40000, 1); g != f {
			t.Errorf("same seed, different result: %+v, %+v", f, g)
		}
	}
}
