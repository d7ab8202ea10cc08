//go:build leveldb

package bench

import (
	"crypto/sha256"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jmhodges/levigo"

	"github.com/ldbcompat/ldbcompat/cgo/upstream"
)

// dirDigest maps each file of dir to its contents' digest.
func dirDigest(t *testing.T, dir string) map[string][32]byte {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	d := map[string][32]byte{}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		d[e.Name()] = sha256.Sum256(b)
	}
	return d
}

// TestScanSmallDB writes a small-keys database, then checks that
// upstream.TimeDBScan over a linkCopy of it reads what levigo's own
// iterator reads (entries and bytes), and that the database itself is left
// as it was.
func TestScanSmallDB(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	if err := WriteSmallDB(dir, 20000); err != nil {
		t.Fatal(err)
	}
	before := dirDigest(t, dir)

	// What upstream's C API reads, through levigo, on a copy of its own.
	ref, cleanRef, err := linkCopy(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer cleanRef()
	opts := levigo.NewOptions()
	defer opts.Close()
	db, err := levigo.Open(ref, opts)
	if err != nil {
		t.Fatal(err)
	}
	ro := levigo.NewReadOptions()
	it := db.NewIterator(ro)
	var wantEntries, wantBytes uint64
	for it.SeekToFirst(); it.Valid(); it.Next() {
		wantEntries++
		wantBytes += uint64(len(it.Key()) + len(it.Value()))
	}
	if err := it.GetError(); err != nil {
		t.Fatal(err)
	}
	it.Close()
	ro.Close()
	db.Close()
	// 20000 puts of random keys of 1 to 30 bytes: the one-byte keys (1 in
	// 30 puts, 256 possible) repeat, so fewer entries than puts.
	if wantEntries >= 20000 || wantEntries < 19000 {
		t.Fatalf("levigo reads %d entries of 20000 puts", wantEntries)
	}

	scanDir, cleanup, err := linkCopy(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	for round := 0; round < 2; round++ { // the second Open reads what the first wrote
		s, err := upstream.TimeDBScan(scanDir)
		if err != nil {
			t.Fatal(err)
		}
		if s.Entries != wantEntries || s.Bytes != wantBytes {
			t.Errorf("round %d: TimeDBScan read %d entries, %d bytes; levigo %d, %d",
				round, s.Entries, s.Bytes, wantEntries, wantBytes)
		}
		if s.CPU <= 0 || s.Wall <= 0 {
			t.Errorf("round %d: CPU %v, wall %v", round, s.CPU, s.Wall)
		}
	}
	after := dirDigest(t, dir)
	if len(after) != len(before) {
		t.Fatalf("the database's files changed: %d before, %d after", len(before), len(after))
	}
	for name, d := range before {
		if after[name] != d {
			t.Errorf("%s changed", name)
		}
	}
}

// TestScanMissingDB checks that a directory without a database is an
// error naming it, not an empty scan: the scan must not create one.
func TestScanMissingDB(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nothing")
	_, err := upstream.TimeDBScan(dir)
	if err == nil || !strings.Contains(err.Error(), dir) {
		t.Fatalf("TimeDBScan(%s) = %v, want an error naming it", dir, err)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Errorf("TimeDBScan created %s", dir)
	}
}

// TestScanBrokenDB checks that a scan upstream fails is an error naming the
// directory: a database whose CURRENT names a MANIFEST that is not there.
func TestScanBrokenDB(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "CURRENT"), []byte("MANIFEST-000009\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := upstream.TimeDBScan(dir)
	if err == nil || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "MANIFEST-000009") {
		t.Fatalf("TimeDBScan(%s) = %v, want upstream's error naming the directory and the MANIFEST", dir, err)
	}
}
