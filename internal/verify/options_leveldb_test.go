//go:build leveldb

package verify_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jmhodges/levigo"

	"github.com/ldbcompat/ldbcompat/internal/fixturegen"
	"github.com/ldbcompat/ldbcompat/internal/table"
	"github.com/ldbcompat/ldbcompat/internal/verify"
)

// Whole databases written by upstream through levigo, damaged in copies,
// and opened by upstream itself with LevelDB's default options and with
// paranoid checks: what it then returns (keys Get misses, values a scan
// returns wrong, whether the open or the scan fails) is what verify must
// count under each option set.

// kv is one write.
type kv struct{ key, value []byte }

// writes makes n writes with distinct keys and 100-byte random values,
// which snappy stores as they are (as literals).
func writes(n int) []kv {
	r := rand.New(rand.NewPCG(1, 1))
	out := make([]kv, n)
	for i := range out {
		v := make([]byte, 100)
		for j := range v {
			v[j] = byte(r.Uint32())
		}
		out[i] = kv{[]byte(fmt.Sprintf("key%08d", i)), v}
	}
	return out
}

// writeDB writes kvs into a new database in dir with upstream LevelDB,
// bloom filters of 10 bits per key, one write each; compacted into tables
// unless inLog, which leaves every write in the log (a write buffer large
// enough, closed without compaction).
func writeDB(t *testing.T, dir string, kvs []kv, inLog bool) {
	t.Helper()
	db, err := fixturegen.Open(dir, 10, func(o *levigo.Options) {
		o.SetCreateIfMissing(true)
		o.SetWriteBufferSize(64 << 20)
	})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	wo := levigo.NewWriteOptions()
	defer wo.Close()
	for _, e := range kvs {
		if err := db.Put(wo, e.key, e.value); err != nil {
			t.Fatal(err)
		}
	}
	if !inLog {
		db.CompactRange(levigo.Range{})
	}
}

// upstreamRead is what upstream returns from a database under one option
// set: whether it opens, the scan's entries and status, and every Get.
type upstreamRead struct {
	openErr  string
	scanErr  string
	entries  int
	wrong    int // scanned entries whose value is not the one written
	extra    int // scanned keys that were not written
	missing  int // written keys no Get finds
	getWrong int // Gets that return another value
}

// readUpstream opens a copy of dir with upstream (paranoid checks or
// LevelDB's defaults; reads verify checksums under paranoid checks), scans
// it and gets every key written.
func readUpstream(t *testing.T, dir string, kvs []kv, paranoid bool) upstreamRead {
	t.Helper()
	dir = copyDir(t, dir) // upstream's open writes: never into the original
	var r upstreamRead
	db, err := fixturegen.Open(dir, 10, func(o *levigo.Options) { o.SetParanoidChecks(paranoid) })
	if err != nil {
		r.openErr = err.Error()
		return r
	}
	defer db.Close()
	ro := levigo.NewReadOptions()
	defer ro.Close()
	ro.SetVerifyChecksums(paranoid)
	want := map[string][]byte{}
	for _, e := range kvs {
		want[string(e.key)] = e.value
	}
	it := db.NewIterator(ro)
	for it.SeekToFirst(); it.Valid(); it.Next() {
		r.entries++
		v, ok := want[string(it.Key())]
		switch {
		case !ok:
			r.extra++
		case !bytes.Equal(v, it.Value()):
			r.wrong++
		}
	}
	if err := it.GetError(); err != nil {
		r.scanErr = err.Error()
	}
	it.Close()
	for _, e := range kvs {
		v, err := db.Get(ro, e.key)
		switch {
		case err != nil || v == nil:
			r.missing++
		case !bytes.Equal(v, e.value):
			r.getWrong++
		}
	}
	return r
}

// onlyTable returns the path of the database's one table.
func onlyTable(t *testing.T, dir string) string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dir, "*.ldb"))
	if len(m) != 1 {
		t.Fatalf("%s: %d tables, want 1", dir, len(m))
	}
	return m[0]
}

// verifyTable runs verify on dir under one option set and returns its one
// live table's report.
func verifyTable(t *testing.T, dir string, paranoid bool) *verify.TableReport {
	t.Helper()
	res := verify.Run([]string{dir}, verify.Options{Paranoid: paranoid})
	for _, r := range res.Reports {
		if r != nil && r.Live != nil {
			return r
		}
	}
	t.Fatalf("%s: no live table", dir)
	return nil
}

// TestTableOptionSetsAgreeWithUpstream: a database of 20,000 keys in one
// table, damaged as a disk or memory damages one: with LevelDB's default
// options upstream uses a damaged filter block (keys it rejects read as
// missing) and returns a flipped value silently; with paranoid checks it
// ignores the filter and its scan fails. verify counts what upstream
// returns under each.
func TestTableOptionSetsAgreeWithUpstream(t *testing.T) {
	kvs := writes(20000)
	src := filepath.Join(t.TempDir(), "db")
	writeDB(t, src, kvs, false)
	data, err := os.ReadFile(onlyTable(t, src))
	if err != nil {
		t.Fatal(err)
	}
	tb, err := table.Open("t", bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	fh, ok := tb.FilterHandle()
	if !ok {
		t.Fatal("no filter block")
	}
	for _, tc := range []struct {
		name   string
		damage func(b []byte)
	}{
		{"200 zero bytes in the filter block", func(b []byte) {
			mid := fh.Offset + fh.Size/2
			clear(b[mid-100 : mid+100])
		}},
		{"one flipped bit in a value of the first data block", func(b []byte) {
			i := bytes.Index(b, kvs[0].value[:20]) // a snappy literal holds it as written
			if i < 0 || i > 4096 {
				t.Fatalf("the first value is not stored as written in the first block (at %d)", i)
			}
			b[i+10] ^= 0x04
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyDir(t, src)
			p := onlyTable(t, dir)
			b := bytes.Clone(data)
			tc.damage(b)
			writeFile(t, p, b)
			def, par := readUpstream(t, dir, kvs, false), readUpstream(t, dir, kvs, true)
			t.Logf("upstream, defaults: %+v; paranoid: %+v", def, par)
			for _, paranoid := range []bool{false, true} {
				r := verifyTable(t, dir, paranoid)
				u := map[bool]upstreamRead{false: def, true: par}[paranoid]
				if err := agreeTable(r, u, len(kvs)); err != "" {
					t.Errorf("paranoid %v: %s; verify: %s: %s", paranoid, err, r.Verdict, r.Detail())
				}
			}
			if got := readFile(t, p); !bytes.Equal(got, b) {
				t.Error("verify changed the table")
			}
		})
	}
}

// agreeTable says how r, verify's report on a database's one table,
// disagrees with what upstream returns from it, u, or "".
func agreeTable(r *verify.TableReport, u upstreamRead, written int) string {
	switch {
	case u.openErr != "" || u.scanErr != "":
		status := u.openErr + u.scanErr
		if r.Verdict != verify.Unreadable || !strings.Contains(status, strings.TrimPrefix(r.Status, "Corruption: ")) {
			return fmt.Sprintf("upstream fails: %s; want unreadable with that status (%q)", status, r.Status)
		}
		return ""
	case u.wrong+u.extra+u.getWrong > 0 || u.entries != written:
		d := r.Damage
		if r.Verdict != verify.SilentCorruption || d == nil || !d.Known || d.Entries != u.entries || d.WrongValues != u.wrong || d.Extra != u.extra || d.GetsWrong != u.getWrong {
			return fmt.Sprintf("upstream returns %d entries, %d values wrong, %d keys not written, %d Gets wrong; want silent-corruption with those counts (%+v)", u.entries, u.wrong, u.extra, u.getWrong, d)
		}
		return ""
	case u.missing > 0:
		fn := r.FalseNegatives
		if r.Verdict != verify.Mismatch || fn == nil || fn.Rejected != u.missing {
			return fmt.Sprintf("upstream misses %d keys; want a mismatch rejecting as many (%+v)", u.missing, fn)
		}
		return ""
	}
	switch r.Verdict {
	case verify.OK, verify.NoFilter, verify.FilterUnusable, verify.BadChecksum:
		return ""
	}
	return "upstream returns every key right"
}
