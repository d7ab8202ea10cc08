//go:build leveldb

package kit

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jmhodges/levigo"

	"github.com/ldbcompat/ldbcompat/internal/manifest"
)

// sstablesLine matches a table in upstream's "leveldb.sstables" property
// (Version::DebugString): " NUMBER:SIZE[smallest .. largest]".
var sstablesLine = regexp.MustCompile(`^ (\d+):(\d+)\[`)

// upstreamVersion lists the live tables of an open database as upstream
// reports them, as "level:number:size".
func upstreamVersion(t *testing.T, db *levigo.DB) []string {
	t.Helper()
	var out []string
	level := -1
	for _, l := range strings.Split(db.PropertyValue("leveldb.sstables"), "\n") {
		if n, ok := strings.CutPrefix(l, "--- level "); ok {
			level, _ = strconv.Atoi(strings.TrimSuffix(n, " ---"))
			continue
		}
		if m := sstablesLine.FindStringSubmatch(l); m != nil {
			out = append(out, fmt.Sprintf("%d:%s:%s", level, m[1], m[2]))
		}
	}
	return out
}

// ourVersion lists the live tables manifest.Read finds in dir, in the
// same form.
func ourVersion(t *testing.T, dir string) []string {
	t.Helper()
	v, err := manifest.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range v.Files {
		out = append(out, fmt.Sprintf("%d:%d:%d", f.Level, f.Number, f.Size))
	}
	return out
}

func sortedVersion(s []string) []string {
	s = append([]string(nil), s...)
	sort.Strings(s)
	return s
}

// TestManifestAgainstUpstream: while upstream has a database open, after
// flushes, compactions and deletions, the MANIFEST as package manifest
// reads it lists the same live tables, levels and sizes as upstream's own
// "leveldb.sstables" property (once background work has settled); every
// live table exists with that size; and the same holds after the database
// is closed and reopened.
func TestManifestAgainstUpstream(t *testing.T) {
	dir := t.TempDir()
	opts := levigo.NewOptions()
	t.Cleanup(opts.Close)
	opts.SetCreateIfMissing(true)
	opts.SetWriteBufferSize(64 << 10) // many flushes
	opts.SetCompression(levigo.NoCompression)
	wo := levigo.NewWriteOptions()
	t.Cleanup(wo.Close)
	db, err := levigo.Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	// Close the database however the test ends, before the options (the
	// cleanups run last registered first): a check that failed used to
	// leave it open, and under v1.11 to v1.13 the test binary then hung
	// until go test's 10-minute timeout.
	t.Cleanup(func() {
		if db != nil {
			db.Close()
		}
	})
	rng := rand.New(rand.NewPCG(3, 4))
	value := make([]byte, 300)
	check := func(when string) []string {
		t.Helper()
		// Background flushes and compactions go on after the writes;
		// LevelDB appends an edit to the MANIFEST before it installs the
		// version, and deletes the tables a compaction replaced after it.
		// So compare, and stat the live tables, while upstream's version
		// stays the same from before the MANIFEST is read to after the
		// tables are found, retrying for five seconds at most.
		var want, got []string
		var problem string
		for try := 0; try < 500; try++ {
			if try > 0 {
				time.Sleep(10 * time.Millisecond)
			}
			want = sortedVersion(upstreamVersion(t, db))
			got = sortedVersion(ourVersion(t, dir))
			problem = statLive(dir)
			if cmp.Equal(got, want) && problem == "" && cmp.Equal(sortedVersion(upstreamVersion(t, db)), want) {
				break
			}
		}
		if len(want) == 0 {
			t.Fatalf("%s: upstream lists no tables", when)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("%s: live tables, level:number:size, upstream's leveldb.sstables against manifest.Read's (-upstream +got):\n%s", when, diff)
		}
		if problem != "" {
			t.Fatalf("%s: %s", when, problem)
		}
		return want
	}
	for round := 0; round < 4; round++ {
		for i := 0; i < 3000; i++ {
			k := []byte(fmt.Sprintf("key%06d", rng.IntN(20000)))
			for j := range value {
				value[j] = byte(rng.Uint32())
			}
			if rng.IntN(5) == 0 {
				err = db.Delete(wo, k)
			} else {
				err = db.Put(wo, k, value)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		before := check(fmt.Sprintf("round %d, after writes", round))
		lo := rng.IntN(20000)
		db.CompactRange(levigo.Range{Start: []byte(fmt.Sprintf("key%06d", lo)), Limit: []byte(fmt.Sprintf("key%06d", lo+5000))})
		after := check(fmt.Sprintf("round %d, after a compaction", round))
		// A manual compaction rewrites the tables it takes in (it never
		// just moves them), and it takes in the memtable's table and the
		// tables beneath it that overlap the range: so some table live
		// before it is gone, and the MANIFEST read above replayed an edit
		// that deleted it. Without this the test would prove little.
		if gone := removed(before, after); len(gone) == 0 {
			t.Errorf("round %d: the compaction removed no table (before %v, after %v)", round, before, after)
		}
	}
	db.Close()
	db = nil
	db, err = levigo.Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	check("reopened")
}

// statLive says which live table of the database in dir, as manifest.Read
// lists them, is missing or of another size than the MANIFEST records, or
// returns "".
func statLive(dir string) string {
	v, err := manifest.Read(dir)
	if err != nil {
		return err.Error()
	}
	for _, f := range v.Files {
		// NNNNNN.ldb from v1.14, NNNNNN.sst before (and still read).
		fi, err := os.Stat(filepath.Join(dir, fmt.Sprintf("%06d.ldb", f.Number)))
		if errors.Is(err, fs.ErrNotExist) {
			fi, err = os.Stat(filepath.Join(dir, fmt.Sprintf("%06d.sst", f.Number)))
		}
		if err != nil || uint64(fi.Size()) != f.Size {
			return fmt.Sprintf("live table %d of %d bytes: %v", f.Number, f.Size, err)
		}
	}
	return ""
}

// removed lists the tables of before that are not in after.
func removed(before, after []string) []string {
	in := map[string]bool{}
	for _, f := range after {
		in[f] = true
	}
	var out []string
	for _, f := range before {
		if !in[f] {
			out = append(out, f)
		}
	}
	return out
}
