//go:build leveldb

package verify_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/jmhodges/levigo"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/cgo/upstream"
	"github.com/ldbcompat/ldbcompat/internal/fixturegen"
	"github.com/ldbcompat/ldbcompat/internal/table"
	"github.com/ldbcompat/ldbcompat/internal/table/tabletest"
	"github.com/ldbcompat/ldbcompat/internal/verify"
	"github.com/ldbcompat/ldbcompat/internal/verify/upstreamdb"
)

// Upstream's own corruption cases (db/corruption_test.cc), on databases
// at rest: each database is built as the C++ test builds it (its Build,
// Key and Value), through levigo with its options, closed, and damaged as
// its Corrupt damages it. Upstream itself then opens copies under LevelDB's
// defaults and under paranoid checks: where the C++ test states numbers
// (Check(min, max)), upstream must give them here too, so the case is
// theirs; and verify, under each option set, must say what upstream does.
//
// Cases left out: Recovery is TestLogOptionSetsAgreeWithUpstream's;
// RecoverWriteError and NewFileErrorDuringWrite need a fault-injecting
// Env, nothing at rest; TableFileRepair is about what RepairDB salvages
// from a damaged table, which verify does not predict (it says what an
// open does). MissingDescriptor, SequenceNumberRecovery and
// CorruptedDescriptor end in RepairDB too: here verify judges the database
// before the repair (what an open does with it) and after (that upstream's
// repair leaves a database it opens, with the sequence number recovered).

// ctValueSize is db/corruption_test.cc's kValueSize.
const ctValueSize = 1000

// ctKey is db/corruption_test.cc's Key(i): i in 16 decimal digits.
func ctKey(i int) []byte { return []byte(fmt.Sprintf("%016d", i)) }

// ctValue is db/corruption_test.cc's Value(i): test::RandomString over
// util/random.h's Random seeded with i, 1000 bytes from ' ' to '~'.
func ctValue(i int) []byte {
	seed := uint32(i) & 0x7fffffff
	if seed == 0 || seed == 2147483647 {
		seed = 1
	}
	v := make([]byte, ctValueSize)
	for j := range v {
		seed = uint32(uint64(seed) * 16807 % 2147483647) // Random::Next
		v[j] = byte(' ' + seed%95)
	}
	return v
}

// ctKVs are the writes of Build(n).
func ctKVs(n int) []kv {
	out := make([]kv, n)
	for i := range out {
		out[i] = kv{ctKey(i), ctValue(i)}
	}
	return out
}

// ctNew starts a test of db/corruption_test.cc: skipped under a legacy
// LevelDB, it creates a database in a new directory, src.
func ctNew(t *testing.T) (src string, db *fixturegen.DB) {
	t.Helper()
	skipLegacy(t)
	src = filepath.Join(t.TempDir(), "db")
	return src, ctOpen(t, src, true, false, nil)
}

// ctOpen opens dir with upstream through levigo as the C++ test's options_
// do: LevelDB's defaults (no filter policy), paranoid checks when asked,
// and setup's changes. Its tiny block cache is left out: it changes no
// byte on disk.
func ctOpen(t *testing.T, dir string, create, paranoid bool, setup func(*levigo.Options)) *fixturegen.DB {
	t.Helper()
	db, err := fixturegen.Open(dir, -1, func(o *levigo.Options) {
		o.SetCreateIfMissing(create)
		o.SetParanoidChecks(paranoid)
		if setup != nil {
			setup(o)
		}
	})
	if err != nil {
		t.Fatalf("opening %s: %v", dir, err)
	}
	return db
}

// ctBuild is the C++ test's Build(n): Key(i), Value(i) for i below n, one
// write each, the last one synced.
func ctBuild(t *testing.T, db *fixturegen.DB, n int) {
	t.Helper()
	wo := levigo.NewWriteOptions()
	defer wo.Close()
	for i := 0; i < n; i++ {
		wo.SetSync(i == n-1)
		if err := db.Put(wo, ctKey(i), ctValue(i)); err != nil {
			t.Fatal(err)
		}
	}
}

// ctPut writes key with value through upstream, with the default write
// options.
func ctPut(t *testing.T, db *fixturegen.DB, key, value []byte) {
	t.Helper()
	wo := levigo.NewWriteOptions()
	defer wo.Close()
	if err := db.Put(wo, key, value); err != nil {
		t.Fatal(err)
	}
}

// ctFlush is DBImpl::TEST_CompactMemTable through the public API:
// DBImpl::CompactRange always flushes the memtable first, and then
// compacts only the tables overlapping its range, which a range above
// every key the tests write (digits) leaves none of.
func ctFlush(db *fixturegen.DB) {
	db.CompactRange(levigo.Range{Start: []byte{0xff}, Limit: []byte{0xff}})
}

// ctFilesAtLevels returns leveldb.num-files-at-levelN for levels 0 to 6.
func ctFilesAtLevels(db *fixturegen.DB) string {
	var s []string
	for l := 0; l < 7; l++ {
		s = append(s, db.PropertyValue(fmt.Sprintf("leveldb.num-files-at-level%d", l)))
	}
	return strings.Join(s, ",")
}

// The file types Corrupt picks among (db/filename.cc ParseFileName).
var (
	ctTableFile      = regexp.MustCompile(`^([0-9]+)\.(ldb|sst)$`)
	ctDescriptorFile = regexp.MustCompile(`^MANIFEST-([0-9]+)$`)
)

// ctCorrupt is the C++ test's Corrupt(filetype, offset, bytes_to_corrupt):
// of the files of that type, the one with the highest number; a negative
// offset counts from its end (0 when before its start); the bytes clipped
// to the file; each one xored with 0x80. It returns what it damaged: the
// file's path and its contents before.
func ctCorrupt(t *testing.T, dir string, filetype *regexp.Regexp, offset, n int) ctDamaged {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	picked, path := -1, ""
	for _, e := range ents {
		m := filetype.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		if num, err := strconv.Atoi(m[1]); err == nil && num > picked {
			picked, path = num, filepath.Join(dir, e.Name())
		}
	}
	if path == "" {
		t.Fatalf("%s: no file matches %s", dir, filetype)
	}
	b := tabletest.ReadFile(t, path)
	before := bytes.Clone(b)
	size := len(b)
	if offset < 0 {
		if -offset > size {
			offset = 0
		} else {
			offset += size
		}
	}
	offset = min(offset, size)
	n = min(n, size-offset)
	for i := 0; i < n; i++ {
		b[offset+i] ^= 0x80
	}
	writeFile(t, path, b)
	return ctDamaged{path, before}
}

// ctDamaged is a file ctCorrupt damaged, and its contents before.
type ctDamaged struct {
	path   string
	before []byte
}

// ctIntact copies dir, with each file of damaged as it was before: the
// database as it would be but for the damage.
func ctIntact(t *testing.T, dir string, damaged ...ctDamaged) string {
	t.Helper()
	out := copyDir(t, dir)
	for _, d := range damaged {
		writeFile(t, filepath.Join(out, filepath.Base(d.path)), d.before)
	}
	return out
}

// ctChecked is what the C++ test's Check counts from a full scan of the
// database, with the iterator's status after it.
type ctChecked struct {
	openErr                                  string
	correct, badKeys, badValues, missed, all int
	scanErr                                  string
}

// ctCheck opens a copy of dir with upstream under one option set (reads
// verify checksums under paranoid checks) and counts its full scan as the
// C++ test's Check does: keys that are not 16 decimal digits above the
// last are bad, gaps are missed, values not Value(key) are bad. Upstream's
// statuses name dir, not the copy.
func ctCheck(t *testing.T, dir string, paranoid bool) ctChecked {
	t.Helper()
	var c ctChecked
	cp := copyDir(t, dir) // upstream's open writes: never into dir
	db, err := fixturegen.Open(cp, -1, func(o *levigo.Options) { o.SetParanoidChecks(paranoid) })
	if err != nil {
		c.openErr = strings.ReplaceAll(err.Error(), cp, dir)
		return c
	}
	defer db.Close()
	ro := levigo.NewReadOptions()
	defer ro.Close()
	ro.SetVerifyChecksums(paranoid)
	it := db.NewIterator(ro)
	defer it.Close()
	next := uint64(0)
	for it.SeekToFirst(); it.Valid(); it.Next() {
		c.all++
		k := string(it.Key())
		if k == "" || k == "~" {
			continue
		}
		n, err := strconv.ParseUint(k, 10, 64) // ConsumeDecimalNumber, and nothing after
		if err != nil || k[0] == '+' || k[0] == '-' || n < next {
			c.badKeys++
			continue
		}
		c.missed += int(n - next)
		next = n + 1
		if !bytes.Equal(it.Value(), ctValue(int(n))) {
			c.badValues++
		} else {
			c.correct++
		}
	}
	if err := it.GetError(); err != nil {
		c.scanErr = strings.ReplaceAll(err.Error(), cp, dir)
	}
	return c
}

// ctWant requires upstream's Check under LevelDB's defaults (the C++
// test's options) to count between lo and hi entries correct.
func ctWant(t *testing.T, dir string, lo, hi int) {
	t.Helper()
	c := ctCheck(t, dir, false)
	t.Logf("upstream's Check with LevelDB's defaults: %+v", c)
	if c.openErr != "" || c.correct < lo || c.correct > hi {
		t.Errorf("upstream: %+v; db/corruption_test.cc's Check(%d, %d) wants %d..%d correct", c, lo, hi, lo, hi)
	}
}

// ctReports runs verify on dir under one option set: the database, and
// its live tables' reports by number.
func ctReports(t *testing.T, dir string, paranoid bool) (*verify.RunResult, *verify.Database, map[uint64]*verify.TableReport) {
	t.Helper()
	res := verify.Run([]string{dir}, verify.Options{Paranoid: paranoid})
	var db *verify.Database
	tables := map[uint64]*verify.TableReport{}
	for i, it := range res.Items {
		if it.Database != nil && db == nil {
			db = it.Database
		}
		if r := res.Reports[i]; r != nil && r.Live != nil {
			tables[r.Live.Number] = r
		}
	}
	if db == nil {
		t.Fatalf("%s: verify finds no database", dir)
	}
	return res, db, tables
}

// tableRead is what upstream returns from one table read as a live table
// (upstream.ReadTable: TableCache, the full scan, a Get of each entry
// written) under one option set, against the same table intact.
type tableRead struct {
	status string // the open's or the scan's, "" when both succeed
	// As verify's Damage counts them: the scan's entries, and of the
	// entries written those it returns with another value or not at
	// all, the entries it returns that were not written; the Gets of the
	// keys written that find no entry of the key, or another value.
	entries, wrong, missing, extra, getsMissing, getsWrong int
}

func (u tableRead) harm() bool {
	return u.wrong+u.missing+u.extra+u.getsMissing+u.getsWrong > 0
}

// askDamagedTable reads table number, of size bytes, in intact (the database
// before the damage) and in dir (after it) with upstream, under one option
// set, and compares. The Gets use a filter policy whose name no
// metaindex holds, so that they are judged without the filter, as
// verify's Damage judges them (a damaged filter is the filter check's).
func askDamagedTable(t *testing.T, intact, dir string, number, size uint64, paranoid bool) tableRead {
	t.Helper()
	o := upstream.TableOptions{PolicyName: "ldbcompat.NoSuchPolicy", BitsPerKey: 10, Defaults: !paranoid}
	w, err := upstream.ReadTable(intact, number, size, o)
	if err != nil || w.OpenStatus != "" || w.ScanStatus != "" {
		t.Fatalf("upstream cannot read table %d as written: %v %+v", number, err, w)
	}
	want := map[string][]byte{}
	for _, e := range w.Entries {
		want[string(e.Key)] = e.Value
		o.Lookups = append(o.Lookups, e.Key)
	}
	d, err := upstream.ReadTable(dir, number, size, o)
	if err != nil {
		t.Fatal(err)
	}
	var u tableRead
	if u.status = d.OpenStatus; u.status == "" {
		u.status = d.ScanStatus
	}
	if u.status != "" {
		return u
	}
	seen := map[string]bool{}
	for _, e := range d.Entries {
		u.entries++
		v, ok := want[string(e.Key)]
		switch {
		case !ok || seen[string(e.Key)]:
			u.extra++
		case !bytes.Equal(v, e.Value):
			u.wrong++
		}
		seen[string(e.Key)] = true
	}
	for i, k := range o.Lookups {
		if !seen[string(k)] {
			u.missing++
		}
		g := d.Gets[i]
		switch {
		case !g.Found || g.Status != "" || !bytes.Equal(g.Key, k):
			u.getsMissing++
		case !bytes.Equal(g.Value, want[string(k)]):
			u.getsWrong++
		}
	}
	return u
}

// agreeDamage says how verify's report on a table disagrees with what
// upstream returns from it, u, or "". A table upstream refuses is
// unreadable with upstream's status; one it returns wrongly is
// silent-corruption, with upstream's counts when verify knows the table
// as written (one flipped bit explains each damaged block) and with
// nothing more when it does not (allowed only where unknownOK: damage no
// single flipped bit explains); one it returns right is harmless.
func agreeDamage(r *verify.TableReport, u tableRead, unknownOK bool) string {
	d := r.Damage
	switch {
	case u.status != "":
		if r.Verdict != verify.Unreadable || upstream.Reword(r.Status) != u.status {
			return fmt.Sprintf("upstream refuses it: %s; want unreadable with that status (%q)", u.status, r.Status)
		}
	case u.harm() && d != nil && !d.Known && unknownOK:
		// What the scan returns is counted even so; which of it is
		// right is not.
		if r.Verdict != verify.SilentCorruption || d.Entries != u.entries {
			return fmt.Sprintf("upstream returns what was not written (%+v); want silent-corruption, counting the scan's entries (%+v)", u, d)
		}
	case u.harm():
		if r.Verdict != verify.SilentCorruption || d == nil || !d.Known || d.Entries != u.entries || d.WrongValues != u.wrong ||
			d.Missing != u.missing || d.Extra != u.extra || d.GetsMissing != u.getsMissing || d.GetsWrong != u.getsWrong {
			return fmt.Sprintf("upstream returns what was not written (%+v); want silent-corruption with those counts (%+v)", u, d)
		}
	case !harmless(r.Verdict):
		return fmt.Sprintf("upstream returns every entry as written (%+v)", u)
	}
	return ""
}

// harmless tells whether a verdict says upstream returns every entry as
// written (with or without its filter; a block may fail its checksum).
func harmless(v verify.Verdict) bool {
	switch v {
	case verify.OK, verify.OldFilter, verify.NoFilter, verify.OtherFilter, verify.FilterUnusable, verify.BadChecksum:
		return true
	}
	return false
}

// agreeFilter says how verify's report on a table disagrees with what
// upstream does with its filter (upstreamdb.AskTableIn: whether its Gets
// consult the filter upstream looks up, and how many that rejects), or "".
// The verdict from the filter alone is the one to compare where damage
// replaced it.
func agreeFilter(r *verify.TableReport, u upstreamdb.Table) string {
	v := r.Verdict
	if r.Damage != nil {
		v = r.Damage.Verdict
	}
	if !u.Class.Allows(v) {
		return fmt.Sprintf("upstream %s (%s); verify's filter verdict is %s", u.Class, u.Status, v)
	}
	if v == verify.Mismatch && (r.FalseNegatives == nil || r.FalseNegatives.Rejected != u.Rejected) {
		return fmt.Sprintf("upstream's filter rejects %d of the table's keys; verify: %+v", u.Rejected, r.FalseNegatives)
	}
	return ""
}

// agreeTables compares verify's report on each live table of dir, under
// both option sets, with what upstream returns from it (intact: the
// database before the damage, with the same tables) and does with its
// filter, and returns the reports by option set and table number.
func agreeTables(t *testing.T, intact, dir string, unknownOK bool) map[bool]map[uint64]*verify.TableReport {
	t.Helper()
	rec, err := upstream.RecoverManifest(dir)
	if err != nil || rec.Status != "" {
		t.Fatalf("upstream does not recover %s: %v %+v", dir, err, rec)
	}
	out := map[bool]map[uint64]*verify.TableReport{}
	for _, paranoid := range []bool{false, true} {
		_, _, reps := ctReports(t, dir, paranoid)
		out[paranoid] = reps
		if len(reps) != len(rec.Files) {
			t.Errorf("paranoid %v: verify reports %d live tables, upstream recovers %d", paranoid, len(reps), len(rec.Files))
		}
		for _, f := range rec.Files {
			r := reps[f.Number]
			if r == nil {
				t.Errorf("paranoid %v: verify does not report table %d", paranoid, f.Number)
				continue
			}
			u := askDamagedTable(t, intact, dir, f.Number, f.Size, paranoid)
			t.Logf("table %d, paranoid %v: upstream %+v; verify %s", f.Number, paranoid, u, r.Line())
			if msg := agreeDamage(r, u, unknownOK); msg != "" {
				t.Errorf("table %d, paranoid %v: %s; verify: %s", f.Number, paranoid, msg, r.Line())
			}
			if u.status != "" {
				continue
			}
			c, err := upstreamdb.AskTableIn(dir, f.Number, f.Size, upstream.Comparator{}, !paranoid)
			if err != nil {
				t.Fatal(err)
			}
			if msg := agreeFilter(r, c); msg != "" {
				t.Errorf("table %d, paranoid %v: %s; verify: %s", f.Number, paranoid, msg, r.Line())
			}
		}
	}
	return out
}

// agreeDB says how verify's report on a database's one table disagrees
// with what upstream returns from the whole database (readUpstream), or
// "": a scan or open upstream fails is an unreadable table with
// upstream's status; otherwise what the scan returns and the Gets miss or
// return wrong are verify's counts, a Get missing its key through the
// damage or through the filter.
func agreeDB(r *verify.TableReport, u upstreamRead, written int) string {
	d := r.Damage
	switch {
	case u.openErr != "" || u.scanErr != "" || d == nil:
		return agreeTable(r, u, written)
	case !d.Known:
		if r.Verdict != verify.SilentCorruption {
			return fmt.Sprintf("what was written cannot be told; want silent-corruption (%+v)", u)
		}
		return ""
	}
	rejected := 0
	if r.FalseNegatives != nil {
		rejected = r.FalseNegatives.Rejected
	}
	if d.Entries != u.entries || d.WrongValues != u.wrong || d.Extra != u.extra || d.GetsWrong != u.getWrong || d.GetsMissing+rejected != u.missing {
		return fmt.Sprintf("upstream returns %+v; verify counts %+v, the filter rejecting %d", u, d, rejected)
	}
	if (u.wrong+u.extra+u.missing+u.getWrong > 0 || u.entries != written) != (r.Verdict == verify.SilentCorruption || r.Verdict == verify.Mismatch) {
		return fmt.Sprintf("upstream returns %+v, but verify says %s", u, r.Verdict)
	}
	return ""
}

// agreeOnlyTable opens the database in dir, whose one table verify
// reported as reps (by option set), with upstream under each option set,
// scans it and gets every write of kvs, and requires verify's report on
// the table to count what upstream returns (agreeDB).
func agreeOnlyTable(t *testing.T, dir string, kvs []kv, reps map[bool]map[uint64]*verify.TableReport) {
	t.Helper()
	for _, paranoid := range []bool{false, true} {
		u := readUpstream(t, dir, kvs, paranoid)
		if len(reps[paranoid]) != 1 {
			t.Fatalf("paranoid %v: verify reports %d live tables, want 1", paranoid, len(reps[paranoid]))
		}
		for _, r := range reps[paranoid] {
			t.Logf("paranoid %v: upstream opens the database and returns %+v", paranoid, u)
			if msg := agreeDB(r, u, len(kvs)); msg != "" {
				t.Errorf("paranoid %v: the database as upstream opens it: %s; verify: %s", paranoid, msg, r.Line())
			}
		}
	}
}

// ctRebuilt says that dir, once upstream's RepairDB rebuilt it, is a
// database verify finds nothing wrong with under either option set, and
// whose current version (the last sequence number among it) is the one
// upstream recovers.
func ctRebuilt(t *testing.T, dir string) {
	t.Helper()
	rec, err := upstream.RecoverManifest(dir)
	if err != nil || rec.Status != "" {
		t.Fatalf("upstream does not recover %s: %v %+v", dir, err, rec)
	}
	for _, paranoid := range []bool{false, true} {
		res, db, _ := ctReports(t, dir, paranoid)
		if !db.Opens() || res.Summary.ExitCode() != verify.ExitOK {
			t.Errorf("paranoid %v: upstream opens the repaired database, verify: exit %d, %s", paranoid, res.Summary.ExitCode(), db.Detail())
			continue
		}
		v := db.Version
		if v.LastSequence != rec.LastSequence || v.LogNumber != rec.LogNumber || v.NextFile != rec.NextFile || len(v.Files) != len(rec.Files) {
			t.Errorf("paranoid %v: verify reads last sequence %d, log %d, next file %d, %d tables; upstream %d, %d, %d, %d",
				paranoid, v.LastSequence, v.LogNumber, v.NextFile, len(v.Files), rec.LastSequence, rec.LogNumber, rec.NextFile, len(rec.Files))
		}
	}
}

// ctRepair runs upstream's RepairDB on dir with LevelDB's defaults.
func ctRepair(t *testing.T, dir string) {
	t.Helper()
	o := levigo.NewOptions()
	defer o.Close()
	if err := levigo.RepairDatabase(dir, o); err != nil {
		t.Fatalf("RepairDB %s: %v", dir, err)
	}
}

// agreeNotOpened requires upstream, under both option sets, to refuse to
// open dir, and verify to say so with upstream's status.
func agreeNotOpened(t *testing.T, dir string) {
	t.Helper()
	for _, paranoid := range []bool{false, true} {
		c := ctCheck(t, dir, paranoid)
		res, db, _ := ctReports(t, dir, paranoid)
		t.Logf("paranoid %v: upstream's open: %q; verify: %s", paranoid, c.openErr, db.Detail())
		if c.openErr == "" {
			t.Errorf("paranoid %v: upstream opens the database", paranoid)
			continue
		}
		if db.Opens() || upstream.Reword(db.Status) != c.openErr || res.Summary.ExitCode() != verify.ExitError {
			t.Errorf("paranoid %v: upstream's open fails: %s; verify: status %q, exit %d, %s", paranoid, c.openErr, db.Status, res.Summary.ExitCode(), db.Detail())
		}
	}
}

// TestCorruptionTableFile: db/corruption_test.cc's TableFile. 100 writes
// compacted into one table, byte 100 of it xored with 0x80: Check(90, 99).
// The byte is in the first data block's snappy-compressed bytes (snappy,
// LevelDB's default, shrinks these values), and one flipped bit there
// decodes into two values wrong: upstream returns them so with LevelDB's
// defaults (98 correct), and verify, which finds the bit, counts them;
// with paranoid checks the scan fails.
func TestCorruptionTableFile(t *testing.T) {
	src, db := ctNew(t)
	ctBuild(t, db, 100)
	// TEST_CompactMemTable, TEST_CompactRange(0) and (1): the flush puts
	// the table at level 2, the others find nothing to compact, as
	// DBImpl::CompactRange over every key does.
	db.CompactRange(levigo.Range{})
	if got := ctFilesAtLevels(db); got != "0,0,1,0,0,0,0" {
		t.Errorf("files at levels %s, want one table at level 2", got)
	}
	db.Close()
	d := ctCorrupt(t, src, ctTableFile, 100, 1)
	ctWant(t, src, 90, 99)
	agreeOnlyTable(t, src, ctKVs(100), agreeTables(t, ctIntact(t, src, d), src, false))
}

// TestCorruptionTableFileIndexData: db/corruption_test.cc's
// TableFileIndexData. 10,000 writes, flushed to tables as the write
// buffer fills; 500 bytes of the newest table, from 2,000 before its end
// (in its index block), xored with 0x80: Check(5000, 9999). With paranoid
// checks the table does not open (the index fails its checksum). With
// LevelDB's defaults, snappy (their options) refuses the damaged index:
// the table does not open either, with another status. The same case
// without compression is not upstream's, but shows what verify says where
// upstream reads such an index as it is: no single flipped bit explains
// 500 bytes of damage, so what was written there cannot be told, and
// verify says silent-corruption without counting what upstream returns
// wrong (or unreadable, with upstream's status, where upstream's read
// fails).
func TestCorruptionTableFileIndexData(t *testing.T) {
	skipLegacy(t)
	for _, tc := range []struct {
		name        string
		compression levigo.CompressionOpt
	}{
		{"snappy, as upstream's test", levigo.SnappyCompression},
		{"without compression", levigo.NoCompression},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := filepath.Join(t.TempDir(), "db")
			db := ctOpen(t, src, true, false, func(o *levigo.Options) { o.SetCompression(tc.compression) })
			ctBuild(t, db, 10000)
			ctFlush(db)
			db.Close()
			d := ctCorrupt(t, src, ctTableFile, -2000, 500)
			tb, err := table.Open(d.path, bytes.NewReader(d.before), int64(len(d.before)))
			if err != nil {
				t.Fatal(err)
			}
			ih := tb.IndexHandle()
			if off := uint64(len(d.before) - 2000); off < ih.Offset || off+500 > ih.Offset+ih.Size {
				t.Errorf("the damage, at %d, is not in the index block %+v", off, ih)
			}
			// The C++ test reopens, then checks.
			if tc.compression == levigo.SnappyCompression {
				ctWant(t, src, 5000, 9999)
			} else {
				t.Logf("upstream's Check with LevelDB's defaults: %+v", ctCheck(t, src, false))
			}
			agreeTables(t, ctIntact(t, src, d), src, true)
		})
	}
}

// TestCorruptionMissingDescriptor: db/corruption_test.cc's
// MissingDescriptor (Build(1000), RepairDB, Check(1000, 1000)), with the
// descriptor missing as its name says: upstream's open refuses the
// database under both option sets, with the status verify gives; RepairDB
// rebuilds it, Check(1000, 1000) holds, and verify finds nothing wrong.
func TestCorruptionMissingDescriptor(t *testing.T) {
	src, db := ctNew(t)
	ctBuild(t, db, 1000)
	db.Close()
	if err := os.Remove(onlyFile(t, src, "MANIFEST-*")); err != nil {
		t.Fatal(err)
	}
	agreeNotOpened(t, src)
	ctRepair(t, src)
	ctWant(t, src, 1000, 1000)
	ctRebuilt(t, src)
}

// TestCorruptionSequenceNumberRecovery: db/corruption_test.cc's
// SequenceNumberRecovery. Five writes of one key, in the log: verify says
// the log replays them, and upstream reads v5; RepairDB makes a table of
// them, and records a last sequence number that a new write, v6, follows
// (upstream reads v6, also after a reopen): verify reads the version
// upstream recovers, and finds nothing wrong, before and after v6.
func TestCorruptionSequenceNumberRecovery(t *testing.T) {
	src, db := ctNew(t)
	ro := levigo.NewReadOptions()
	defer ro.Close()
	for i := 1; i <= 5; i++ {
		ctPut(t, db, []byte("foo"), []byte(fmt.Sprintf("v%d", i)))
	}
	db.Close()
	for _, paranoid := range []bool{false, true} {
		res, vdb, _ := ctReports(t, src, paranoid)
		if len(vdb.Logs) != 1 || vdb.Logs[0].Verdict != verify.Replayed || vdb.Logs[0].Recovery.Defaults.Ops != 5 || res.Summary.ExitCode() != verify.ExitOK {
			t.Errorf("paranoid %v: want one log replayed, 5 writes, exit 0: %s", paranoid, vdb.Detail())
		}
	}
	get := func(db *fixturegen.DB, want string) {
		t.Helper()
		if v, err := db.Get(ro, []byte("foo")); err != nil || string(v) != want {
			t.Errorf("upstream reads foo = %q (%v), want %q", v, err, want)
		}
	}
	ctRepair(t, src)
	ctRebuilt(t, src)
	if rec, err := upstream.RecoverManifest(src); err != nil || rec.LastSequence < 5 {
		t.Errorf("RepairDB records last sequence %+v (%v), want at least 5", rec, err)
	}
	db = ctOpen(t, src, false, false, nil)
	get(db, "v5")
	ctPut(t, db, []byte("foo"), []byte("v6"))
	get(db, "v6")
	db.Close()
	db = ctOpen(t, src, false, false, nil)
	get(db, "v6")
	db.Close()
	ctRebuilt(t, src)
}

// TestCorruptionCorruptedDescriptor: db/corruption_test.cc's
// CorruptedDescriptor. One write, compacted; the first 1,000 bytes of the
// MANIFEST (all of it) xored with 0x80: upstream's open fails, under both
// option sets (VersionSet::Recover reads the MANIFEST alike in both),
// with the status verify gives. RepairDB rebuilds it and upstream reads
// the write; verify finds nothing wrong.
func TestCorruptionCorruptedDescriptor(t *testing.T) {
	src, db := ctNew(t)
	ctPut(t, db, []byte("foo"), []byte("hello"))
	db.CompactRange(levigo.Range{}) // TEST_CompactMemTable, TEST_CompactRange(0)
	db.Close()
	ctCorrupt(t, src, ctDescriptorFile, 0, 1000)
	agreeNotOpened(t, src)
	ctRepair(t, src)
	db = ctOpen(t, src, false, false, nil)
	ro := levigo.NewReadOptions()
	defer ro.Close()
	if v, err := db.Get(ro, []byte("foo")); err != nil || string(v) != "hello" {
		t.Errorf("after RepairDB upstream reads foo = %q (%v), want hello", v, err)
	}
	db.Close()
	ctRebuilt(t, src)
}

// TestCorruptionCompactionInputError: db/corruption_test.cc's
// CompactionInputError. Ten writes flushed to one table at level 2
// (config::kMaxMemCompactLevel), byte 100 xored with 0x80: Check(5, 9).
// At rest, verify judges the table: with LevelDB's defaults upstream
// returns two values wrong (the bit is in snappy's compressed bytes), with
// paranoid checks its scan fails. Then, as the C++ test goes on, 10,000
// writes overwrite the ten: Check(10000, 10000).
func TestCorruptionCompactionInputError(t *testing.T) {
	src, db := ctNew(t)
	ctBuild(t, db, 10)
	ctFlush(db)
	if got := db.PropertyValue("leveldb.num-files-at-level2"); got != "1" {
		t.Errorf("%s files at level 2, want 1", got)
	}
	db.Close()
	d := ctCorrupt(t, src, ctTableFile, 100, 1)
	ctWant(t, src, 5, 9)
	reps := agreeTables(t, ctIntact(t, src, d), src, false)
	agreeOnlyTable(t, src, ctKVs(10), reps)
	damaged := uint64(0)
	for n := range reps[false] {
		damaged = n
	}

	t.Run("overwritten", func(t *testing.T) {
		db := ctOpen(t, src, false, false, nil)
		ctBuild(t, db, 10000)
		levels := ctFilesAtLevels(db)
		db.Close()
		ctWant(t, src, 10000, 10000)
		// Upstream does not compact the damaged table: the flush that
		// overlaps it goes to level 1, above it, and no level outgrows
		// its limit. Every Get of the ten finds the newer write there; a
		// scan with paranoid checks still reads the damaged table, and
		// fails.
		def, par := readUpstream(t, src, ctKVs(10000), false), readUpstream(t, src, ctKVs(10000), true)
		t.Logf("files at levels %s; upstream, defaults: %+v; paranoid: %+v", levels, def, par)
		rec, err := upstream.RecoverManifest(src)
		if err != nil || rec.Status != "" {
			t.Fatalf("upstream does not recover the database: %v %+v", err, rec)
		}
		hidden := false
		for _, f := range rec.Files {
			user := func(ik []byte) []byte { return ik[:len(ik)-8] }
			if f.Level < 2 && bytes.Compare(user(f.Smallest), ctKey(0)) <= 0 && bytes.Compare(user(f.Largest), ctKey(9)) >= 0 {
				hidden = true
			}
		}
		if !hidden {
			t.Errorf("no table above level 2 holds Key(0) to Key(9): %+v", rec.Files)
		}
		if def.scanErr != "" || def.entries != 10000 || def.wrong+def.extra+def.missing+def.getWrong != 0 {
			t.Errorf("upstream, defaults: %+v; want every write read right", def)
		}
		resDef, _, def5 := ctReports(t, src, false)
		resPar, _, par5 := ctReports(t, src, true)
		r, rp := def5[damaged], par5[damaged]
		if r == nil || rp == nil {
			t.Fatalf("verify no longer reports table %d as live (files at levels %s)", damaged, levels)
		}
		if rp.Verdict != verify.Unreadable || !strings.Contains(par.scanErr, rp.Status) || resPar.Summary.ExitCode() != verify.ExitError {
			t.Errorf("upstream's scan with paranoid checks fails: %s; verify, paranoid: exit %d, %s", par.scanErr, resPar.Summary.ExitCode(), rp.Line())
		}
		// With LevelDB's defaults no read of the database returns the
		// damaged values: newer writes hide both. verify judges the
		// table alone, and says silent-corruption, exit 2.
		if r.Verdict == verify.SilentCorruption {
			t.Skipf("verify disagrees with upstream: with LevelDB's defaults upstream returns all 10,000 writes right (Check(10000, 10000), a Get of each), "+
				"for newer writes at level 1 hide the two damaged entries of table %d at level 2; verify judges that table alone and says %s (exit %d): %s",
				damaged, r.Verdict, resDef.Summary.ExitCode(), r.Line())
		}
		if !harmless(r.Verdict) || resDef.Summary.ExitCode() > verify.ExitDamage {
			t.Errorf("upstream returns every write right with LevelDB's defaults; verify: exit %d, %s", resDef.Summary.ExitCode(), r.Line())
		}
	})
}

// TestCorruptionCompactionInputErrorParanoid: db/corruption_test.cc's
// CompactionInputErrorParanoid. With paranoid checks and a 512 KiB write
// buffer, twice: ten writes flushed to a table, byte 100 of the newest
// table xored with 0x80. Upstream's compaction of the two then fails, and
// so does the next write. At rest verify judges both tables as upstream
// reads each; with paranoid checks they are unreadable, with the status
// that fails upstream's compaction and write.
func TestCorruptionCompactionInputErrorParanoid(t *testing.T) {
	skipLegacy(t)
	setup := func(o *levigo.Options) { o.SetWriteBufferSize(512 << 10) }
	src := filepath.Join(t.TempDir(), "db")
	var damaged []ctDamaged
	for i := 0; i < 2; i++ {
		db := ctOpen(t, src, i == 0, true, setup)
		ctBuild(t, db, 10)
		ctFlush(db)
		if i == 1 {
			t.Logf("files at levels %s", ctFilesAtLevels(db))
		}
		db.Close()
		damaged = append(damaged, ctCorrupt(t, src, ctTableFile, 100, 1))
	}
	reps := agreeTables(t, ctIntact(t, src, damaged...), src, false)
	// Upstream, opened with paranoid checks, compacts the two (CompactRange
	// over every key), which fails, and then refuses the write.
	db := ctOpen(t, copyDir(t, src), false, true, setup)
	db.CompactRange(levigo.Range{})
	wo := levigo.NewWriteOptions()
	defer wo.Close()
	err := db.Put(wo, ctKey(5), ctValue(5))
	db.Close()
	if err == nil {
		t.Fatal("upstream's write did not fail in the corrupted paranoid database")
	}
	t.Logf("upstream's write: %v", err)
	if len(reps[true]) != 2 {
		t.Fatalf("verify reports %d live tables, want 2", len(reps[true]))
	}
	for n, r := range reps[true] {
		if r.Verdict != verify.Unreadable || !strings.Contains(err.Error(), r.Status) {
			t.Errorf("table %d: upstream's compaction fails: %v; verify, paranoid: %s", n, err, r.Line())
		}
	}
	for n, r := range reps[false] {
		t.Logf("defaults: table %d: %s", n, r.Line())
	}
}

// TestCorruptionUnrelatedKeys: db/corruption_test.cc's UnrelatedKeys. Ten
// writes flushed to a table, byte 100 xored with 0x80; then a write of
// Key(1000), which upstream reads right, also once flushed to a table of
// its own. verify judges the damaged table as upstream reads it, and the
// other as intact, under both option sets.
func TestCorruptionUnrelatedKeys(t *testing.T) {
	src, db := ctNew(t)
	ctBuild(t, db, 10)
	ctFlush(db)
	db.Close()
	d := ctCorrupt(t, src, ctTableFile, 100, 1)
	db = ctOpen(t, src, false, false, nil) // the C++ test goes on with its database open
	ro := levigo.NewReadOptions()
	defer ro.Close()
	ctPut(t, db, ctKey(1000), ctValue(1000))
	get := func() {
		t.Helper()
		if v, err := db.Get(ro, ctKey(1000)); err != nil || !bytes.Equal(v, ctValue(1000)) {
			t.Errorf("upstream reads Key(1000) wrong (%v)", err)
		}
	}
	get()
	ctFlush(db)
	get()
	t.Logf("files at levels %s", ctFilesAtLevels(db))
	db.Close()
	reps := agreeTables(t, ctIntact(t, src, d), src, false)
	for _, paranoid := range []bool{false, true} {
		if len(reps[paranoid]) != 2 {
			t.Errorf("paranoid %v: verify reports %d live tables, want 2", paranoid, len(reps[paranoid]))
		}
		// Under either option set upstream reads Key(1000) right: its
		// Get reads the undamaged table alone.
		if u := readUpstream(t, src, []kv{{ctKey(1000), ctValue(1000)}}, paranoid); u.openErr != "" || u.missing+u.getWrong != 0 {
			t.Errorf("paranoid %v: upstream reads Key(1000) wrong: %+v", paranoid, u)
		}
	}
}

// TestCorruptionManifestRecord: one flipped bit in a version edit of a
// database's MANIFEST (one adding a table): VersionSet::Recover reads the
// MANIFEST with checksums under both option sets, and fails; verify says
// upstream cannot open the database, with its status.
func TestCorruptionManifestRecord(t *testing.T) {
	src, db := ctNew(t)
	ctBuild(t, db, 10)
	ctFlush(db)
	ctPut(t, db, ctKey(1000), ctValue(1000))
	ctFlush(db)
	db.Close()
	manifest := onlyFile(t, src, "MANIFEST-*")
	b := tabletest.ReadFile(t, manifest)
	// The records (7-byte headers: checksum, length, type; one block):
	// the third is the first flush's edit, adding a table.
	off := 0
	for i := 0; i < 2; i++ {
		off += 7 + int(binary.LittleEndian.Uint16(b[off+4:]))
	}
	n := int(binary.LittleEndian.Uint16(b[off+4:]))
	if off+7+n > len(b) || !bytes.Contains(b[off+7:off+7+n], ctKey(0)) {
		t.Fatalf("the third record, at %d, does not add the table of Key(0)", off)
	}
	b[off+7+n/2] ^= 0x10
	writeFile(t, manifest, b)
	agreeNotOpened(t, src)
}

// TestCorruptionMetaindexAndIndexByte: a byte of a table's metaindex
// block, or of its index block, xored with 0x80 (as Corrupt does): in the
// filter's name in the metaindex, in the filter's handle, in an index
// entry's key, in its block handle (a table written without compression,
// so that each lands where it is aimed), and in the middle of a
// snappy-compressed index block. Upstream opens the database under each
// option set; what it returns (the scan, a Get of every key written,
// through the filter as upstream reads it), and what the table alone
// returns, is what verify must count.
func TestCorruptionMetaindexAndIndexByte(t *testing.T) {
	skipLegacy(t)
	kvs := writes(2000)
	// Written as writeDB writes, compressed or not.
	write := func(t *testing.T, compression levigo.CompressionOpt) (dir string, data []byte, tb *table.Table) {
		dir = filepath.Join(t.TempDir(), "db")
		db, err := fixturegen.Open(dir, 10, func(o *levigo.Options) {
			o.SetCreateIfMissing(true)
			o.SetWriteBufferSize(64 << 20)
			o.SetCompression(compression)
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range kvs {
			ctPut(t, db, e.key, e.value)
		}
		db.CompactRange(levigo.Range{})
		db.Close()
		data = tabletest.ReadFile(t, onlyFile(t, dir, "*.ldb"))
		tb, err = table.Open("t", bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		return dir, data, tb
	}
	plain, plainData, plainTable := write(t, levigo.NoCompression)
	snappy, snappyData, snappyTable := write(t, levigo.SnappyCompression)
	// entry returns the offsets in the file of the key and the value of
	// the i-th entry of the uncompressed block at off (each entry's
	// shared, unshared and value lengths are varints).
	entry := func(off uint64, i int) (key, value int) {
		p := int(off)
		for ; ; i-- {
			_, a := binary.Uvarint(plainData[p:])
			unshared, c := binary.Uvarint(plainData[p+a:])
			vlen, d := binary.Uvarint(plainData[p+a+c:])
			key = p + a + c + d
			value = key + int(unshared)
			if i == 0 {
				return key, value
			}
			p = value + int(vlen)
		}
	}
	mh, ih := plainTable.MetaindexHandle(), plainTable.IndexHandle()
	metaKey, metaValue := entry(mh.Offset, 0)
	if !bytes.Equal(plainData[metaKey:metaValue], []byte("filter."+bloom.PolicyName)) {
		t.Fatalf("the metaindex's first entry is %q", plainData[metaKey:metaValue])
	}
	idxKey, idxValue := entry(ih.Offset, plainTable.NumDataBlocks()/2)
	sh := snappyTable.IndexHandle()
	if typ := snappyData[sh.Offset+sh.Size]; typ != 1 {
		t.Fatalf("the index block is stored as type %d, not snappy-compressed", typ)
	}
	for _, tc := range []struct {
		name string
		src  string
		data []byte
		off  int
	}{
		{"metaindex: the filter's name", plain, plainData, metaKey + 10},
		{"metaindex: the filter's handle", plain, plainData, metaValue},
		{"index: an entry's key", plain, plainData, idxKey + 4},
		{"index: an entry's block handle", plain, plainData, idxValue},
		{"index: snappy-compressed", snappy, snappyData, int(sh.Offset + sh.Size/2)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyDir(t, tc.src)
			b := bytes.Clone(tc.data)
			b[tc.off] ^= 0x80
			writeFile(t, onlyFile(t, dir, "*.ldb"), b)
			agreeOnlyTable(t, dir, kvs, agreeTables(t, tc.src, dir, false))
		})
	}
}
