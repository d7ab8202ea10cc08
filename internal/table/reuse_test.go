package table_test

import (
	"slices"
	"testing"

	"github.com/ldbcompat/ldbcompat/internal/table"
)

// TestOpenBytesReusing opens every committed table in turn, each taking
// over the memory of the one before (larger and smaller ones, a table with
// a compressed index block among them, and a file that fails to open in
// between), and checks that each reads as it does opened afresh: the
// index, the metaindex and every data block's keys.
func TestOpenBytesReusing(t *testing.T) {
	fixtures := loadFixtures(t)
	order := append(slices.Clone(fixtures), fixtures...)
	slices.Reverse(order[len(fixtures):])
	var prev *table.Table
	compressedIndex := false
	for i, f := range order {
		if i == len(fixtures) {
			// Not a table: the open fails, and the next one reuses the
			// memory all the same.
			bad, err := table.OpenBytesReusing(prev, "bad", []byte("not a table"), 11)
			if err == nil || bad != nil {
				t.Fatalf("OpenBytesReusing of a non-table: %v, %v; want an error", bad, err)
			}
		}
		got, err := table.OpenBytesReusing(prev, f.name(), f.data, int64(len(f.data)))
		if err != nil {
			t.Fatalf("%s: OpenBytesReusing: %v", f.name(), err)
		}
		want, err := table.OpenBytes(f.name(), f.data, int64(len(f.data)))
		if err != nil {
			t.Fatalf("%s: OpenBytes: %v", f.name(), err)
		}
		if diff := quickDiff(want.Index(), got.Index()); diff != "" {
			t.Errorf("%s: Index() (-fresh +reusing):\n%s", f.name(), diff)
		}
		if diff := quickDiff(want.Metaindex(), got.Metaindex()); diff != "" {
			t.Errorf("%s: Metaindex() (-fresh +reusing):\n%s", f.name(), diff)
		}
		wantKeys, wantHs, wantErr := keysByDataKeys(want)
		gotKeys, gotHs, gotErr := keysByDataKeys(got)
		if diff := quickDiff(wantKeys, gotKeys); diff != "" || wantErr != gotErr {
			t.Errorf("%s: DataKeys (-fresh +reusing):\n%s\nerrors %v, %v", f.name(), diff, wantErr, gotErr)
		}
		if diff := quickDiff(wantHs, gotHs); diff != "" {
			t.Errorf("%s: data block handles (-fresh +reusing):\n%s", f.name(), diff)
		}
		if b, err := got.ReadBlock(got.IndexHandle(), "index block"); err == nil && b.Compression == table.SnappyCompression {
			compressedIndex = true
		}
		prev = got
	}
	if !compressedIndex {
		t.Error("no fixture has a compressed index block; the test does not cover its buffer")
	}
}
