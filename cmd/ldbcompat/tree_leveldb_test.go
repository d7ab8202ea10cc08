//go:build leveldb

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/jmhodges/levigo"

	"github.com/ldbcompat/ldbcompat/cgo/upstream"
	"github.com/ldbcompat/ldbcompat/internal/verify"
)

// writeLevigoDB writes a database of n keys into dir through upstream
// LevelDB (levigo), with a bloom filter of bits bits per key (none when 0)
// and snappy or no compression, and closes it with its data in tables.
func writeLevigoDB(t *testing.T, dir string, bits, n int, snappy bool) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		t.Fatal(err)
	}
	o := levigo.NewOptions()
	defer o.Close()
	o.SetCreateIfMissing(true)
	o.SetWriteBufferSize(16 << 10)
	if bits > 0 {
		fp := levigo.NewBloomFilter(bits)
		defer fp.Close()
		o.SetFilterPolicy(fp)
	}
	if !snappy {
		o.SetCompression(levigo.NoCompression)
	}
	db, err := levigo.Open(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	wo := levigo.NewWriteOptions()
	defer wo.Close()
	for i := 0; i < n; i++ {
		if err := db.Put(wo, []byte(fmt.Sprintf("k%06d", i*7919%n)), []byte(fmt.Sprintf("value %d", i))); err != nil {
			t.Fatal(err)
		}
	}
	db.CompactRange(levigo.Range{})
	db.Close()
	for _, f := range []string{"LOCK", "LOG", "LOG.old"} {
		os.Remove(filepath.Join(dir, f))
	}
}

// TestVerifyTreeOfUpstreamDatabases: databases upstream writes, nested at
// several depths in a tree with a symbolic link loop, beside databases
// other implementations wrote: the search finds each, every table upstream
// wrote with a bloom filter is ok (old-filter before v1.18) and the one
// without is no-filter, the exit status is 0, and nothing in the tree
// changes.
func TestVerifyTreeOfUpstreamDatabases(t *testing.T) {
	root := filepath.Join(t.TempDir(), "data")
	dbs := []struct {
		rel    string
		bits   int
		snappy bool
		want   string
	}{
		{"a/db10", 10, true, "ok"},
		{"a/b/c/d/db5", 5, false, "ok"},
		{"x/y/nofilter", 0, true, "no-filter"},
	}
	if upstream.LegacyBloom() {
		dbs[0].want, dbs[1].want = "old-filter", "old-filter"
	}
	for _, d := range dbs {
		writeLevigoDB(t, filepath.Join(root, d.rel), d.bits, 3000, d.snappy)
	}
	copyTree(t, "../../testdata/other/classic-level", filepath.Join(root, "node", "classic-level"))
	copyTree(t, "../../testdata/other/goleveldb", filepath.Join(root, "node", "deeper", "goleveldb"))
	if err := os.Symlink(root, filepath.Join(root, "a", "b", "loop")); err != nil {
		t.Fatal(err)
	}
	before := treeState(t, root)

	code, doc, got := verdictsOf(t, root, root)
	if code != verify.ExitOK || len(doc.Databases) != len(dbs)+2 || len(doc.PathErrors) != 0 || len(doc.Notes) != 0 {
		t.Fatalf("exit %d, %d databases, path errors %+v, notes %+v; want 0, %d, none", code, len(doc.Databases), doc.PathErrors, doc.Notes, len(dbs)+2)
	}
	for _, d := range dbs {
		n := 0
		for path, verdict := range got {
			if filepath.Dir(path) != d.rel {
				continue
			}
			n++
			if verdict != d.want {
				t.Errorf("%s: %s, want %s", path, verdict, d.want)
			}
		}
		if n == 0 {
			t.Errorf("%s: no table judged", d.rel)
		}
	}
	if diff := diffState(before, treeState(t, root)); diff != "" {
		t.Errorf("the tree changed:\n%s", diff)
	}
}
