package verify_test

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/internal/filtercheck"
	"github.com/ldbcompat/ldbcompat/internal/fixtures"
	"github.com/ldbcompat/ldbcompat/internal/manifest"
	"github.com/ldbcompat/ldbcompat/internal/table/tabletest"
	"github.com/ldbcompat/ldbcompat/internal/verify"
)

// otherDir holds the databases other implementations wrote (make
// fixtures-other).
const otherDir = "../../testdata/other"

// otherFixture is what these tests read of testdata/other/NAME.json.
type otherFixture struct{ fixtures.Other }

// loadOther reads every fixture of testdata/other.
func loadOther(t *testing.T) []otherFixture {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(otherDir, "*.json"))
	if len(paths) == 0 {
		t.Fatal("no fixtures in testdata/other")
	}
	var fs []otherFixture
	for _, p := range paths {
		b := tabletest.ReadFile(t, p)
		var f otherFixture
		if err := json.Unmarshal(b, &f); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		fs = append(fs, f)
	}
	return fs
}

// leveldbAtLeast tells whether the fixture's LevelDB version (as the JSON
// records it: "1.20", or "none: ..." for a port) is major.minor or later.
func (f otherFixture) leveldbAtLeast(major, minor int) bool {
	maj, min, ok := strings.Cut(f.LevelDBVersion, ".")
	a, err1 := strconv.Atoi(maj)
	b, err2 := strconv.Atoi(min)
	if !ok || err1 != nil || err2 != nil {
		return false
	}
	return a > major || a == major && b >= minor
}

// anyHighTail tells whether a live key of the fixture has a tail byte (one
// after its last whole 4-byte word) of 0x80 or more: the keys the two
// legacy hashes tell apart.
func (f otherFixture) anyHighTail(t *testing.T) bool {
	for _, kv := range f.Expect.Live {
		k, err := hex.DecodeString(kv[0])
		if err != nil {
			t.Fatal(err)
		}
		var b filtercheck.BlockKeys
		b.Keys = [][]byte{k}
		if filtercheck.HashesDiffer([]filtercheck.BlockKeys{b}) {
			return true
		}
	}
	return false
}

// expectedFilter is the verdict of a readable table the fixture's writer
// wrote, from what the writer is: C++ LevelDB 1.18 and later name their
// bloom filter leveldb.BuiltinBloomFilter2 and write exactly upstream
// 1.23's filters (their util/bloom.cc and table/filter_block.cc are the
// same); goleveldb's filter.NewBloomFilter names itself
// leveldb.BuiltinBloomFilter, the old name, and hashes tail bytes as
// uint32(b), unsigned, so its filters are those of LevelDB v1.17 or older
// where char is unsigned; iq80 0.7 and plyvel with bloom_filter_bits 0
// write no filter block.
func (f otherFixture) expectedFilter(t *testing.T) (verify.Verdict, string) {
	switch {
	case strings.HasPrefix(f.Summary.Filter, "none"):
		return verify.NoFilter, ""
	case strings.HasPrefix(f.Summary.Filter, "leveldb::NewBloomFilterPolicy(") && f.leveldbAtLeast(1, 18):
		return verify.OK, ""
	case f.Writer == "github.com/syndtr/goleveldb" && strings.HasPrefix(f.Summary.Filter, "filter.NewBloomFilter("):
		if f.anyHighTail(t) {
			return verify.OldFilter, filtercheck.LegacyUnsigned
		}
		return verify.OldFilter, filtercheck.LegacyEither
	}
	t.Fatalf("%s: no expectation for writer %s with filter %q", f.Name, f.Writer, f.Summary.Filter)
	return "", ""
}

// TestOtherImplementations: `verify` on each database another
// implementation wrote, in a copy, gives each table exactly the verdict
// that follows from the writer (expectedFilter) and from the MANIFEST:
// a live table whose recorded size exceeds its file's is unreadable
// (upstream opens it at the recorded size, and the footer there lies past
// the end of the mapped file: "IO error: ...: Invalid argument"); table
// files the MANIFEST does not list are skipped; the database opens, with
// the comparator the fixture's options name when they name one. The exit
// status follows.
func TestOtherImplementations(t *testing.T) {
	for _, f := range loadOther(t) {
		t.Run(f.Name, func(t *testing.T) {
			dir := copyDir(t, filepath.Join(otherDir, f.Name))
			comparator := manifest.BytewiseComparator
			if f.Options.ComparatorName != "" {
				comparator = f.Options.ComparatorName
			}
			v, err := manifest.ReadWith(dir, comparator)
			if err != nil {
				t.Fatal(err)
			}
			fileSize := map[string]int64{}
			for _, fl := range f.Files {
				fileSize[fl.Name] = fl.Size
			}
			filterVerdict, hash := f.expectedFilter(t)
			want := map[string]verify.Verdict{} // by file name; "" for skipped
			live := map[string]bool{}
			for _, lf := range v.Files {
				name := fmt.Sprintf("%06d.ldb", lf.Number)
				if _, ok := fileSize[name]; !ok {
					name = fmt.Sprintf("%06d.sst", lf.Number)
				}
				size, ok := fileSize[name]
				switch {
				case !ok:
					t.Fatalf("live table %d has no file in %s.json", lf.Number, f.Name)
				case uint64(size) < lf.Size:
					want[name] = verify.Unreadable
				default:
					want[name] = filterVerdict
				}
				live[name] = true
			}
			for name := range fileSize {
				if (strings.HasSuffix(name, ".ldb") || strings.HasSuffix(name, ".sst")) && !live[name] {
					want[name] = ""
				}
			}

			res := verify.Run([]string{dir}, verify.Options{})
			db := res.Items[0].Database
			if db == nil || !db.Opens() || db.Comparator != comparator {
				t.Fatalf("database %+v: want it opened, with comparator %s", db, comparator)
			}
			if (comparator != manifest.BytewiseComparator) != (db.DefaultStatus != "") {
				t.Errorf("default comparator's status %q for comparator %s", db.DefaultStatus, comparator)
			}
			got := map[string]verify.Verdict{}
			for _, r := range res.Reports {
				if r == nil {
					continue
				}
				name := filepath.Base(r.Path)
				got[name] = r.Verdict
				if r.Verdict == verify.OldFilter && r.Comparison.Legacy != hash {
					t.Errorf("%s: hash %s, want %s", name, r.Comparison.Legacy, hash)
				}
				if r.Verdict == verify.Unreadable && (r.Status != "IO error: "+r.Path+": Invalid argument" || !strings.Contains(r.Detail(), "(upstream opens it at ")) {
					t.Errorf("%s: status %q: %s", name, r.Status, r.Detail())
				}
			}
			if fmt.Sprint(sorted(got)) != fmt.Sprint(sorted(want)) {
				t.Errorf("verdicts\n got %v\nwant %v", sorted(got), sorted(want))
			}
			code := verify.ExitOK
			counts := map[verify.Verdict]int{}
			tables, skipped := 0, 0
			for _, v := range want {
				if v == "" {
					skipped++
					continue
				}
				tables++
				counts[v]++
				code = max(code, v.Exit())
			}
			s := res.Summary
			if s.Tables != tables || s.Skipped != skipped || s.ExitCode() != code || fmt.Sprint(s.Verdicts) != fmt.Sprint(counts) {
				t.Errorf("summary %q (%+v), exit %d; want %d tables %v, %d skipped, exit %d", s, s, s.ExitCode(), tables, counts, skipped, code)
			}
		})
	}
}

// sorted lists m as "name:verdict", sorted.
func sorted(m map[string]verify.Verdict) []string {
	var s []string
	for k, v := range m {
		s = append(s, k+":"+string(v))
	}
	sort.Strings(s)
	return s
}

// copyDir copies the directory src into a temporary directory.
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	if err := fixtures.CopyDir(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestGoleveldbText: the words a user reads for goleveldb's tables: the
// old name, which LevelDB ignores since 1.18, with the consequence, and no
// hint that the data came from an ARM machine alone.
func TestGoleveldbText(t *testing.T) {
	res := verify.Run([]string{filepath.Join(otherDir, "goleveldb")}, verify.Options{})
	n := 0
	for _, r := range res.Reports {
		if r == nil {
			continue
		}
		n++
		d := r.Detail()
		for _, w := range []string{bloom.LegacyPolicyName + " (unsigned hash: ", "or a port that kept the old name, such as goleveldb",
			"LevelDB 1.18 and later ignore it (they look up " + bloom.PolicyName + "): every lookup of an absent key reads a data block"} {
			if !strings.Contains(d, w) {
				t.Errorf("%s: %q lacks %q", r.Path, d, w)
			}
		}
	}
	if n == 0 || res.Summary.String() != fmt.Sprintf("%d tables: %d old-filter", n, n) {
		t.Errorf("summary %q", res.Summary)
	}
}
