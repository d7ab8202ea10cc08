package filtercheck_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/internal/filtercheck"
	"github.com/ldbcompat/ldbcompat/internal/table"
)

// benchTables returns the tables of the database named by
// $LDBCOMPAT_BENCH_DB (as bench/verify.go writes one), or skips b.
func benchTables(b *testing.B) []string {
	dir := os.Getenv("LDBCOMPAT_BENCH_DB")
	if dir == "" {
		b.Skip("LDBCOMPAT_BENCH_DB not set")
	}
	paths, err := filepath.Glob(filepath.Join(dir, "*.ldb"))
	if err != nil || len(paths) == 0 {
		b.Skipf("no tables in %s", dir)
	}
	return paths
}

// BenchmarkCheckDB runs table.Open and CompareTable over the tables of the
// database named by $LDBCOMPAT_BENCH_DB.
func BenchmarkCheckDB(b *testing.B) {
	paths := benchTables(b)
	var size int64
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			b.Fatal(err)
		}
		size += fi.Size()
	}
	b.SetBytes(size)
	b.ReportAllocs()
	for range b.N {
		for _, p := range paths {
			f, err := os.Open(p)
			if err != nil {
				b.Fatal(err)
			}
			fi, err := f.Stat()
			if err != nil {
				b.Fatal(err)
			}
			t, err := table.Open(p, f, fi.Size())
			if err != nil {
				b.Fatal(err)
			}
			r, err := filtercheck.CompareTable(t)
			if err != nil {
				b.Fatal(err)
			}
			if r.Match != filtercheck.MatchOK {
				b.Fatalf("%s: %s", p, r.Match)
			}
			f.Close()
		}
	}
}

// BenchmarkHashesInMemory does what `ldbcompat verify` does with each table
// of the database named by $LDBCOMPAT_BENCH_DB (table.OpenBytesReusing,
// KeyStore.ReadHashes with one KeyStore, CompareHashes with the filter
// upstream uses), on tables read into memory before the timing: the work of
// the check alone, without mapping the files or touching their pages for
// the first time.
func BenchmarkHashesInMemory(b *testing.B) {
	paths := benchTables(b)
	files := make([][]byte, len(paths))
	var size int64
	for i, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		files[i] = data
		size += int64(len(data))
	}
	b.SetBytes(size)
	var keys filtercheck.KeyStore
	var t *table.Table
	for range b.N {
		for i, data := range files {
			var err error
			if t, err = table.OpenBytesReusing(t, paths[i], data, int64(len(data))); err != nil {
				b.Fatal(err)
			}
			blocks, err := keys.ReadHashes(t)
			if err != nil {
				b.Fatal(err)
			}
			f := t.LookupFilter(bloom.PolicyName)
			if f.Use != table.FilterUsed {
				b.Fatalf("%s: filter %s not used", paths[i], bloom.PolicyName)
			}
			c, ok := filtercheck.CompareHashes(blocks, bloom.PolicyName, f.Handle, f.Contents)
			if !ok {
				b.Fatalf("%s: the filter block cannot be compared from the keys' hashes alone", paths[i])
			}
			if c.Match != filtercheck.MatchOK {
				b.Fatalf("%s: filter block %s", paths[i], c.Match)
			}
		}
	}
}
