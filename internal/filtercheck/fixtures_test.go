package filtercheck_test

import (
	"testing"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/internal/filtercheck"
	"github.com/ldbcompat/ldbcompat/internal/table/tabletest"
)

// TestFixtureRebuild rebuilds every committed table's filter block the way
// upstream's TableBuilder does and requires the stored bytes; Check must
// say so and infer the bits/key the table was written with.
func TestFixtureRebuild(t *testing.T) {
	for _, f := range tabletest.Fixtures(t, "../../testdata/tables") {
		t.Run(f.Name, func(t *testing.T) {
			tb := f.Open(t)
			_, stored, ok := tb.FilterBlock()
			if !ok {
				t.Fatal("no filter block")
			}
			got, err := filtercheck.Rebuild(tb, bloom.NewPolicy(f.BitsPerKey))
			if err != nil {
				t.Fatal(err)
			}
			if d := filtercheck.FirstDiff(stored, got); d != nil {
				t.Fatalf("rebuilt filter block differs from the stored one at %v", d)
			}

			r, err := filtercheck.CompareTable(tb)
			if err != nil {
				t.Fatal(err)
			}
			if r.Match != filtercheck.MatchOK {
				t.Fatalf("Check: status %s, diff %v", r.Match, r.Diff)
			}
			p := r.Params
			wantK := bloom.NewPolicy(f.BitsPerKey).CreateFilter(nil, nil)[8]
			if !p.Consistent() || p.MinBitsPerKey > f.BitsPerKey || p.MaxBitsPerKey < f.BitsPerKey || p.K != int(wantK) {
				t.Errorf("Check inferred %v; written with bits/key %d, k %d", p, f.BitsPerKey, wantK)
			}
		})
	}
}
