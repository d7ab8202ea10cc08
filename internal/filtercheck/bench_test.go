package filtercheck_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ldbcompat/ldbcompat/internal/filtercheck"
	"github.com/ldbcompat/ldbcompat/internal/table"
)

// BenchmarkCheckDB runs table.Open and Check over the tables of the
// database named by $LDBCOMPAT_BENCH_DB (as bench/verify.go writes one).
func BenchmarkCheckDB(b *testing.B) {
	dir := os.Getenv("LDBCOMPAT_BENCH_DB")
	if dir == "" {
		b.Skip("LDBCOMPAT_BENCH_DB not set")
	}
	paths, err := filepath.Glob(filepath.Join(dir, "*.ldb"))
	if err != nil || len(paths) == 0 {
		b.Skipf("no tables in %s", dir)
	}
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
