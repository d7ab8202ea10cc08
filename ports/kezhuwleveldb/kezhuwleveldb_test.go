package kezhuwleveldb

import (
	"path/filepath"
	"testing"

	"github.com/ldbcompat/ldbcompat/internal/fixtures"
	"github.com/ldbcompat/ldbcompat/ports/internal/adapt"
	"github.com/ldbcompat/ldbcompat/ports/internal/porttest"
)

// TestReadsWithoutFilter: with no filter, kezhuw/leveldb's Get finds
// every key of every database upstream wrote (testdata/tables), as
// upstream does: its table and MANIFEST readers are sound, so the keys it
// misses with a filter (the kit's read check) are the filter's doing, as
// Measure reports.
func TestReadsWithoutFilter(t *testing.T) {
	dbs, err := adapt.Committed()
	if err != nil {
		t.Fatal(err)
	}
	if len(dbs) == 0 {
		t.Fatal("no database in testdata/tables")
	}
	for _, db := range dbs {
		live, err := adapt.LiveKeys(db.FS)
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(t.TempDir(), db.Dir)
		if err := fixtures.CopyDir(dir, db.FS); err != nil {
			t.Fatal(err)
		}
		n, err := countFound(dir, nil, live)
		if err != nil {
			t.Fatalf("%s: %v", db.Dir, err)
		}
		if n != len(live) || n == 0 {
			t.Errorf("%s: Get without a filter finds %d of its %d keys; upstream finds every one", db.Dir, n, len(live))
		}
	}
}

// TestWriteDBSameTables: WriteDB leaves the same table files on every
// run (the report is the same from run to run).
func TestWriteDBSameTables(t *testing.T) {
	porttest.SameTables(t, writeDB)
}
