//go:build leveldb

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/ldbcompat/ldbcompat/cgo/upstream"
	"github.com/ldbcompat/ldbcompat/internal/faultfs"
)

// TestFaultyStorageStatusesAgainstUpstream: where the storage refuses to
// open a table, or a table is gone, or CURRENT or the MANIFEST cannot be
// read, verify's status for it is the one upstream gives on the same
// mount, word for word (in the linked release's words: Reword). (A read
// error inside a table is not compared: upstream reads tables through a
// memory map and dies of SIGBUS there.)
func TestFaultyStorageStatusesAgainstUpstream(t *testing.T) {
	const victim = "000009.ldb"
	backing := copyDB(t, "b10-bs4096-snappy")
	fi, err := os.Stat(filepath.Join(backing, victim))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		file  string
		fault faultfs.Fault
	}{
		{"permission denied", victim, faultfs.Fault{OpenErr: syscall.EACCES}},
		{"I/O error at open", victim, faultfs.Fault{OpenErr: syscall.EIO}},
		{"vanished", victim, faultfs.Fault{Gone: true}},
		{"EIO on CURRENT", "CURRENT", faultfs.Fault{ReadErr: syscall.EIO}},
		{"EACCES on CURRENT", "CURRENT", faultfs.Fault{OpenErr: syscall.EACCES}},
		{"EIO on the MANIFEST", "MANIFEST-000002", faultfs.Fault{ReadErr: syscall.EIO}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, minor := upstream.Version(); c.file == victim && minor < 14 {
				t.Skipf("LevelDB 1.%d opens tables as NNNNNN.sst only (.ldb came in 1.14): it never reaches a fault on %s", minor, victim)
			}
			f := faultfs.MountT(t, backing)
			f.Set(c.file, c.fault)
			_, out, _ := runChild(t, "verify", "--json", f.Dir)
			var doc faultJSON
			if err := json.Unmarshal([]byte(out), &doc); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			var got, want string
			if c.file == victim {
				for _, tb := range doc.allTables() {
					if tb.Path == filepath.Join(f.Dir, victim) {
						got = tb.Status
					}
				}
				r, err := upstream.ReadTable(f.Dir, 9, uint64(fi.Size()), upstream.TableOptions{PolicyName: "leveldb.BuiltinBloomFilter2", BitsPerKey: 10})
				if err != nil {
					t.Fatal(err)
				}
				want = r.OpenStatus
			} else {
				if len(doc.Databases) == 1 {
					got = doc.Databases[0].Status
				}
				r, err := upstream.RecoverManifest(f.Dir)
				if err != nil {
					t.Fatal(err)
				}
				want = r.Status
			}
			if want == "" || upstream.Reword(got) != want {
				t.Errorf("status: upstream %q, verify %q (in the linked release's words %q)", want, got, upstream.Reword(got))
			}
			if strings.Contains(out, "panic") {
				t.Errorf("a panic:\n%s", out)
			}
			if w := f.Writes(); len(w) > 0 {
				t.Errorf("requests that would write: %q", w)
			}
		})
	}
}
