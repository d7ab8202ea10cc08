//go:build leveldb

package kit

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jmhodges/levigo"

	"github.com/ldbcompat/ldbcompat/cgo/upstream"
	"github.com/ldbcompat/ldbcompat/internal/cases"
	"github.com/ldbcompat/ldbcompat/internal/fixturegen"
	"github.com/ldbcompat/ldbcompat/internal/fixtures"
)

// levigoSynced is upstream itself, through levigo, as a port with a
// WriteSynced hook: each put with sync, the database left open.
func levigoSynced() Port {
	p := bloomPort()
	p.Name = "levigo"
	p.WriteSynced = func(dir string, kvs [][2][]byte) (func() error, error) {
		db, err := fixturegen.Open(dir, 10, func(o *levigo.Options) { o.SetCreateIfMissing(true) })
		if err != nil {
			return nil, err
		}
		wo := levigo.NewWriteOptions()
		defer wo.Close()
		wo.SetSync(true)
		for _, kv := range kvs {
			if err := db.Put(wo, kv[0], kv[1]); err != nil {
				db.Close()
				return nil, err
			}
		}
		return func() error { db.Close(); return nil }, nil
	}
	return p
}

// TestLevigoSynced: upstream, as a port, passes "upstream recovers the
// port's log" live, and the kit's model of DB::Open, judging alone,
// passes it too: the model recovers what upstream left.
func TestLevigoSynced(t *testing.T) {
	for _, live := range []bool{true, false} {
		r := check(levigoSynced(), kitConfig{endToEndOnly: true, live: live})
		if c, _ := r.Result(PropLogRecovered); c.Outcome != Pass || c.Cases != 2*len(cases.SyncedCases()) || len(r.Errors) > 0 {
			t.Errorf("live %v: %s: %s after %d cases, want pass:\n%s", live, PropLogRecovered, c.Outcome, c.Cases, r)
		}
	}
}

// TestModelAgreesLive: on what upstream leaves, and on the directories
// of ports that lose writes, the kit's model of DB::Open recovers what
// upstream's own DB::Open does, under both option sets.
func TestModelAgreesLive(t *testing.T) {
	for _, mode := range []syncMode{syncEach, syncAtClose, syncTorn, syncBitFlip, syncOldNumber} {
		for _, c := range cases.SyncedCases() {
			dir := t.TempDir()
			closeDB, err := syncedPort(mode).WriteSynced(dir, c.KVs)
			if err != nil {
				t.Fatal(err)
			}
			crash := t.TempDir()
			if err := fixtures.CopyDir(crash, os.DirFS(dir)); err != nil {
				t.Fatal(err)
			}
			if err := closeDB(); err != nil {
				t.Fatal(err)
			}
			for _, d := range []string{crash, dir} {
				for _, paranoid := range []bool{false, true} {
					model, merr := modelOpen(d, paranoid)
					live, lerr := openUpstream(d, paranoid, true)
					if (merr != nil) != (lerr != nil) {
						t.Errorf("mode %d, %s, paranoid %v: model error %v, upstream's %v", mode, c.Name, paranoid, merr, lerr)
						continue
					}
					if diff := cmp.Diff(kvPairs(live), kvPairs(model)); diff != "" {
						t.Errorf("mode %d, %s, paranoid %v: model differs from upstream (-upstream +model):\n%s", mode, c.Name, paranoid, diff)
					}
				}
			}
		}
	}
}

func kvPairs(kvs []kv) [][2]string {
	out := make([][2]string, len(kvs))
	for i, e := range kvs {
		out[i] = [2]string{string(e.key), string(e.value)}
	}
	return out
}

// TestCommittedLogDBsReproduce regenerates the committed databases left
// in their logs (testdata/logdbs) and requires the same logs and
// contents: they are what the linked LevelDB leaves, not hand edits.
func TestCommittedLogDBsReproduce(t *testing.T) {
	if major, minor := upstream.Version(); major != 1 || minor != 23 {
		t.Skipf("the committed log databases are LevelDB 1.23's; the linked release is %s", upstream.Release())
	}
	dbs, err := fixtures.LoadLogDBs(os.DirFS(filepath.Join("..", "..", "testdata", "logdbs")))
	if err != nil || len(dbs) != len(fixturegen.LogDBKinds) {
		t.Fatalf("%d committed log databases, want %d: %v", len(dbs), len(fixturegen.LogDBKinds), err)
	}
	for _, db := range dbs {
		want := db.Info
		t.Run(want.Name, func(t *testing.T) {
			got, err := fixturegen.GenerateLogDB(t.TempDir(), want.Name, want.Seed)
			if err != nil {
				t.Fatal(err)
			}
			// The bytes must agree whatever the build; its provenance may differ.
			got.TarballSHA256, got.Compiler, got.Arch = want.TarballSHA256, want.Compiler, want.Arch
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("the database upstream left, committed and regenerated (-upstream then +upstream now):\n%s", diff)
			}
		})
	}
}
