package verify_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ldbcompat/ldbcompat/internal/verify"
)

// foreignDir holds databases other stores of LevelDB's lineage wrote (make
// fixtures-foreign).
const foreignDir = "../../testdata/foreign"

// foreignKinds is what wrote each database of testdata/foreign (its
// README), and what its tables are: Pebble v1 writes RocksDB's block-based
// table format, Pebble v2 its own.
var foreignKinds = map[string]struct{ kind, table string }{
	"pebble-v1": {"Pebble", "a RocksDB table (block-based format"},
	"pebble-v2": {"Pebble", "a Pebble table"},
	"rocksdb":   {"RocksDB", "a RocksDB table (block-based format"},
}

// TestForeignDatabases: a Pebble or RocksDB database, searched for in a
// tree, is named as such, upstream cannot open it, and each of its tables
// is unreadable with its format named (their statuses are upstream's:
// TestForeignAgreesWithUpstream).
func TestForeignDatabases(t *testing.T) {
	res := verify.Run([]string{foreignDir}, verify.Options{})
	seen := map[string]bool{}
	for i, it := range res.Items {
		switch {
		case it.Database != nil:
			name := filepath.Base(it.Database.Dir)
			want, ok := foreignKinds[name]
			seen[name] = true
			if !ok || it.Database.Kind != want.kind || it.Database.Opens() || it.Database.KindEvidence == "" ||
				!strings.Contains(it.Database.Detail(), "a "+want.kind+" database, not LevelDB's") {
				t.Errorf("%s: kind %q (%s), opens %v; want %q, not opened\n%s", name, it.Database.Kind, it.Database.KindEvidence, it.Database.Opens(), want.kind, it.Database.Detail())
			}
		case it.Table != nil:
			rep := res.Reports[i]
			want := foreignKinds[filepath.Base(filepath.Dir(rep.Path))]
			if rep.Verdict != verify.Unreadable || rep.Status != "Corruption: not an sstable (bad magic number)" ||
				!strings.Contains(rep.Err.Error(), "("+want.table) || !strings.Contains(rep.Err.Error(), "which upstream LevelDB cannot open") {
				t.Errorf("%s: %s: %s", rep.Path, rep.Verdict, rep.Detail())
			}
		default:
			t.Errorf("%s: %v %s", it.Path, it.PathErr, it.Note)
		}
	}
	if len(seen) != len(foreignKinds) {
		t.Errorf("databases found: %v; want %d", seen, len(foreignKinds))
	}
	if code := res.Summary.ExitCode(); code != verify.ExitError {
		t.Errorf("exit %d, want %d", code, verify.ExitError)
	}
}

// TestLostCurrent: a LevelDB database without its CURRENT file (a MANIFEST
// is there) is a database upstream cannot open, not a directory to search:
// opened with create_if_missing, upstream would make a new database there.
func TestLostCurrent(t *testing.T) {
	dir := copyFixture(t, "b10-bs4096-snappy")
	if err := os.Remove(filepath.Join(dir, "CURRENT")); err != nil {
		t.Fatal(err)
	}
	res := verify.Run([]string{dir}, verify.Options{})
	db := res.Items[0].Database
	if db == nil || db.Opens() || db.Status != "Invalid argument: "+dir+": does not exist (create_if_missing is false)" ||
		!strings.Contains(db.Err.Error(), "MANIFEST-000002 is there") || res.Summary.Tables != 3 {
		t.Fatalf("items %+v, summary %+v", res.Items, res.Summary)
	}
}

// copyFixture copies testdata/tables/name into a new temporary directory
// and returns the copy's path.
func copyFixture(t *testing.T, name string) string {
	t.Helper()
	return copyDir(t, filepath.Join("../../testdata/tables", name))
}
