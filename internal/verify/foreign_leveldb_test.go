//go:build leveldb

package verify_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/jmhodges/levigo"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/cgo/upstream"
	"github.com/ldbcompat/ldbcompat/internal/verify"
)

// TestForeignAgreesWithUpstream: what verify says upstream does with the
// Pebble and RocksDB databases of testdata/foreign, and with a LevelDB
// database that lost CURRENT, is what upstream does: DB::Open's status
// (on a copy, since opening writes LOCK and LOG), and each table's open
// status at its own size.
func TestForeignAgreesWithUpstream(t *testing.T) {
	lost := copyFixture(t, "b10-bs4096-snappy")
	if err := os.Remove(filepath.Join(lost, "CURRENT")); err != nil {
		t.Fatal(err)
	}
	dirs := []string{lost}
	for name := range foreignKinds {
		dirs = append(dirs, filepath.Join(foreignDir, name))
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			res := verify.Run([]string{dir}, verify.Options{})
			db := res.Items[0].Database
			if db == nil {
				t.Fatalf("no database: %+v", res.Items)
			}
			// Upstream opens a copy (opening writes LOCK and LOG); its
			// status names the copy's path, put back before comparing.
			cp := copyDir(t, dir)
			o := levigo.NewOptions()
			defer o.Close()
			_, err := levigo.Open(cp, o)
			if err == nil {
				t.Fatalf("upstream opens %s", dir)
			}
			want := strings.ReplaceAll(err.Error(), cp, dir)
			if got := upstream.Reword(db.Status); got != want {
				t.Errorf("database status: upstream %q, verify %q", want, got)
			}
			if _, minor := upstream.Version(); minor < 14 {
				// Its tables are NNNNNN.ldb, which v1.4 to v1.13 (.sst
				// only) report missing: no table to compare.
				t.Logf("LevelDB 1.%d opens tables as NNNNNN.sst only: the tables' statuses are not compared", minor)
				return
			}
			for i, it := range res.Items {
				rep := res.Reports[i]
				if it.Table == nil || rep == nil {
					continue
				}
				num, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSuffix(filepath.Base(rep.Path), ".sst"), ".ldb"), 10, 64)
				if err != nil {
					t.Fatal(err)
				}
				tr, err := upstream.ReadTable(filepath.Dir(rep.Path), num, uint64(rep.FileSize), upstream.TableOptions{PolicyName: bloom.PolicyName, BitsPerKey: 10})
				if err != nil {
					t.Fatal(err)
				}
				if got := upstream.Reword(rep.Status); tr.OpenStatus != got || (got != "") != (rep.Verdict == verify.Unreadable) {
					t.Errorf("%s: upstream %q; verify %s, %q", rep.Path, tr.OpenStatus, rep.Verdict, got)
				}
			}
		})
	}
}
