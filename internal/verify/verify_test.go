package verify_test

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/klauspost/compress/snappy"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/internal/base"
	"github.com/ldbcompat/ldbcompat/internal/filtercheck"
	"github.com/ldbcompat/ldbcompat/internal/manifest/manifesttest"
	"github.com/ldbcompat/ldbcompat/internal/table"
	"github.com/ldbcompat/ldbcompat/internal/table/tabletest"
	"github.com/ldbcompat/ldbcompat/internal/verify"
)

// entries are a table's entries: 400 keys, most of them ending in a byte
// of 0x80 or more (so the two legacy hashes tell them apart), in blocks of
// about 300 bytes spread over several 2 KiB filter ranges.
func entries() []table.Entry {
	var es []table.Entry
	for i := 0; i < 400; i++ {
		k := table.InternalKey{UserKey: []byte(fmt.Sprintf("key%04d\xf0\xf1", i)), Seq: uint64(1000 - i), Kind: table.KindValue}
		es = append(es, table.Entry{Key: k, Value: []byte("value")})
	}
	return es
}

// blocksOf returns the data blocks' handles and user keys of a table, read
// with internal/table alone.
func blocksOf(t *testing.T, file []byte) []filtercheck.BlockKeys {
	t.Helper()
	tb, err := table.Open("t", bytes.NewReader(file), int64(len(file)))
	if err != nil {
		t.Fatal(err)
	}
	var blocks []filtercheck.BlockKeys
	err = tb.DataBlocks(func(b *table.DataBlock) error {
		fb := filtercheck.BlockKeys{Handle: b.Handle}
		for _, e := range b.Entries {
			fb.Keys = append(fb.Keys, e.Key.UserKey)
		}
		blocks = append(blocks, fb)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return blocks
}

// metaEntry is an entry of a metaindex block built by withMeta.
type metaEntry struct {
	name     string
	contents []byte // the block it points to
	snappy   bool   // store the block compressed
	badCRC   bool   // store it with a wrong checksum
	value    []byte // the entry's value instead of a handle, if not nil
}

// withMeta returns the table base (tabletest.Build's, without a filter
// block) with the blocks and the metaindex block of entries, in the given
// order (a metaindex out of order when they are); with badMeta the
// metaindex block's checksum is wrong.
func withMeta(t *testing.T, base []byte, entries []metaEntry, badMeta bool) []byte {
	t.Helper()
	tb, err := table.Open("base", bytes.NewReader(base), int64(len(base)))
	if err != nil {
		t.Fatal(err)
	}
	out := append([]byte(nil), base[:tb.MetaindexHandle().Offset]...)
	var kvs []tabletest.KV
	for _, e := range entries {
		stored, typ := e.contents, byte(table.NoCompression)
		if e.snappy {
			stored, typ = snappy.Encode(nil, e.contents), table.SnappyCompression
		}
		var h table.BlockHandle
		out, h = tabletest.AppendBlock(out, stored, typ)
		if e.badCRC {
			out[h.Offset+h.Size+1] ^= 0x55
		}
		v := e.value
		if v == nil {
			v = table.AppendBlockHandle(nil, h)
		}
		kvs = append(kvs, tabletest.KV{Key: []byte(table.FilterPrefix + e.name), Value: v})
	}
	out, mh := tabletest.AppendBlock(out, tabletest.EncodeBlock(kvs, 16), table.NoCompression)
	if badMeta {
		out[mh.Offset+mh.Size+1] ^= 0x55
	}
	ih := tb.IndexHandle()
	newIH := table.BlockHandle{Offset: uint64(len(out)), Size: ih.Size}
	out = append(out, base[ih.Offset:ih.End()]...)
	return tabletest.AppendFooter(out, mh, newIH)
}

// checkFile writes file and checks it as a table named directly, with
// LevelDB's default options.
func checkFile(t *testing.T, file []byte) *verify.TableReport {
	t.Helper()
	return checkFileWith(t, file, verify.Options{})
}

// checkFileWith is checkFile with the options o.
func checkFileWith(t *testing.T, file []byte, o verify.Options) *verify.TableReport {
	t.Helper()
	p := filepath.Join(t.TempDir(), "000005.ldb")
	if err := os.WriteFile(p, file, 0o644); err != nil {
		t.Fatal(err)
	}
	return verify.Examine(&verify.Target{Path: p}, o)
}

// TestFilterVerdicts: each verdict of a table upstream reads, from tables
// whose filters and metaindex are built here. The expected verdicts follow
// from upstream's rules (table/table.cc ReadMeta and ReadFilter): the
// filter used is the one named leveldb.BuiltinBloomFilter2 that the
// metaindex seek finds and that reads with its checksum; any failure reads
// the table without it. verdict is upstream's with paranoid checks; with
// LevelDB's default options (defaults, when it differs) no checksum is
// verified: a filter block or metaindex whose checksum alone is damaged is
// used as it is, and the table is bad-checksum (every entry reads right).
func TestFilterVerdicts(t *testing.T) {
	plain := tabletest.Build(entries(), tabletest.Options{BlockSize: 300})
	blocks := blocksOf(t, plain)
	build := func(p bloom.FilterPolicy) []byte { return filtercheck.Build(blocks, p) }
	current := build(bloom.NewPolicy(10))
	signed := build(bloom.NewLegacyPolicy(10, true))
	unsigned := build(bloom.NewLegacyPolicy(10, false))
	if bytes.Equal(signed, unsigned) {
		t.Fatal("the keys do not tell the legacy hashes apart")
	}
	// The first filter's bits zeroed, its k kept: it rejects every key of
	// the data blocks that start in the first 2 KiB.
	zeroed := bytes.Clone(current)
	l, err := filtercheck.ParseLayout(zeroed)
	if err != nil {
		t.Fatal(err)
	}
	clear(zeroed[l.Filters[0].Offset : l.Filters[0].Offset+l.Filters[0].Len-1])
	rejected := 0
	for _, b := range blocks {
		if b.Handle.Offset>>11 == 0 {
			rejected += len(b.Keys)
		}
	}
	signedZeroed := bytes.Clone(signed)
	clear(signedZeroed[l.Filters[0].Offset : l.Filters[0].Offset+l.Filters[0].Len-1])
	// A filter one bit off: different bytes, no key rejected (a bit set).
	oneMore := bytes.Clone(current)
	for i := l.Filters[0].Offset; ; i++ {
		if oneMore[i] != 0xff {
			oneMore[i] |= oneMore[i] + 1 // the lowest clear bit
			break
		}
	}

	for _, tc := range []struct {
		name    string
		meta    []metaEntry
		badMeta bool
		verdict verify.Verdict
		check   func(r *verify.TableReport) string // "" when right
		// defaults is the verdict with LevelDB's default options, when
		// it is not verdict.
		defaults verify.Verdict
	}{
		{"current filter", []metaEntry{{name: bloom.PolicyName, contents: current}}, false, verify.OK, nil, ""},
		{"compressed current filter", []metaEntry{{name: bloom.PolicyName, contents: current, snappy: true}}, false, verify.OK, nil, ""},
		{"old name, signed hash", []metaEntry{{name: bloom.LegacyPolicyName, contents: signed}}, false, verify.OldFilter, func(r *verify.TableReport) string {
			return want(r.Comparison.Legacy == filtercheck.LegacySigned, "hash %s", r.Comparison.Legacy)
		}, ""},
		{"old name, unsigned hash", []metaEntry{{name: bloom.LegacyPolicyName, contents: unsigned}}, false, verify.OldFilter, func(r *verify.TableReport) string {
			return want(r.Comparison.Legacy == filtercheck.LegacyUnsigned, "hash %s", r.Comparison.Legacy)
		}, ""},
		{"both names", []metaEntry{{name: bloom.LegacyPolicyName, contents: signed}, {name: bloom.PolicyName, contents: current}}, false, verify.OK, nil, ""},
		{"no filter", nil, false, verify.NoFilter, nil, ""},
		{"another policy", []metaEntry{{name: "my.Filter", contents: []byte("x")}}, false, verify.OtherFilter, func(r *verify.TableReport) string {
			return want(r.Policy == "my.Filter" && strings.Contains(r.Detail(), `"my.Filter" (not checked)`), "name %q, %s", r.Policy, r.Detail())
		}, ""},
		{"checksum mismatch", []metaEntry{{name: bloom.PolicyName, contents: current, badCRC: true}}, false, verify.FilterUnusable, func(r *verify.TableReport) string {
			return want(r.Policy == bloom.PolicyName && base.StatusOf(r.UnusableErr) == "Corruption: block checksum mismatch", "%v", r.UnusableErr)
		}, verify.BadChecksum},
		{"bad handle", []metaEntry{{name: bloom.PolicyName, value: []byte{0x80}}}, false, verify.FilterUnusable, func(r *verify.TableReport) string {
			return want(base.StatusOf(r.UnusableErr) == "Corruption: bad block handle", "%v", r.UnusableErr)
		}, ""},
		{"metaindex out of order", []metaEntry{{name: "zz.Other", contents: []byte("x")}, {name: bloom.PolicyName, contents: current}}, false, verify.FilterUnusable, func(r *verify.TableReport) string {
			return want(strings.Contains(fmt.Sprint(r.UnusableErr), "out of order"), "%v", r.UnusableErr)
		}, ""},
		{"metaindex unreadable", []metaEntry{{name: bloom.PolicyName, contents: current}}, true, verify.FilterUnusable, func(r *verify.TableReport) string {
			return want(r.Policy == "" && base.StatusOf(r.UnusableErr) == "Corruption: block checksum mismatch", "%q, %v", r.Policy, r.UnusableErr)
		}, verify.BadChecksum},
		{"first filter zeroed", []metaEntry{{name: bloom.PolicyName, contents: zeroed}}, false, verify.Mismatch, func(r *verify.TableReport) string {
			fn := r.FalseNegatives
			return want(fn != nil && fn.Rejected == rejected && fn.Keys == 400 && bytes.Equal(fn.FirstKey, blocks[0].Keys[0]) &&
				strings.Contains(r.Detail(), fmt.Sprintf("rejects %d of the table's 400 keys (false negatives): upstream reports them missing", rejected)),
				"%+v, %s", fn, r.Detail())
		}, ""},
		{"a bit more", []metaEntry{{name: bloom.PolicyName, contents: oneMore}}, false, verify.Mismatch, func(r *verify.TableReport) string {
			return want(r.FalseNegatives != nil && r.FalseNegatives.Rejected == 0 && strings.Contains(r.Detail(), "rejects none of the table's 400 keys"), "%s", r.Detail())
		}, ""},
		{"old name, first filter zeroed", []metaEntry{{name: bloom.LegacyPolicyName, contents: signedZeroed}}, false, verify.Mismatch, func(r *verify.TableReport) string {
			fn := r.FalseNegatives
			// The signed hash, which wrote the other filters, rejects
			// fewer keys: its count is the one given.
			return want(r.Comparison.Legacy == filtercheck.LegacyNeither && fn != nil && fn.Rejected >= rejected && r.FNHash == filtercheck.LegacySigned &&
				strings.Contains(r.Detail(), "LevelDB v1.17 or older reports them missing"), "%+v, %s", fn, r.Detail())
		}, ""},
		{"old name unreadable", []metaEntry{{name: bloom.LegacyPolicyName, contents: signed, badCRC: true}}, false, verify.FilterUnusable, func(r *verify.TableReport) string {
			return want(r.Policy == bloom.LegacyPolicyName, "%q", r.Policy)
		}, verify.BadChecksum},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := withMeta(t, plain, tc.meta, tc.badMeta)
			d := checkFile(t, file)
			if want := cmp.Or(tc.defaults, tc.verdict); d.Verdict != want || d.Mode != verify.Defaults {
				t.Errorf("with the default options: verdict %q (%s), want %q: %s", d.Verdict, d.Mode, want, d.Detail())
			}
			r := checkFileWith(t, file, verify.Options{Paranoid: true})
			if r.Verdict != tc.verdict || r.Mode != verify.Paranoid {
				t.Fatalf("with paranoid checks: verdict %q (%s), want %q: %s", r.Verdict, r.Mode, tc.verdict, r.Detail())
			}
			if (tc.defaults != "") != (r.Other != nil) || (r.Other != nil && r.Other.Verdict != tc.defaults) {
				t.Errorf("with paranoid checks, the other option set's report is %+v, want the verdict %q", r.Other, tc.defaults)
			}
			if r.Keys != 400 || r.DataBlocks != len(blocks) {
				t.Errorf("%d keys in %d blocks, want 400 in %d", r.Keys, r.DataBlocks, len(blocks))
			}
			if tc.check != nil {
				if msg := tc.check(r); msg != "" {
					t.Error(msg)
				}
			}
		})
	}
}

// want returns "" when ok, else the message.
func want(ok bool, format string, args ...any) string {
	if ok {
		return ""
	}
	return fmt.Sprintf(format, args...)
}

// TestDatabases: what upstream's DBImpl::Recover makes of a database
// decides its line and the exit status: an empty database opens (0 tables,
// exit 0); a live table no file has the number of makes upstream refuse
// the database (N missing files); one whose number another file has (a
// log) lets it open, and every read of the table fails; a MANIFEST naming
// another comparator is an application's database, read as it reads it;
// one naming two comparators no application opens.
func TestDatabases(t *testing.T) {
	good := tabletest.Build(entries(), tabletest.Options{BlockSize: 300, Policy: bloom.NewPolicy(10)})
	size := uint64(len(good))
	write := func(t *testing.T, dir, name string, data []byte) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	manifestWith := func(t *testing.T, dir string, comparators ...string) {
		var w manifesttest.Log
		for _, c := range comparators {
			w.Add(new(manifesttest.Edit).Comparator(c).B)
		}
		w.Add(new(manifesttest.Edit).Counters(3, 10, 100).NewFile(1, 5, size, manifesttest.InternalKey("a", 1), manifesttest.InternalKey("z", 2)).B)
		write(t, dir, "MANIFEST-000002", w.Bytes())
		write(t, dir, "CURRENT", []byte("MANIFEST-000002\n"))
		write(t, dir, "000005.ldb", good)
	}
	for _, tc := range []struct {
		name    string
		setup   func(t *testing.T, dir string)
		opens   bool
		summary string
		code    int
		check   func(dir string, db *verify.Database, reps []*verify.TableReport) string
	}{
		{"empty", func(t *testing.T, dir string) {
			if err := manifesttest.WriteDB(dir, 2); err != nil {
				t.Fatal(err)
			}
			write(t, dir, "000003.log", nil)
		}, true, "0 tables", verify.ExitOK, nil},
		{"missing table", func(t *testing.T, dir string) {
			if err := manifesttest.WriteDB(dir, 2, manifesttest.Table{Level: 1, Number: 5, Size: size}, manifesttest.Table{Level: 2, Number: 9, Size: 1000}); err != nil {
				t.Fatal(err)
			}
			write(t, dir, "000005.ldb", good)
		}, false, "2 tables: 1 ok, 1 missing; 1 database upstream cannot open", verify.ExitError, func(dir string, db *verify.Database, reps []*verify.TableReport) string {
			return want(db.Status == "Corruption: 1 missing files; e.g.: "+filepath.Join(dir, "000009.ldb") && len(db.Missing) == 1 && db.Missing[0] == 9,
				"status %q, missing %v", db.Status, db.Missing)
		}},
		{"missing table, a log of its number", func(t *testing.T, dir string) {
			if err := manifesttest.WriteDB(dir, 2, manifesttest.Table{Level: 1, Number: 5, Size: size}, manifesttest.Table{Level: 2, Number: 9, Size: 1000}); err != nil {
				t.Fatal(err)
			}
			write(t, dir, "000005.ldb", good)
			write(t, dir, "000009.log", nil)
		}, true, "2 tables: 1 ok, 1 missing", verify.ExitError, func(dir string, db *verify.Database, reps []*verify.TableReport) string {
			r := reps[len(reps)-1]
			// util/env_posix.cc PosixError: ENOENT is NotFound from 1.21
			// on (TestFaultyStorageStatusesAgainstUpstream checks it).
			return want(r.Verdict == verify.Missing && r.Status == "NotFound: "+filepath.Join(dir, "000009.ldb")+": No such file or directory" &&
				strings.Contains(r.Detail(), "upstream opens the database"), "%s: %s", r.Verdict, r.Detail())
		}},
		{"application's comparator", func(t *testing.T, dir string) { manifestWith(t, dir, "app.Reverse") }, true, "1 table: 1 ok", verify.ExitOK,
			func(dir string, db *verify.Database, reps []*verify.TableReport) string {
				return want(db.Comparator == "app.Reverse" && db.DefaultStatus == "Invalid argument: app.Reverse does not match existing comparator : leveldb.BytewiseComparator" &&
					strings.Contains(db.Detail(), `upstream opens it with the application's comparator "app.Reverse"`), "%+v: %s", db, db.Detail())
			}},
		{"two comparators", func(t *testing.T, dir string) { manifestWith(t, dir, "app.Reverse", "leveldb.BytewiseComparator") }, false,
			"1 table: 1 ok; 1 database upstream cannot open", verify.ExitError, func(dir string, db *verify.Database, reps []*verify.TableReport) string {
				return want(db.Status == "Invalid argument: leveldb.BytewiseComparator does not match existing comparator : app.Reverse" &&
					reps[1].Live == nil, "status %q, %+v", db.Status, reps[1])
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tc.setup(t, dir)
			res := verify.Run([]string{dir}, verify.Options{})
			db := res.Items[0].Database
			if db == nil || db.Opens() != tc.opens || res.Summary.String() != tc.summary || res.Summary.ExitCode() != tc.code {
				t.Fatalf("database %+v (opens %v); summary %q, exit %d; want opens %v, %q, exit %d", db, db.Opens(), res.Summary, res.Summary.ExitCode(), tc.opens, tc.summary, tc.code)
			}
			if tc.check != nil {
				if msg := tc.check(dir, db, res.Reports); msg != "" {
					t.Error(msg)
				}
			}
		})
	}
}

// TestErrUndefined: a table on which upstream's behaviour is undefined is
// unreadable, without a status.
func TestErrUndefined(t *testing.T) {
	good := tabletest.Build(entries(), tabletest.Options{BlockSize: 300, Policy: bloom.NewPolicy(10)})
	tb, err := table.Open("t", bytes.NewReader(good), int64(len(good)))
	if err != nil {
		t.Fatal(err)
	}
	// An index handle whose offset plus size overflows 64 bits.
	bad := tabletest.ReplaceFooter(good, tb.MetaindexHandle(), table.BlockHandle{Offset: 1 << 63, Size: 1 << 63})
	r := checkFile(t, bad)
	if r.Verdict != verify.Unreadable || !r.Undefined || r.Status != "" || !errors.Is(r.Err, base.ErrUndefined) ||
		!strings.HasPrefix(r.Detail(), "upstream's behaviour is undefined on it") {
		t.Errorf("%s (undefined %v, status %q): %s", r.Verdict, r.Undefined, r.Status, r.Detail())
	}
}

// TestUnchecked: a block whose every entry repeats the whole previous key
// and adds a byte decodes to keys growing with the square of its size;
// upstream reads it, one key at a time, but verify, which keeps every key,
// refuses it past its memory bound: unchecked, exit 2, never ok.
func TestUnchecked(t *testing.T) {
	c := tabletest.DeepPrefixBlock(5000)
	data, dh := tabletest.AppendBlock(nil, c, 0)
	data, mh := tabletest.AppendBlock(data, tabletest.EncodeBlock(nil, 16), 0)
	idx := tabletest.EncodeBlock([]tabletest.KV{{Key: []byte("zzzzzzzz"), Value: table.AppendBlockHandle(nil, dh)}}, 1)
	data, ih := tabletest.AppendBlock(data, idx, 0)
	r := checkFile(t, tabletest.AppendFooter(data, mh, ih))
	if r.Verdict != verify.Unchecked || !errors.Is(r.Err, table.ErrLimit) || r.Verdict.Exit() != verify.ExitError ||
		!strings.HasPrefix(r.Detail(), "not checked: table ") {
		t.Errorf("%s: %s", r.Verdict, r.Detail())
	}
}

// unmappedFile is an open table file that is not an *os.File, which Check
// reads into memory instead of mapping it.
type unmappedFile struct{ verify.File }

// TestReportsKeepTheirKeys: Check reads each table into memory the table
// before it used (unless Options.Keep), a memory map or a buffer, so a
// report must keep nothing of that memory. A mismatch names its first
// rejected key; tables with other keys checked after it, on one goroutine
// as on many, whether the files are mapped or read into a buffer, must not
// change it.
func TestReportsKeepTheirKeys(t *testing.T) {
	// firstFilterZeroed is file with a filter block whose first filter
	// has all bits clear, and the keys of its blocks.
	firstFilterZeroed := func(file []byte) ([]byte, []filtercheck.BlockKeys) {
		blocks := blocksOf(t, file)
		zeroed := filtercheck.Build(blocks, bloom.NewPolicy(10))
		l, err := filtercheck.ParseLayout(zeroed)
		if err != nil {
			t.Fatal(err)
		}
		clear(zeroed[l.Filters[0].Offset : l.Filters[0].Offset+l.Filters[0].Len-1])
		return withMeta(t, file, []metaEntry{{name: bloom.PolicyName, contents: zeroed}}, false), blocks
	}
	first, blocks := firstFilterZeroed(tabletest.Build(entries(), tabletest.Options{BlockSize: 300}))
	var others []table.Entry
	for i := 0; i < 400; i++ {
		k := table.InternalKey{UserKey: []byte(fmt.Sprintf("other%04d", i)), Seq: 1, Kind: table.KindValue}
		others = append(others, table.Entry{Key: k, Value: []byte("v")})
	}
	other := tabletest.Build(others, tabletest.Options{BlockSize: 300, Policy: bloom.NewPolicy(10)})
	// Other tables that are damaged too: their keys are read, into the
	// memory the first table's were read into.
	otherDamaged, otherBlocks := firstFilterZeroed(tabletest.Build(others, tabletest.Options{BlockSize: 300}))

	for _, damaged := range []bool{false, true} {
		dir := t.TempDir()
		paths := []string{filepath.Join(dir, "000005.ldb")}
		if err := os.WriteFile(paths[0], first, 0o644); err != nil {
			t.Fatal(err)
		}
		for i := 6; i < 10; i++ {
			p := filepath.Join(dir, fmt.Sprintf("%06d.ldb", i))
			data := other
			if damaged {
				data = otherDamaged
			}
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
			paths = append(paths, p)
		}
		for _, procs := range []int{1, 4} {
			for _, o := range []struct {
				how  string
				opts verify.Options
			}{{"mapped", verify.Options{}}, {"read into memory", unmappedOptions()}} {
				prev := runtime.GOMAXPROCS(procs)
				r := verify.Run(paths, o.opts)
				runtime.GOMAXPROCS(prev)
				rep := r.Reports[0]
				if rep.Verdict != verify.Mismatch || rep.FalseNegatives == nil {
					t.Fatalf("GOMAXPROCS %d, %s: %s: %s %s", procs, o.how, paths[0], rep.Verdict, rep.Detail())
				}
				if got, want := rep.FalseNegatives.FirstKey, blocks[0].Keys[0]; !bytes.Equal(got, want) {
					t.Errorf("GOMAXPROCS %d, %s, other tables damaged %v: first rejected key %q after checking other tables, want %q", procs, o.how, damaged, got, want)
				}
				for i, rep := range r.Reports[1:] {
					switch {
					case !damaged && (rep.Verdict != verify.OK || rep.Keys != 400):
						t.Errorf("GOMAXPROCS %d, %s: %s: %s, %d keys, want ok, 400 keys", procs, o.how, paths[i+1], rep.Verdict, rep.Keys)
					case damaged && (rep.Verdict != verify.Mismatch || rep.FalseNegatives == nil || !bytes.Equal(rep.FalseNegatives.FirstKey, otherBlocks[0].Keys[0])):
						t.Errorf("GOMAXPROCS %d, %s: %s: %s, want a mismatch rejecting %q first", procs, o.how, paths[i+1], rep.Detail(), otherBlocks[0].Keys[0])
					}
				}
			}
		}
	}
}

// TestMappedTableIsNotCopied: where Check maps a table file, it reads the
// table from the map, as upstream's PosixMmapReadableFile does, and never
// copies the file into memory: a table of 2 MB of incompressible values
// and few keys takes much less memory to check than its size; read into
// a buffer (a file that is not an *os.File), it takes the file's size at
// least.
func TestMappedTableIsNotCopied(t *testing.T) {
	if !mmapped[runtime.GOOS] {
		t.Skipf("table files are not memory-mapped on %s", runtime.GOOS)
	}
	var es []table.Entry
	rnd := uint64(1)
	for i := 0; i < 500; i++ {
		v := make([]byte, 4096)
		for j := range v {
			rnd = rnd*6364136223846793005 + 1442695040888963407
			v[j] = byte(rnd >> 56)
		}
		k := table.InternalKey{UserKey: []byte(fmt.Sprintf("key%04d", i)), Seq: 1, Kind: table.KindValue}
		es = append(es, table.Entry{Key: k, Value: v})
	}
	file := tabletest.Build(es, tabletest.Options{BlockSize: 4096, Policy: bloom.NewPolicy(10)})
	p := filepath.Join(t.TempDir(), "000005.ldb")
	if err := os.WriteFile(p, file, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, o := range []struct {
		how    string
		opts   verify.Options
		copied bool
	}{{"mapped", verify.Options{}, false}, {"read into memory", unmappedOptions(), true}} {
		// Buffers kept from an earlier check (a sync.Pool) go with two
		// collections.
		runtime.GC()
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		rep := verify.Run([]string{p}, o.opts).Reports[0]
		runtime.ReadMemStats(&after)
		alloc := after.TotalAlloc - before.TotalAlloc
		if rep.Verdict != verify.OK || rep.Keys != 500 {
			t.Fatalf("%s: %s: %s, %d keys, want ok, 500 keys", o.how, p, rep.Verdict, rep.Keys)
		}
		if copied := alloc >= uint64(len(file))/2; copied != o.copied {
			t.Errorf("%s: checking a table of %d bytes allocated %d bytes: copied into memory %v, want %v", o.how, len(file), alloc, copied, o.copied)
		}
	}
}

// unmappedOptions open table files as unmappedFile.
func unmappedOptions() verify.Options {
	return verify.Options{Open: openAs(func(f *os.File) verify.File { return unmappedFile{f} })}
}

// openAs is an Options.Open that hands each file it opens to wrap.
func openAs(wrap func(*os.File) verify.File) func(string) (verify.File, error) {
	return func(p string) (verify.File, error) {
		f, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		return wrap(f), nil
	}
}

// mmapped are the systems where verify maps table files (mmap_unix.go).
var mmapped = map[string]bool{"linux": true, "darwin": true, "freebsd": true, "netbsd": true, "openbsd": true, "dragonfly": true}

// TestMappedFileShrinks: Check reads a table file from a read-only memory
// map. A file cut short once mapped (a process truncating it) makes the
// read fault, which must become a report that the file changed, never a
// crash; the same file unchanged reads as ok.
func TestMappedFileShrinks(t *testing.T) {
	file := tabletest.Build(entries(), tabletest.Options{BlockSize: 300, Policy: bloom.NewPolicy(10)})
	for _, keep := range []int{0, len(file) / 2, len(file) - 1} {
		p := filepath.Join(t.TempDir(), "000005.ldb")
		if err := os.WriteFile(p, file, 0o644); err != nil {
			t.Fatal(err)
		}
		mapped := false
		restore := verify.SetAfterMap(func(path string) {
			mapped = true
			if err := os.Truncate(path, int64(keep)); err != nil {
				t.Error(err)
			}
		})
		rep := verify.Run([]string{p}, verify.Options{}).Reports[0]
		restore()
		if !mapped {
			if mmapped[runtime.GOOS] {
				t.Fatalf("%s was not memory-mapped, on %s", p, runtime.GOOS)
			}
			t.Skipf("%s was not memory-mapped on this system", p)
		}
		if rep.Verdict != verify.Unchecked || rep.Verdict.Exit() != verify.ExitError || rep.Err == nil ||
			!strings.Contains(rep.Err.Error(), p+" changed while it was read") {
			t.Errorf("truncated to %d bytes once mapped: %s: %s", keep, rep.Verdict, rep.Detail())
		}
		if err := os.WriteFile(p, file, 0o644); err != nil {
			t.Fatal(err)
		}
		if rep := verify.Run([]string{p}, verify.Options{}).Reports[0]; rep.Verdict != verify.OK {
			t.Errorf("unchanged: %s: %s", rep.Verdict, rep.Detail())
		}
	}
}
