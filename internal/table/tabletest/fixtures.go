package tabletest

import (
	"bytes"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"testing"

	"github.com/ldbcompat/ldbcompat/internal/fixtures"
	"github.com/ldbcompat/ldbcompat/internal/table"
)

// Fixture is a table of testdata/tables (`make fixtures`).
type Fixture struct {
	Name       string // database/file, such as "b10-bs4096-none/000007.ldb"
	BitsPerKey int
	Data       []byte
	DB         *fixtures.Info // its database's metadata
	Index      int            // its place in DB.Tables
}

// Fixtures reads every table the databases in dir list in their metadata
// (package fixtures), failing the test when there is none.
func Fixtures(t testing.TB, dir string) []Fixture {
	t.Helper()
	dbs, err := fixtures.Load(os.DirFS(dir))
	if err != nil {
		t.Fatal(err)
	}
	if len(dbs) == 0 {
		t.Fatalf("no fixtures in %s; run make fixtures", dir)
	}
	var all []Fixture
	for _, db := range dbs {
		for i, tb := range db.Info.Tables {
			data, err := fs.ReadFile(db.FS, tb.File)
			if err != nil {
				t.Fatalf("%s: %v", dir, err)
			}
			all = append(all, Fixture{Name: path.Join(db.Info.Name, tb.File), BitsPerKey: db.Info.BitsPerKey, Data: data, DB: db.Info, Index: i})
		}
	}
	return all
}

// Open opens the fixture's table.
func (f Fixture) Open(t testing.TB) *table.Table {
	t.Helper()
	tb, err := table.Open(f.Name, bytes.NewReader(f.Data), int64(len(f.Data)))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return tb
}

// OpenFilter opens the fixture's table and returns it with the filter
// block stored in it, failing the test when there is none.
func (f Fixture) OpenFilter(t testing.TB) (*table.Table, []byte) {
	t.Helper()
	tb := f.Open(t)
	_, stored, ok := tb.FilterBlock()
	if !ok {
		t.Fatal("no filter block")
	}
	return tb, stored
}

// ReadFiles reads the files matching pattern, by path, failing the test
// when there is none.
func ReadFiles(t testing.TB, pattern string) map[string][]byte {
	t.Helper()
	paths, _ := filepath.Glob(pattern)
	if len(paths) == 0 {
		t.Fatalf("no files match %s", pattern)
	}
	files := map[string][]byte{}
	for _, p := range paths {
		files[p] = ReadFile(t, p)
	}
	return files
}

// ReadFile reads the file at p, failing the test on an error.
func ReadFile(t testing.TB, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
