//go:build leveldb

package porttest

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ldbcompat/ldbcompat/cgo/upstream"
	"github.com/ldbcompat/ldbcompat/compat"
	"github.com/ldbcompat/ldbcompat/internal/fixtures"
)

// upstreamChecks asks upstream LevelDB through cgo: its table reader reads
// every entry of each table WriteTable writes, with checksums verified;
// its log::Reader reads every record of WriteLog's log without a drop, and
// ReadLog reads every record of upstream's log::Writer's; DB::Open finds
// every write WriteSynced made, in a copy of the directory taken while the
// database is open and in the directory after closeDB.
func upstreamChecks(t *testing.T, p compat.Port, o FormatsOptions) {
	if p.WriteTable != nil {
		t.Run("upstream reads WriteTable's tables", func(t *testing.T) { upstreamReadsTables(t, p) })
	}
	if p.WriteLog != nil {
		t.Run("upstream reads WriteLog's log", func(t *testing.T) {
			recs := Records()
			data, err := p.WriteLog(recs)
			if err != nil {
				t.Fatal(err)
			}
			if want := upstream.WriteLog(recs); !bytes.Equal(data, want) {
				t.Errorf("the port's log (%d bytes) differs from upstream's log::Writer's on the same records (%d bytes) from byte %d", len(data), len(want), firstDiff(data, want))
			}
			lr, err := upstream.ReadLog(data)
			if err != nil {
				t.Fatal(err)
			}
			var got [][]byte
			for _, e := range lr.Events {
				if e.Drop {
					t.Errorf("upstream drops %d bytes: %s", e.Bytes, e.Status)
					continue
				}
				got = append(got, e.Record)
			}
			sameRecords(t, "upstream's log::Reader on WriteLog's log", got, recs)
		})
	}
	if p.ReadLog != nil {
		t.Run("ReadLog reads upstream's log", func(t *testing.T) {
			recs := Records()
			got, err := p.ReadLog(upstream.WriteLog(recs))
			if err != nil {
				t.Errorf("ReadLog: %v", err)
			}
			sameRecords(t, "ReadLog on upstream's log", got, recs)
		})
	}
	if p.WriteSynced != nil {
		t.Run("upstream recovers WriteSynced's log", func(t *testing.T) { upstreamRecovers(t, p, o) })
	}
}

func upstreamReadsTables(t *testing.T, p compat.Port) {
	entries := Entries()
	for _, to := range TableOptions {
		data, err := p.WriteTable(entries, to)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "000001.ldb"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		tr, err := upstream.ReadTable(dir, 1, uint64(len(data)), upstream.TableOptions{PolicyName: "leveldb.BuiltinBloomFilter2", BitsPerKey: max(to.BitsPerKey, 1)})
		if err != nil {
			t.Fatal(err)
		}
		if tr.OpenStatus != "" || tr.ScanStatus != "" {
			t.Errorf("%+v: upstream's Table: open %q, scan %q", to, tr.OpenStatus, tr.ScanStatus)
		}
		got := make([]compat.Entry, len(tr.Entries))
		for i, e := range tr.Entries {
			got[i] = compat.Entry{Key: e.Key, Value: e.Value}
		}
		sameEntries(t, "upstream's Table on WriteTable's table", got, entries)
	}
}

// upstreamRecovers has upstream open what WriteSynced left, copied while
// open and closed: it must find every write, or what o says of the port.
func upstreamRecovers(t *testing.T, p compat.Port, o FormatsOptions) {
	dir := t.TempDir()
	kvs := syncedKVs()
	closeDB, err := p.WriteSynced(dir, kvs)
	if err != nil {
		t.Fatal(err)
	}
	open := t.TempDir()
	err = fixtures.CopyDir(open, os.DirFS(dir))
	if cerr := closeDB(); cerr != nil {
		t.Fatal(cerr)
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []struct{ what, dir string }{{"copied while open", open}, {"closed", dir}} {
		s, err := upstream.OpenScan(d.dir, false)
		if err != nil {
			t.Fatal(err)
		}
		if o.UpstreamOpen != "" {
			if got := strings.ReplaceAll(s.OpenStatus, d.dir, "DIR"); got != o.UpstreamOpen {
				t.Errorf("%s: upstream's DB::Open gives %q, want %q", d.what, got, o.UpstreamOpen)
			}
			continue
		}
		if o.UpstreamFindsNone {
			if s.OpenStatus != "" || len(s.Keys) > 0 {
				t.Errorf("%s: upstream's DB::Open gives %q and finds %d keys, want it to open and find none", d.what, s.OpenStatus, len(s.Keys))
			}
			continue
		}
		if s.OpenStatus != "" || s.ScanStatus != "" {
			t.Errorf("%s: upstream's DB::Open %q, scan %q", d.what, s.OpenStatus, s.ScanStatus)
			continue
		}
		if len(s.Keys) != len(kvs) {
			t.Errorf("%s: upstream finds %d keys, want %d", d.what, len(s.Keys), len(kvs))
			continue
		}
		for i, kv := range kvs {
			if !bytes.Equal(s.Keys[i], kv[0]) || !bytes.Equal(s.Values[i], kv[1]) {
				t.Errorf("%s: upstream's entry %d is %q, want %q", d.what, i, s.Keys[i], kv[0])
				break
			}
		}
	}
}
