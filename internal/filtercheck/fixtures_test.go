package filtercheck_test

import (
	"bytes"
	"testing"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/internal/filtercheck"
	"github.com/ldbcompat/ldbcompat/internal/table"
	"github.com/ldbcompat/ldbcompat/internal/table/tabletest"
)

// TestFixtureRebuild rebuilds every committed table's filter block the way
// upstream's TableBuilder does and requires the stored bytes; Check must
// say so and infer the bits/key the table was written with.
func TestFixtureRebuild(t *testing.T) {
	for _, f := range tabletest.Fixtures(t, "../../testdata/tables") {
		t.Run(f.Name, func(t *testing.T) {
			tb, stored := f.OpenFilter(t)
			got, err := filtercheck.Rebuild(tb, bloom.NewPolicy(f.BitsPerKey))
			if err != nil {
				t.Fatal(err)
			}
			if d := filtercheck.FirstDiff(stored, got); d != nil {
				t.Fatalf("rebuilt filter block differs from the stored one at %v", d)
			}

			r := compareTable(t, tb)
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

// TestUncheckedFilter: with 200 bytes of a fixture's filter block zeroed,
// a table read with paranoid checks has no filter (its checksum fails, so
// upstream reads without it); read as upstream does under its default
// options, the damaged block is the filter upstream uses, and CompareTable
// finds it differs from the rebuilt one at the first zeroed byte that was
// not zero.
func TestUncheckedFilter(t *testing.T) {
	var f tabletest.Fixture
	for _, x := range tabletest.Fixtures(t, "../../testdata/tables") {
		if x.Name == "b10-bs4096-none/000007.ldb" {
			f = x
		}
	}
	fh, ok := f.Open(t).FilterHandle()
	if !ok || fh.Size < 300 {
		t.Fatalf("%s: filter block %v, %v", f.Name, fh, ok)
	}
	file := bytes.Clone(f.Data)
	clear(file[fh.Offset+10 : fh.Offset+210])
	first := 10
	for f.Data[fh.Offset+uint64(first)] == 0 {
		first++
	}

	checked, err := table.OpenBytes(f.Name, file, int64(len(file)))
	if err != nil {
		t.Fatal(err)
	}
	r, err := filtercheck.CompareTable(checked)
	if err != nil || r.Match != filtercheck.MatchNoFilter {
		t.Errorf("checked: %+v, %v; want no filter", r, err)
	}

	un, err := table.OpenBytesWith(f.Name, file, int64(len(file)), table.Options{SkipChecksums: true})
	if err != nil {
		t.Fatal(err)
	}
	r, err = filtercheck.CompareTable(un)
	if err != nil || r.Match != filtercheck.MatchDiffers || r.Diff == nil || r.Diff.Offset != first || r.Diff.Stored != 0 {
		t.Fatalf("unchecked: %+v, %v; want a difference at byte %d", r, err, first)
	}
	if fs := un.ChecksumFailures(); len(fs) != 1 || fs[0].What != "filter block" {
		t.Errorf("unchecked: failures %+v", fs)
	}
}
