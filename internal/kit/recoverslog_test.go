package kit

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/internal/fixtures"
	"github.com/ldbcompat/ldbcompat/internal/logfile"
	"github.com/ldbcompat/ldbcompat/internal/tabledb"
)

// The kit's tests of PropRecoversLog on pure-Go ports.

// TestCommittedLogDBs: each committed database left in its log holds, as
// the kit recovers it, exactly what upstream was given (the digest its
// generator recorded), in its logs alone; ldbcompat verify's model agrees
// (LogsToReplay selects every log).
func TestCommittedLogDBs(t *testing.T) {
	dbs, digests, err := committedLogDBs()
	if err != nil || len(dbs) != 3 {
		t.Fatalf("committed log databases: %d, %v; want 3", len(dbs), err)
	}
	for _, db := range dbs {
		contents, err := dbContents(db.fsys)
		if err != nil {
			t.Fatalf("%s: %v", db.name, err)
		}
		if err := confirmLogContents(db, contents, digests[db.name], false); err != nil {
			t.Errorf("%s: %v", db.name, err)
		}
		if n := tableCount(db.fsys); n != 0 {
			t.Errorf("%s has %d tables, want its writes in the log alone", db.name, n)
		}
		deleted := 0
		for _, d := range contents {
			if !d.live {
				deleted++
				if !strings.Contains(d.where, ".log, record at offset") {
					t.Errorf("%s: deleted key %x is in %s, want a log record", db.name, d.key, d.where)
				}
			}
		}
		if deleted == 0 {
			t.Errorf("%s holds no deletion", db.name)
		}
	}
}

// recoverPort is package bloom with ReadDB reading through read.
func recoverPort(name string, read func(dir string, bits int, keys [][]byte) ([]bool, error)) Port {
	p := bloomPort()
	p.Name = name
	p.ReadDB = read
	return p
}

// tablesOnly reads the tables of dir as tabledb does, the logs removed: a
// port that does not replay the log.
func tablesOnly(dir string, bits int, keys [][]byte) ([]bool, error) {
	logs, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	for _, l := range logs {
		if err := os.Remove(l); err != nil {
			return nil, err
		}
	}
	return tabledb.Read(dir, bloom.NewPolicy(bits), nil, keys)
}

// putsOnly replays every log of dir and ignores its deletes: a port that
// finds deleted keys.
func putsOnly(dir string, _ int, keys [][]byte) ([]bool, error) {
	have := map[string]bool{}
	logs, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	for _, l := range logs {
		data, err := os.ReadFile(l)
		if err != nil {
			return nil, err
		}
		rd := logfile.NewReader(bytes.NewReader(data), l, logfile.Options{})
		for {
			r, err := rd.Next()
			if err == io.EOF {
				break
			}
			b, err := logfile.NewBatch(r.Data)
			if err != nil {
				continue
			}
			_, _ = b.Iterate(func(op logfile.Op) {
				if op.Kind != logfile.OpDelete {
					have[string(op.Key)] = true
				}
			})
		}
	}
	found := make([]bool, len(keys))
	for i, k := range keys {
		found[i] = have[string(k)]
	}
	return found, nil
}

// TestRecoversLog: a port whose ReadDB replays the logs passes on every
// database upstream left in its log; one that reads the tables alone
// misses every write (harmful: false negatives), one that ignores
// deletes finds deleted keys (wrong answers); each failure has a
// reproducer naming the database.
func TestRecoversLog(t *testing.T) {
	cfg := kitConfig{tables: os.DirFS("../../testdata/tables"), endToEndOnly: true, live: Live}
	want := 3
	if liveRan() {
		want += liveLogDBCount
	}
	r := check(recoverPort("replays", func(dir string, bits int, keys [][]byte) ([]bool, error) {
		return tabledb.Read(dir, bloom.NewPolicy(bits), nil, keys)
	}), cfg)
	if c, _ := r.Result(PropRecoversLog); c.Outcome != Pass || c.Cases != want || len(r.Errors) > 0 {
		t.Fatalf("%s: %s after %d cases, want pass after %d:\n%s", PropRecoversLog, c.Outcome, c.Cases, want, r)
	}
	for _, c := range []struct {
		name string
		read func(string, int, [][]byte) ([]bool, error)
		kind failureKind
		harm Harm
		says string
	}{
		{"tables only", tablesOnly, kindRecoverMissing, HarmFalseNegatives, "upstream left in its log missing (upstream's DB::Open recovers every one)"},
		{"puts only", putsOnly, kindRecoverExtra, HarmWrongAnswers, "(deleted, in 00000"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := check(recoverPort(c.name, c.read), cfg)
			res, _ := r.Result(PropRecoversLog)
			if res.Outcome != Fail || len(res.Failures) != want || len(r.Errors) > 0 {
				t.Fatalf("%s: %s with %d failures, want every one of %d databases failed:\n%s", PropRecoversLog, res.Outcome, len(res.Failures), want, r)
			}
			for _, f := range res.Failures {
				if f.Effect != c.kind.effect() || f.Harm != c.harm || !strings.Contains(f.Detail, c.says) {
					t.Errorf("%s: want %q (%s) saying %q:\n%s", f.Case, c.kind.effect(), c.harm, c.says, f)
				}
				if !strings.HasPrefix(f.Repro, "ReadDB(compat.UpstreamDB(t, ") || !strings.Contains(f.Repro, "compat.HexKeys(") {
					t.Errorf("%s: reproducer %q", f.Case, f.Repro)
				}
			}
			t.Logf("%s", res.Failures[0])
		})
	}
}

// TestLogDBInputs: the reproducers' inputs exist under the names the
// kit gives: the database and its keys, deleted ones among them.
func TestLogDBInputs(t *testing.T) {
	for _, name := range []string{"testdata/logdbs/closed", "testdata/logdbs/crash", "testdata/logdbs/two-logs"} {
		dir := UpstreamDB(t, name)
		keys := UpstreamDBKeys(name)
		found, err := tabledb.Read(dir, bloom.NewPolicy(10), nil, keys)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, f := range found {
			if f {
				n++
			}
		}
		info := logDBInfo(t, name)
		if n != info.Keys || len(keys) != info.Keys+info.Deleted+200 {
			t.Errorf("%s: %d of %d keys found, want %d live of %d live, %d deleted and 200 never written", name, n, len(keys), info.Keys, info.Keys, info.Deleted)
		}
	}
}

// logDBInfo returns the metadata of committed database name.
func logDBInfo(t *testing.T, name string) *fixtures.LogDBInfo {
	t.Helper()
	dbs, err := fixtures.LoadLogDBs(os.DirFS("../../testdata/logdbs"))
	if err != nil {
		t.Fatal(err)
	}
	for _, db := range dbs {
		if logDBPrefix+db.Dir == name {
			return db.Info
		}
	}
	t.Fatalf("no %s", name)
	return nil
}
