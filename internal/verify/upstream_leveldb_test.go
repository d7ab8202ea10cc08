//go:build leveldb

package verify_test

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ldbcompat/ldbcompat/cgo/upstream"
	"github.com/ldbcompat/ldbcompat/internal/filtercheck"
	"github.com/ldbcompat/ldbcompat/internal/fixturegen"
	"github.com/ldbcompat/ldbcompat/internal/fixtures"
	"github.com/ldbcompat/ldbcompat/internal/table"
	"github.com/ldbcompat/ldbcompat/internal/table/tabletest"
	"github.com/ldbcompat/ldbcompat/internal/verify"
	"github.com/ldbcompat/ldbcompat/internal/verify/upstreamdb"
)

// skipLegacy skips a test that asks the linked upstream what 1.23 does
// with a table, when it is v1.4 to v1.17: verify says what 1.23 does, and
// those releases read tables otherwise (their own filter name and hash;
// Table::Open verifying no checksum). TestVerifyReleaseDatabase checks
// verify's verdict on the databases they write.
func skipLegacy(t *testing.T) {
	t.Helper()
	if upstream.LegacyBloom() {
		t.Skipf("verify says what LevelDB 1.23 does; the linked LevelDB %s predates v1.18 and reads tables otherwise (filter %q, plain-char hash, no checksum checks in Table::Open)", upstream.Release(), upstream.BloomName(10))
	}
}

// TestVerifyReleaseDatabase: a database the linked release writes through
// levigo, with a bloom filter of 10 bits/key, over keys whose tail bytes
// are 0x80 and above now and then. verify says every table is ok when the
// release is v1.18 or later; for v1.4 to v1.17 it is old-filter, and the
// filter check names the hash the release wrote it with: signed where
// plain char is (x86), unsigned where not (arm64).
func TestVerifyReleaseDatabase(t *testing.T) {
	dir := t.TempDir()
	info, err := fixturegen.Generate(dir, fixturegen.Options{BitsPerKey: 10, BlockSize: 1024, KeysPerRun: 300, Seed: 21})
	if err != nil {
		t.Fatal(err)
	}
	if len(info.Tables) == 0 {
		t.Fatal("levigo wrote no table")
	}
	want, wantHash := verify.OK, ""
	if upstream.LegacyBloom() {
		want, wantHash = verify.OldFilter, filtercheck.LegacyUnsigned
		if upstream.CharIsSigned() {
			wantHash = filtercheck.LegacySigned
		}
	}
	r := verify.Run([]string{dir}, verify.Options{})
	tables := 0
	for i, rep := range r.Reports {
		if rep == nil || rep.Skipped != "" {
			continue
		}
		tables++
		name := filepath.Base(r.Items[i].Path)
		if rep.Verdict != want {
			t.Errorf("%s: verdict %s (%v), want %s from LevelDB %s", name, rep.Verdict, rep.Err, want, upstream.Release())
			continue
		}
		if wantHash != "" && (rep.Comparison == nil || rep.Comparison.Legacy != wantHash) {
			t.Errorf("%s: old filter's hash %v, want %s (LevelDB %s, plain char signed: %v)", name, rep.Comparison, wantHash, upstream.Release(), upstream.CharIsSigned())
		}
	}
	if tables != len(info.Tables) {
		t.Errorf("verify checked %d tables, levigo wrote %d", tables, len(info.Tables))
	}
	t.Logf("LevelDB %s: %d tables, all %s%s", upstream.Release(), tables, want, map[bool]string{true: " (" + wantHash + " hash)"}[wantHash != ""])
}

// askTable asks upstream about a table (see upstreamdb.AskTable), with
// paranoid checks or LevelDB's default options.
func askTable(t *testing.T, dir string, number, size uint64, c upstream.Comparator, paranoid bool) upstreamdb.Table {
	t.Helper()
	u, err := upstreamdb.AskTableIn(dir, number, size, c, !paranoid)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// upstreamDB is a database to ask upstream about.
type upstreamDB struct {
	name, src  string
	comparator upstream.Comparator
	other      *otherFixture     // for testdata/other
	tables     *fixtures.Info    // for testdata/tables
	expect     map[string]string // live key (hex) -> value, for testdata/other
}

// upstreamDBs lists the databases of testdata/other and testdata/tables.
func upstreamDBs(t *testing.T) []upstreamDB {
	var dbs []upstreamDB
	for _, f := range loadOther(t) {
		f := f
		d := upstreamDB{name: "other/" + f.Name, src: filepath.Join(otherDir, f.Name), other: &f, expect: map[string]string{}}
		if f.Options.ComparatorName != "" {
			// The writer's comparator (tools/other/plyvel_writer.py,
			// reverse_bytewise): bytewise order, reversed.
			if !strings.Contains(f.Call, "reverse_bytewise") {
				t.Fatalf("%s: comparator %s, but the call %q names no reverse_bytewise", f.Name, f.Options.ComparatorName, f.Call)
			}
			d.comparator = upstream.Comparator{Name: f.Options.ComparatorName, Reverse: true}
		}
		for _, kv := range f.Expect.Live {
			d.expect[kv[0]] = kv[1]
		}
		dbs = append(dbs, d)
	}
	tdbs, err := fixtures.Load(os.DirFS("../../testdata/tables"))
	if err != nil {
		t.Fatal(err)
	}
	for _, db := range tdbs {
		dbs = append(dbs, upstreamDB{name: "tables/" + db.Info.Name, src: filepath.Join("../../testdata/tables", db.Dir), tables: db.Info})
	}
	return dbs
}

// TestVerdictsAgreeWithUpstream: for every database of testdata/other and
// testdata/tables, in a copy, upstream LevelDB 1.23 is asked what it does
// (cgo/upstream): VersionSet::Recover with the comparator the fixture
// records, DBImpl::Recover's missing-file check, then for each live table
// TableCache's open and full scan, and a Get of every key of the table,
// recording whether the filter was consulted and whether the key was
// found. verify's verdicts must agree: a database upstream refuses is one
// verify says it cannot open; a table upstream refuses is unreadable, with
// upstream's status; one it reads with its filter is ok, or a mismatch
// whose false negatives are exactly the keys upstream's filter rejected;
// one whose filter it ignores (found under the old name) is old-filter;
// one it reads without a filter is no-filter, other-filter or
// filter-unusable. The exit status follows. Each fixture's recorded
// content is checked against upstream's scan too.
func TestVerdictsAgreeWithUpstream(t *testing.T) {
	skipLegacy(t)
	for _, d := range upstreamDBs(t) {
		t.Run(d.name, func(t *testing.T) {
			dir := copyDir(t, d.src)
			all := agreeWithUpstream(t, dir, d)
			if d.other != nil {
				checkContent(t, d, all)
			}
		})
	}
}

// TestDamageAgreesWithUpstream: the same comparison on copies of a
// database upstream wrote, each damaged in one way: the first filter of a
// table zeroed behind a valid checksum (upstream's filter rejects keys:
// false negatives), a filter block's checksum broken (upstream reads
// without the filter), a data block's checksum broken (the full scan
// fails), a table cut short by a byte (the open fails), a live table
// removed (upstream refuses the database), and a table replaced by another
// of its database's (read at the wrong size).
func TestDamageAgreesWithUpstream(t *testing.T) {
	skipLegacy(t)
	src := "../../testdata/tables/b10-bs4096-none"
	table7 := "000007.ldb"
	// The filter block of table 7 and its first filter, from its format.
	layout := func(t *testing.T, data []byte) (block []byte, blockOff int, first [2]int) {
		fh := filterHandleOf(t, data)
		block = data[fh.Offset : fh.Offset+fh.Size]
		n := len(block)
		arr := int(binary.LittleEndian.Uint32(block[n-5:]))
		start := int(binary.LittleEndian.Uint32(block[arr:]))
		limit := arr
		if (n-5-arr)/4 > 1 {
			limit = int(binary.LittleEndian.Uint32(block[arr+4:]))
		}
		return block, int(fh.Offset), [2]int{start, limit}
	}
	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, dir string)
	}{
		{"first filter zeroed", func(t *testing.T, dir string) {
			p := filepath.Join(dir, table7)
			data := tabletest.ReadFile(t, p)
			block, off, f := layout(t, data)
			clear(block[f[0] : f[1]-1]) // the last byte is k
			fixChecksum(data, off, len(block))
			writeFile(t, p, data)
		}},
		{"filter checksum", func(t *testing.T, dir string) {
			p := filepath.Join(dir, table7)
			data := tabletest.ReadFile(t, p)
			block, _, f := layout(t, data)
			block[f[0]] ^= 0x40
			writeFile(t, p, data)
		}},
		{"data block checksum", func(t *testing.T, dir string) {
			p := filepath.Join(dir, table7)
			data := tabletest.ReadFile(t, p)
			data[20] ^= 0x40
			writeFile(t, p, data)
		}},
		{"cut short", func(t *testing.T, dir string) {
			p := filepath.Join(dir, table7)
			data := tabletest.ReadFile(t, p)
			writeFile(t, p, data[:len(data)-1])
		}},
		{"table removed", func(t *testing.T, dir string) {
			if err := os.Remove(filepath.Join(dir, table7)); err != nil {
				t.Fatal(err)
			}
		}},
		{"table replaced", func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, table7), tabletest.ReadFile(t, filepath.Join(dir, "000012.ldb")))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyDir(t, src)
			tc.damage(t, dir)
			agreeWithUpstream(t, dir, upstreamDB{name: tc.name})
		})
	}
}

func writeFile(t *testing.T, p string, b []byte) {
	t.Helper()
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// fixChecksum rewrites the trailer of the block of n bytes at off.
func fixChecksum(data []byte, off, n int) {
	binary.LittleEndian.PutUint32(data[off+n+1:], table.BlockChecksum(data[off:off+n], data[off+n]))
}

// agreeWithUpstream asks upstream what it does with the database in dir
// and with each of its live tables, and requires verify's verdicts and
// exit status to agree (see TestVerdictsAgreeWithUpstream). It returns
// the entries upstream's scans of the live tables yield (of a table
// upstream refuses, read at its file's size).
func agreeWithUpstream(t *testing.T, dir string, d upstreamDB) []upstream.TableEntry {
	t.Helper()
	agreeIn(t, dir, d, false)
	return agreeIn(t, dir, d, true)
}

// agreeIn is agreeWithUpstream under one option set: paranoid checks, or
// LevelDB's defaults.
func agreeIn(t *testing.T, dir string, d upstreamDB, paranoid bool) []upstream.TableEntry {
	t.Helper()
	rec, err := upstream.RecoverManifestWith(dir, d.comparator)
	if err != nil {
		t.Fatal(err)
	}
	res := verify.Run([]string{dir}, verify.Options{Paranoid: paranoid})
	db := res.Items[0].Database
	if db == nil {
		t.Fatalf("no database: %+v", res.Items[0])
	}
	if d.comparator.Name != "" {
		def, err := upstream.RecoverManifest(dir)
		if err != nil {
			t.Fatal(err)
		}
		if def.Status == "" || def.Status != db.DefaultStatus {
			t.Errorf("default comparator: upstream %q, verify %q", def.Status, db.DefaultStatus)
		}
	}
	// Whether upstream opens the database, and its status when not.
	type opening struct {
		Opens  bool
		Status string
	}
	opens := rec.Status == "" && rec.Missing == ""
	got := opening{Opens: db.Opens()}
	if !got.Opens {
		got.Status = db.Status
	}
	if diff := cmp.Diff(opening{Opens: opens, Status: rec.Status + rec.Missing}, got); diff != "" {
		t.Fatalf("database (verify's error %v) (-upstream +got):\n%s", db.Err, diff)
	}
	if !opens {
		t.Logf("database: upstream refuses it: %s%s", rec.Status, rec.Missing)
	}
	byNumber := map[uint64]*verify.TableReport{}
	live := map[uint64]uint64{} // the size each live table is read at
	for _, r := range res.Reports {
		if r != nil && r.Live != nil {
			byNumber[r.Live.Number] = r
			live[r.Live.Number] = r.Live.Size
		}
	}
	upLive := map[uint64]uint64{}
	for _, f := range rec.Files {
		upLive[f.Number] = f.Size
	}
	if diff := cmp.Diff(upLive, live); diff != "" {
		t.Errorf("live tables, number: size read at (-upstream +got):\n%s", diff)
	}
	code := verify.ExitOK
	if !opens {
		code = verify.ExitError
	}
	var all []upstream.TableEntry
	for _, f := range rec.Files {
		r := byNumber[f.Number]
		if r == nil {
			continue // reported above
		}
		if r.Verdict == verify.Missing {
			if _, err := os.Stat(r.Path); err == nil || opens {
				t.Errorf("table %d: missing, but %s is there or upstream opens the database", f.Number, r.Path)
			}
			t.Logf("%s: upstream refuses the database; verify: %s", filepath.Base(r.Path), r.Verdict)
			continue
		}
		u := askTable(t, dir, f.Number, f.Size, d.comparator, paranoid)
		t.Logf("paranoid %v: %s: upstream %s (%d keys, %d rejected by the filter, %d not found%s); verify: %s", paranoid, filepath.Base(r.Path), u.Class, u.Keys, u.Rejected, u.NotFound,
			map[bool]string{true: ": " + u.Status}[u.Status != ""], r.Verdict)
		if !u.Class.Allows(r.Verdict) {
			t.Errorf("table %d: upstream %s; verify says %s: %s", f.Number, u.Class, r.Verdict, r.Detail())
			continue
		}
		switch u.Class {
		case upstreamdb.Refused:
			code = verify.ExitError
			if r.Status != u.Status {
				t.Errorf("table %d: upstream's status %q; verify's %q", f.Number, u.Status, r.Status)
			}
		case upstreamdb.WithFilter:
			if r.Verdict == verify.SilentCorruption {
				// A damaged data block returns what was not written
				// (TestTableOptionSetsAgreeWithUpstream counts it).
				code = verify.ExitError
				break
			}
			fnGot := 0
			if r.FalseNegatives != nil {
				fnGot = r.FalseNegatives.Rejected
			}
			// A filter whose damage rejects no key is still a
			// mismatch: its bytes are not what the policy writes.
			if fnGot != u.Rejected || u.NotFound != u.Rejected || (u.Rejected > 0) != (r.Verdict == verify.Mismatch) && r.Damage == nil {
				t.Errorf("table %d: upstream's filter rejects %d of %d keys, %d not found; verify: %s with %d false negatives", f.Number, u.Rejected, u.Keys, u.NotFound, r.Verdict, fnGot)
			}
			if u.Rejected > 0 {
				code = max(code, verify.ExitDamage)
			}
		case upstreamdb.Ignored:
			// The old name under upstream 1.23's bloom filter is the
			// unsigned hash: every key found means the unsigned hash (or
			// either) wrote it.
			if u.Rejected == 0 && (r.Verdict != verify.OldFilter || r.Comparison.Legacy == filtercheck.LegacySigned) {
				t.Errorf("table %d: the unsigned hash finds every key; verify: %s (%s)", f.Number, r.Verdict, r.Comparison.Legacy)
			}
			if u.NotFound != 0 {
				t.Errorf("table %d: upstream ignores the filter, yet %d keys not found", f.Number, u.NotFound)
			}
		case upstreamdb.Without:
			if u.NotFound != 0 {
				t.Errorf("table %d: upstream reads without a filter, yet %d keys not found", f.Number, u.NotFound)
			}
		}
		entries := u.Entries
		if u.Class == upstreamdb.Refused && d.other != nil {
			// Read the table at its file's size to check what it holds, as
			// a writer that recorded the right size would have it read.
			fi, err := os.Stat(r.Path)
			if err != nil {
				t.Fatal(err)
			}
			at := askTable(t, dir, f.Number, uint64(fi.Size()), d.comparator, paranoid)
			if at.Class == upstreamdb.Refused {
				t.Errorf("table %d: upstream refuses it at its file's size too: %s", f.Number, at.Status)
			}
			entries = at.Entries
		}
		all = append(all, entries...)
		if d.tables != nil {
			checkRecorded(t, d.tables, filepath.Base(r.Path), entries)
		}
	}
	if got := res.Summary.ExitCode(); got != code && !(got == verify.ExitDamage && code == verify.ExitOK && hasDamage(res)) {
		t.Errorf("paranoid %v: exit %d; upstream's answers give %d", paranoid, got, code)
	}
	return all
}

// hasDamage tells whether a verdict is a mismatch or filter-unusable, which
// upstream's answers cannot tell from ok or no-filter when no key is lost.
func hasDamage(res *verify.RunResult) bool {
	for _, r := range res.Reports {
		if r != nil && (r.Verdict == verify.Mismatch || r.Verdict == verify.FilterUnusable || r.Verdict == verify.BadChecksum) {
			return true
		}
	}
	return false
}

// checkRecorded compares upstream's scan of a table of testdata/tables with
// its entries and deletions as recorded in the fixture's JSON.
func checkRecorded(t *testing.T, info *fixtures.Info, file string, entries []upstream.TableEntry) {
	t.Helper()
	for _, tb := range info.Tables {
		if tb.File != file {
			continue
		}
		deletions := 0
		for _, e := range entries {
			if e.Key[len(e.Key)-8] == 0 {
				deletions++
			}
		}
		if len(entries) != tb.Entries || deletions != tb.Deletions {
			t.Errorf("%s: upstream scans %d entries, %d deletions; recorded %d, %d", file, len(entries), deletions, tb.Entries, tb.Deletions)
		}
		return
	}
	t.Errorf("%s: not recorded in %s.json", file, info.Name)
}

// checkContent compares what upstream's scans of a database's live tables
// hold, the newest entry of each user key (highest sequence number)
// deciding, with what the fixture's JSON expects: every live key with its
// value, every deleted key absent, and nothing else. The fixtures' logs
// are empty, so the tables hold everything.
func checkContent(t *testing.T, d upstreamDB, all []upstream.TableEntry) {
	t.Helper()
	for _, f := range d.other.Files {
		if strings.HasSuffix(f.Name, ".log") && f.Size != 0 {
			t.Logf("%s holds %d bytes: content not checked", f.Name, f.Size)
			return
		}
	}
	type version struct {
		seq   uint64
		value []byte
		del   bool
	}
	newest := map[string]version{}
	for _, e := range all {
		if !e.ParsesAsInternalKey {
			t.Errorf("entry %x does not parse", e.Key)
			continue
		}
		u := hex.EncodeToString(e.Key[:len(e.Key)-8])
		tag := binary.LittleEndian.Uint64(e.Key[len(e.Key)-8:])
		if v, ok := newest[u]; !ok || tag>>8 > v.seq {
			newest[u] = version{seq: tag >> 8, value: e.Value, del: tag&0xff == 0}
		}
	}
	var live []string
	for k, v := range newest {
		if !v.del {
			live = append(live, k)
			if want, ok := d.expect[k]; !ok || want != string(v.value) {
				t.Errorf("key %s: upstream reads %q; expected %q (recorded: %v)", k, v.value, want, ok)
			}
		}
	}
	for _, k := range d.other.Expect.Deleted {
		if v, ok := newest[k]; ok && !v.del {
			t.Errorf("deleted key %s: upstream reads %q", k, v.value)
		}
	}
	sort.Strings(live)
	if len(live) != len(d.expect) {
		t.Errorf("upstream reads %d live keys; %d expected", len(live), len(d.expect))
	}
	t.Logf("content: %d live keys, %d deleted, as recorded", len(live), len(d.other.Expect.Deleted))
}

// filterHandleOf is the handle of the filter block of the table data.
func filterHandleOf(t *testing.T, data []byte) table.BlockHandle {
	t.Helper()
	tb, err := table.Open("t", bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	fh, ok := tb.FilterHandle()
	if !ok {
		t.Fatal("no filter block")
	}
	return fh
}
