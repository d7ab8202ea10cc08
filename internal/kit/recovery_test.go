package kit

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ldbcompat/ldbcompat/internal/manifest/manifesttest"
)

// The kit's tests of PropLogRecovered on pure-Go ports: a minimal
// correct one, which writes CURRENT, a MANIFEST and one log as upstream
// lays them out, and ports that lose what they were asked to sync.

// syncMode is how a test port's WriteSynced writes its log.
type syncMode int

const (
	syncEach      syncMode = iota // writes and syncs each record as it comes
	syncAtClose                   // keeps the log in memory until closeDB
	syncTorn                      // leaves the last record's last 5 bytes out
	syncNoLog                     // writes no log at all
	syncBitFlip                   // flips a bit of the last value before its checksum
	syncOldNumber                 // writes its log under a number below the MANIFEST's
)

// batch encodes one put as a write batch (db/write_batch.cc): the
// sequence number and the count, then the op.
func batch(seq uint64, key, value []byte) []byte {
	b := binary.LittleEndian.AppendUint64(nil, seq)
	b = binary.LittleEndian.AppendUint32(b, 1)
	b = append(b, 1) // kTypeValue
	b = binary.AppendUvarint(b, uint64(len(key)))
	b = append(b, key...)
	b = binary.AppendUvarint(b, uint64(len(value)))
	return append(b, value...)
}

// syncedPort is package bloom with a WriteSynced hook that writes the
// database of a MANIFEST naming log 3, and the log as mode says.
func syncedPort(mode syncMode) Port {
	p := bloomPort()
	p.Name = "synced"
	p.WriteSynced = func(dir string, kvs [][2][]byte) (func() error, error) {
		if err := manifesttest.WriteDB(dir, 2); err != nil {
			return nil, err
		}
		name := "000003.log"
		if mode == syncOldNumber {
			name = "000001.log"
		}
		if mode == syncNoLog {
			return func() error { return nil }, nil
		}
		f, err := os.OpenFile(filepath.Join(dir, name), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
		if err != nil {
			return nil, err
		}
		var log manifesttest.Log
		written := 0
		for i, kv := range kvs {
			rec := batch(101+uint64(i), kv[0], kv[1])
			if mode == syncBitFlip && i == len(kvs)-1 {
				// A bit flipped after the checksum was taken: the
				// record's CRC fails.
				log.Add(rec)
				log.Bytes()[log.Len()-1] ^= 1
			} else {
				log.Add(rec)
			}
			if mode == syncAtClose {
				continue
			}
			end := log.Len()
			if mode == syncTorn && i == len(kvs)-1 {
				end -= 5
			}
			if _, err := f.Write(log.Bytes()[written:end]); err != nil {
				f.Close()
				return nil, err
			}
			written = end
			if err := f.Sync(); err != nil {
				f.Close()
				return nil, err
			}
		}
		return func() error {
			if mode == syncAtClose {
				if _, err := f.Write(log.Bytes()); err != nil {
					f.Close()
					return err
				}
			}
			return f.Close()
		}, nil
	}
	return p
}

// TestSyncedPort: a port that syncs every write into a log upstream reads
// passes, open and closed; the case suite's six cases are compared.
func TestSyncedPort(t *testing.T) {
	r := check(syncedPort(syncEach), kitConfig{endToEndOnly: true, live: Live})
	c, _ := r.Result(PropLogRecovered)
	if c.Outcome != Pass || c.Cases != 2*3 || len(r.Errors) > 0 {
		t.Fatalf("%s: %s after %d cases, want pass after 6:\n%s", PropLogRecovered, c.Outcome, c.Cases, r)
	}
	if c, _ := r.Result(PropRecoversLog); c.Outcome != Skip {
		t.Errorf("%s: %s, want skipped (no ReadDB)", PropRecoversLog, c.Outcome)
	}
}

// TestSyncedPortMistakes: ports that leave their synced writes where
// upstream does not find them are caught, with the harm and a
// reproducer.
func TestSyncedPortMistakes(t *testing.T) {
	for _, c := range []struct {
		name string
		mode syncMode
		// failing are the cases that fail; want is in each detail.
		failing []string
		kind    failureKind
		want    string
	}{
		{"writes only at close", syncAtClose, []string{"synced/n5, copied while open", "synced/n1000, copied while open", "synced/large, copied while open"},
			kindSyncedMissing, "misses 5 of the 5 keys the port synced"},
		{"torn last record", syncTorn, []string{"synced/n5, copied while open", "synced/n5, closed", "synced/n1000, copied while open", "synced/n1000, closed", "synced/large, copied while open", "synced/large, closed"},
			kindSyncedMissing, "misses 1 of the 5 keys the port synced"},
		{"no log", syncNoLog, []string{"synced/n5, copied while open", "synced/n5, closed", "synced/n1000, copied while open", "synced/n1000, closed", "synced/large, copied while open", "synced/large, closed"},
			kindSyncedMissing, "misses 5 of the 5 keys"},
		{"log below the MANIFEST's log number", syncOldNumber, []string{"synced/n5, copied while open", "synced/n5, closed", "synced/n1000, copied while open", "synced/n1000, closed", "synced/large, copied while open", "synced/large, closed"},
			kindSyncedMissing, "misses 5 of the 5 keys"},
		{"bad checksum", syncBitFlip, []string{"synced/n5, copied while open", "synced/n5, closed", "synced/n1000, copied while open", "synced/n1000, closed", "synced/large, copied while open", "synced/large, closed"},
			kindSyncedOpen, "paranoid_checks"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := check(syncedPort(c.mode), kitConfig{endToEndOnly: true, live: Live})
			res, _ := r.Result(PropLogRecovered)
			if res.Outcome != Fail || len(r.Errors) > 0 {
				t.Fatalf("%s: %s, want fail:\n%s", PropLogRecovered, res.Outcome, r)
			}
			var got []string
			for _, f := range res.Failures {
				got = append(got, f.Case)
				if f.Effect != c.kind.effect() || f.Harm != c.kind.harm() {
					t.Errorf("%s: effect %q, want %q", f.Case, f.Effect, c.kind.effect())
				}
				if !strings.Contains(f.Repro, "WriteSynced(dir, compat.CaseKVs(") || !strings.Contains(f.Repro, "ldbcompat verify dir") {
					t.Errorf("%s: reproducer %q does not call WriteSynced and verify", f.Case, f.Repro)
				}
			}
			if strings.Join(got, "\n") != strings.Join(c.failing, "\n") {
				t.Errorf("failing cases:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(c.failing, "\n"))
			}
			if d := res.Failures[0].Detail; !strings.Contains(d, c.want) {
				t.Errorf("first failure does not say %q:\n%s", c.want, d)
			}
			judge := openModel
			if liveRan() {
				judge = openLive
			}
			if d := res.Failures[0].Detail; !strings.HasPrefix(d, "judged by "+judge) {
				t.Errorf("first failure does not say who judged (%s):\n%s", judge, d)
			}
			t.Logf("%s", res.Failures[0])
		})
	}
}

// TestSyncedPortFails: a WriteSynced that fails, returns no closeDB, or
// whose close fails, fails the property with kindSyncedFails; one that
// panics, with a panic; the kit goes on to the next case.
func TestSyncedPortFails(t *testing.T) {
	for _, c := range []struct {
		name  string
		write func(dir string, kvs [][2][]byte) (func() error, error)
		kind  failureKind
		cases int // failing cases
	}{
		{"fails", func(string, [][2][]byte) (func() error, error) { return nil, os.ErrPermission }, kindSyncedFails, 3},
		{"no closeDB", func(string, [][2][]byte) (func() error, error) { return nil, nil }, kindSyncedFails, 3},
		{"close fails", func(dir string, kvs [][2][]byte) (func() error, error) {
			closeDB, err := syncedPort(syncEach).WriteSynced(dir, kvs)
			return func() error { closeDB(); return os.ErrClosed }, err
		}, kindSyncedFails, 3},
		{"panics", func(string, [][2][]byte) (func() error, error) { panic("boom") }, kindPanic, 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := bloomPort()
			p.WriteSynced = c.write
			r := check(p, kitConfig{endToEndOnly: true})
			res, _ := r.Result(PropLogRecovered)
			if res.Outcome != Fail || len(res.Failures) != c.cases {
				t.Fatalf("%s: %s with %d failures, want %d:\n%s", PropLogRecovered, res.Outcome, len(res.Failures), c.cases, r)
			}
			for _, f := range res.Failures {
				if f.Effect != c.kind.effect() {
					t.Errorf("%s: effect %q, want %q", f.Case, f.Effect, c.kind.effect())
				}
			}
		})
	}
}
