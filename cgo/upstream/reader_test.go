//go:build leveldb

package upstream

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ldbcompat/ldbcompat/internal/fixtures"
)

// loadFixtures returns the metadata of every database in testdata/tables.
func loadFixtures(t *testing.T) []*fixtures.Info {
	t.Helper()
	dbs, err := fixtures.Load(os.DirFS("../../testdata/tables"))
	if err != nil || len(dbs) == 0 {
		t.Fatalf("fixtures in testdata/tables: %d, %v", len(dbs), err)
	}
	var infos []*fixtures.Info
	for _, db := range dbs {
		infos = append(infos, db.Info)
	}
	return infos
}

// lookupKey is LevelDB's LookupKey internal key for user key u: the
// largest sequence number and kValueTypeForSeek (db/dbformat.h).
func lookupKey(u []byte) []byte {
	return binary.LittleEndian.AppendUint64(append([]byte(nil), u...), (1<<56-1)<<8|1)
}

// TestReadTableFixtures reads the tables upstream wrote: every entry
// recorded comes back, every key parses, and a Get of each user key finds
// it with the filter consulted once and answering yes; under another
// policy name the filter is not found, so no Get consults it.
//
// The fixtures are 1.23's tables, with leveldb.BuiltinBloomFilter2
// filters. A policy of that name in v1.4 to v1.17 reads them with that
// release's hash, which differs from 1.23's where plain char is signed: no
// such release ever reads them so (it looks up leveldb.BuiltinBloomFilter),
// and that half is skipped there.
func TestReadTableFixtures(t *testing.T) {
	for _, name := range []string{"leveldb.BuiltinBloomFilter2", "other.Policy"} {
		t.Run(name, func(t *testing.T) {
			if name == "leveldb.BuiltinBloomFilter2" && libHashSignedTail() {
				t.Skipf("LevelDB %s hashes tail bytes as signed char here: its bloom filter under 1.23's name misreads 1.23's filters, a pairing no release makes", Release())
			}
			readTableFixtures(t, name)
		})
	}
}

func readTableFixtures(t *testing.T, name string) {
	for _, f := range loadFixtures(t) {
		dir := tableDir(t, filepath.Join("../../testdata/tables", f.Name))
		for _, tb := range f.Tables {
			var num uint64
			if _, err := fmtSscan(strings.TrimSuffix(tb.File, ".ldb"), &num); err != nil {
				t.Fatal(err)
			}
			first, err := ReadTable(dir, num, uint64(tb.Size), TableOptions{PolicyName: name, BitsPerKey: f.BitsPerKey})
			if err != nil {
				t.Fatal(err)
			}
			if first.OpenStatus != "" || first.ScanStatus != "" || len(first.Entries) != tb.Entries {
				t.Fatalf("%s/%s: open %q scan %q, %d entries; recorded %d", f.Name, tb.File, first.OpenStatus, first.ScanStatus, len(first.Entries), tb.Entries)
			}
			var lookups [][]byte
			for i, e := range first.Entries {
				if !e.ParsesAsInternalKey {
					t.Fatalf("%s/%s: entry %d does not parse", f.Name, tb.File, i)
				}
				if i%7 == 0 {
					lookups = append(lookups, lookupKey(e.Key[:len(e.Key)-8]))
				}
			}
			r, err := ReadTable(dir, num, uint64(tb.Size), TableOptions{PolicyName: name, BitsPerKey: f.BitsPerKey, Lookups: lookups})
			if err != nil {
				t.Fatal(err)
			}
			for i, g := range r.Gets {
				u := lookups[i][:len(lookups[i])-8]
				if !g.Found || g.Status != "" || !strings.HasPrefix(string(g.Key), string(u)) {
					t.Fatalf("%s/%s: Get(%x) = %+v", f.Name, tb.File, u, g)
				}
				wantCalls := 1
				if name != "leveldb.BuiltinBloomFilter2" {
					wantCalls = 0
				}
				if len(g.FilterCalls) != wantCalls || (wantCalls == 1 && !g.FilterCalls[0]) {
					t.Fatalf("%s/%s: Get(%x) with policy %s: filter calls %v", f.Name, tb.File, u, name, g.FilterCalls)
				}
			}
		}
	}
}

// TestReadTableSizes: the size passed is the MANIFEST's; a larger one
// reads past the end of the memory-mapped file, a missing table is an IO
// error, and a table found only as NNNNNN.sst is read.
func TestReadTableSizes(t *testing.T) {
	src := "../../testdata/tables/b10-bs4096-none/000007.ldb"
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "000007.sst"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	o := TableOptions{PolicyName: "leveldb.BuiltinBloomFilter2", BitsPerKey: 10}
	r, err := ReadTable(dir, 7, uint64(len(data)), o)
	if err != nil || r.OpenStatus != "" || r.ScanStatus != "" || len(r.Entries) == 0 {
		t.Fatalf(".sst: %+v, %v", r, err)
	}
	r, _ = ReadTable(dir, 7, uint64(len(data))+1, o)
	if !strings.HasPrefix(r.OpenStatus, "IO error: ") || !strings.HasSuffix(r.OpenStatus, ": Invalid argument") {
		t.Errorf("size one too large: open status %q", r.OpenStatus)
	}
	// v1.14 added .ldb, and tries it first; before, only .sst.
	_, minor := Version()
	missing := "000008.ldb: No such file or directory"
	if minor <= 13 {
		missing = "000008.sst: No such file or directory"
	}
	r, _ = ReadTable(dir, 8, uint64(len(data)), o)
	if !strings.Contains(r.OpenStatus, missing) {
		t.Errorf("missing table: open status %q, want it to say %q", r.OpenStatus, missing)
	}
	// v1.18 made a short file a corruption; it was an invalid argument.
	short := "Corruption: file is too short to be an sstable"
	if minor <= 17 {
		short = "Invalid argument: file is too short to be an sstable"
	}
	r, _ = ReadTable(dir, 7, 47, o)
	if r.OpenStatus != short {
		t.Errorf("size 47: open status %q, want %q", r.OpenStatus, short)
	}
}

// TestRecoverManifestFixtures: upstream recovers the versions of the
// databases it wrote, whose live tables are the .ldb files left in them
// (renamed .sst for v1.4 to v1.13, whose missing-table check knows no
// .ldb).
func TestRecoverManifestFixtures(t *testing.T) {
	for _, f := range loadFixtures(t) {
		dir := tableDir(t, filepath.Join("../../testdata/tables", f.Name))
		r, err := RecoverManifest(dir)
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != "" || r.Missing != "" {
			t.Fatalf("%s: %+v", f.Name, r)
		}
		got := map[string]uint64{}
		for _, mf := range r.Files {
			got[fmtFile(mf.Number)] = mf.Size
		}
		want := map[string]uint64{}
		for _, tb := range f.Tables {
			want[tb.File] = uint64(tb.Size)
		}
		if len(got) != len(want) {
			t.Fatalf("%s: files %v, want %v", f.Name, got, want)
		}
		for k, v := range want {
			if got[k] != v {
				t.Fatalf("%s: files %v, want %v", f.Name, got, want)
			}
		}
		if r.NextFile == 0 || r.LastSequence == 0 {
			t.Errorf("%s: %+v", f.Name, r)
		}
	}
	r, err := RecoverManifest(t.TempDir())
	if err != nil || !strings.Contains(r.Status, "CURRENT: No such file or directory") {
		t.Errorf("empty directory: %+v, %v", r, err)
	}
}

// tableDir returns dir, a database directory whose tables are NNNNNN.ldb,
// as the linked release can read its tables: v1.4 to v1.13 open only
// NNNNNN.sst (v1.14 introduced .ldb), so for them a copy with the tables
// renamed.
func tableDir(t *testing.T, dir string) string {
	t.Helper()
	if _, minor := Version(); minor >= 14 {
		return dir
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	cp := t.TempDir()
	for _, e := range ents {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		name := e.Name()
		if base, ok := strings.CutSuffix(name, ".ldb"); ok {
			name = base + ".sst"
		}
		if err := os.WriteFile(filepath.Join(cp, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return cp
}

func fmtSscan(s string, v *uint64) (n int, err error) {
	*v, err = strconv.ParseUint(s, 10, 64)
	return 1, err
}

func fmtFile(n uint64) string { return fmt.Sprintf("%06d.ldb", n) }

// TestComparator: the database plyvel wrote with a comparator of its own
// (testdata/other/plyvel-reverse-comparator, keys in reverse bytewise
// order, named ldbcompat.ReverseBytewise) is refused with the default
// comparator and recovered with one of that name; its tables, read with
// that comparator, find every key they hold, and with the bytewise one
// (which seeks the index in the wrong order) miss some.
func TestComparator(t *testing.T) {
	const name = "ldbcompat.ReverseBytewise"
	dir := tableDir(t, "../../testdata/other/plyvel-reverse-comparator")
	r, err := RecoverManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := Reword("Invalid argument: " + name + " does not match existing comparator : leveldb.BytewiseComparator"); r.Status != want {
		t.Errorf("default comparator: status %q, want %q", r.Status, want)
	}
	rev := Comparator{Name: name, Reverse: true}
	r, err = RecoverManifestWith(dir, rev)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != "" || r.Missing != "" || len(r.Files) == 0 {
		t.Fatalf("%s: %+v", name, r)
	}
	for _, f := range r.Files {
		// The release's own filter: plyvel wrote 1.23's, which v1.4 to
		// v1.17 do not read (another name), so their Gets go without.
		scan, err := ReadTable(dir, f.Number, f.Size, TableOptions{PolicyName: BloomName(10), BitsPerKey: 10, Comparator: rev})
		if err != nil {
			t.Fatal(err)
		}
		var lookups [][]byte
		for _, e := range scan.Entries {
			lookups = append(lookups, e.Key)
		}
		missed := map[bool]int{}
		for _, reverse := range []bool{true, false} {
			o := TableOptions{PolicyName: BloomName(10), BitsPerKey: 10, Lookups: lookups, Comparator: Comparator{Name: name, Reverse: reverse}}
			got, err := ReadTable(dir, f.Number, f.Size, o)
			if err != nil {
				t.Fatal(err)
			}
			for i, g := range got.Gets {
				if !g.Found || string(g.Key) != string(lookups[i]) || g.Status != "" {
					missed[reverse]++
				}
			}
		}
		if len(lookups) == 0 || missed[true] != 0 || missed[false] == 0 {
			t.Errorf("table %d: %d keys; %d missed in reverse order, %d in bytewise order", f.Number, len(lookups), missed[true], missed[false])
		}
	}
}

// TestReadTableDefaults: one flipped bit in the first value of an
// uncompressed table upstream wrote. With paranoid_checks and
// verify_checksums the scan reports the block's checksum mismatch and
// yields none of its entries; with LevelDB's default options it yields
// every entry, that value with the bit flipped, and no error.
func TestReadTableDefaults(t *testing.T) {
	src := "../../testdata/tables/b10-bs4096-none/000007.ldb"
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	// The first entry of the first data block stores its whole key: 0,
	// the key's length and the value's, one byte each when under 128.
	if data[0] != 0 || data[1] >= 0x80 || data[2] >= 0x80 || data[2] == 0 {
		t.Fatalf("%s: first entry starts % x; want three one-byte lengths and a value", src, data[:3])
	}
	at := 3 + int(data[1])
	dir := t.TempDir()
	file := filepath.Join(dir, "000007.ldb")
	if _, minor := Version(); minor <= 13 {
		file = filepath.Join(dir, "000007.sst")
	}
	clean := TableOptions{PolicyName: "leveldb.BuiltinBloomFilter2", BitsPerKey: 10}
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	want, err := ReadTable(dir, 7, uint64(len(data)), clean)
	if err != nil || want.ScanStatus != "" || len(want.Entries) == 0 {
		t.Fatalf("intact table: %+v, %v", want, err)
	}
	damaged := append([]byte(nil), data...)
	damaged[at] ^= 0x10
	if err := os.WriteFile(file, damaged, 0o644); err != nil {
		t.Fatal(err)
	}
	paranoid, err := ReadTable(dir, 7, uint64(len(data)), clean)
	if err != nil {
		t.Fatal(err)
	}
	if paranoid.ScanStatus != "Corruption: block checksum mismatch" || len(paranoid.Entries) >= len(want.Entries) {
		t.Errorf("paranoid: scan status %q, %d entries of %d", paranoid.ScanStatus, len(paranoid.Entries), len(want.Entries))
	}
	o := clean
	o.Defaults = true
	got, err := ReadTable(dir, 7, uint64(len(data)), o)
	if err != nil {
		t.Fatal(err)
	}
	if got.OpenStatus != "" || got.ScanStatus != "" || len(got.Entries) != len(want.Entries) {
		t.Fatalf("defaults: open %q, scan %q, %d entries; want %d", got.OpenStatus, got.ScanStatus, len(got.Entries), len(want.Entries))
	}
	for i, e := range got.Entries {
		w := append([]byte(nil), want.Entries[i].Value...)
		if i == 0 {
			w[0] ^= 0x10
		}
		if string(e.Key) != string(want.Entries[i].Key) || string(e.Value) != string(w) {
			t.Fatalf("defaults: entry %d is %q=%q; want %q=%q", i, e.Key, e.Value, want.Entries[i].Key, w)
		}
	}
}

// Reword's rules are the linked release's own words: a table too short to
// be one, and a CURRENT naming a MANIFEST that does not exist.
func TestReword(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "000007.sst"), make([]byte, 47), 0o644); err != nil { // every release reads .sst
		t.Fatal(err)
	}
	r, err := ReadTable(dir, 7, 47, TableOptions{PolicyName: BloomName(10), BitsPerKey: 10})
	if err != nil {
		t.Fatal(err)
	}
	if want := Reword("Corruption: file is too short to be an sstable"); r.OpenStatus != want {
		t.Errorf("short table: upstream %q, Reword %q", r.OpenStatus, want)
	}
	if err := os.WriteFile(filepath.Join(dir, "CURRENT"), []byte("MANIFEST-000003\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := RecoverManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "MANIFEST-000003")
	if want := Reword("Corruption: CURRENT points to a non-existent file: NotFound: " + path + ": No such file or directory"); m.Status != want {
		t.Errorf("missing MANIFEST: upstream %q, Reword %q", m.Status, want)
	}
	if got := Reword("Corruption: bad block type"); got != "Corruption: bad block type" {
		t.Errorf("Reword changed a status every release words alike: %q", got)
	}
}
