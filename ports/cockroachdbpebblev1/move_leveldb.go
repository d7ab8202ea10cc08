//go:build leveldb

package cockroachdbpebblev1

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/cockroachdb/pebble"
	pbloom "github.com/cockroachdb/pebble/bloom"
	"github.com/cockroachdb/pebble/sstable"
	"github.com/cockroachdb/pebble/vfs"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/cgo/upstream"
	"github.com/ldbcompat/ldbcompat/internal/cases"
	"github.com/ldbcompat/ldbcompat/internal/fixtures"
	"github.com/ldbcompat/ldbcompat/internal/kit"
	"github.com/ldbcompat/ldbcompat/internal/manifest"
	"github.com/ldbcompat/ldbcompat/internal/table"
	"github.com/ldbcompat/ldbcompat/internal/verify"
	"github.com/ldbcompat/ldbcompat/internal/verify/upstreamdb"
	"github.com/ldbcompat/ldbcompat/ports/internal/adapt"
	"github.com/ldbcompat/ldbcompat/ports/internal/pebbleapi"
	"github.com/ldbcompat/ldbcompat/ports/internal/row"
)

// MoveTables measures what becomes of data moved between pebble v1 and
// upstream LevelDB 1.23 as tables and directories, asking upstream itself
// through cgo (internal/verify/upstreamdb): a table pebble v1 writes in
// LevelDB's format (sstable.TableFormatLevelDB, with its bloom filter),
// upstream's tables read by pebble v1's table reader, and upstream's
// databases opened by pebble.Open, then by upstream again.
func MoveTables() []row.Measured {
	return []row.Measured{toLevelDB(), tablesFromLevelDB(), dbFromLevelDB()}
}

// tableNumber is the number of the table toLevelDB writes.
const tableNumber = 5

// toLevelDB writes the kit's database case n3000/bpk10 as one table with
// pebble v1's sstable.Writer in LevelDB's table format with pebble's bloom
// filter, and asks upstream what it does with the table.
func toLevelDB() row.Measured {
	c := cases.DBCases()[0]
	m := row.Measured{
		What: "A table pebble v1 writes in LevelDB's format, read by LevelDB 1.23",
		How: fmt.Sprintf("the %d keys of the kit's database case %q, sorted, written with sstable.NewWriter(w, sstable.WriterOptions{TableFormat: sstable.TableFormatLevelDB, FilterPolicy: bloom.FilterPolicy(%d)}) and Writer.Set as table %06d.ldb; "+
			"upstream LevelDB 1.23 opens it through its TableCache, scans it, and looks up every entry's key with its bloom filter policy (leveldb.BuiltinBloomFilter2), counting the Gets that consult a filter; `ldbcompat verify` on the table",
			len(c.KVs), c.Name, c.BitsPerKey, tableNumber),
		Repro: fmt.Sprintf("sstable.NewWriter(objstorageprovider.NewFileWritable(f), sstable.WriterOptions{TableFormat: sstable.TableFormatLevelDB, FilterPolicy: bloom.FilterPolicy(%d)}); Set each key of case %q of internal/cases.DBCases(); Close; go run github.com/ldbcompat/ldbcompat/cmd/ldbcompat verify %06d.ldb",
			c.BitsPerKey, c.Name, tableNumber),
	}
	dir, err := os.MkdirTemp("", "ldbcompat-pebblev1-")
	if err != nil {
		return m.NotMeasured(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, fmt.Sprintf("%06d.ldb", tableNumber))
	if err := writeLevelDBTable(path, c.KVs, c.BitsPerKey); err != nil {
		m.Outcome = "not measured: pebble v1 cannot write the table: " + err.Error()
		return m
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return m.NotMeasured(err)
	}
	t, err := table.Open(filepath.Base(path), bytes.NewReader(data), int64(len(data)))
	if err != nil {
		m.Outcome = "ldbcompat's table reader refuses it: " + err.Error()
		return m
	}
	var names []string
	for _, e := range t.Metaindex() {
		names = append(names, "`"+e.Name+"`")
	}
	has := "no"
	if _, _, ok := t.FilterBlock(); ok {
		has = "a"
	}
	ut, err := upstreamdb.AskTable(dir, tableNumber, uint64(len(data)), upstream.Comparator{})
	if err != nil {
		m.Outcome = "not measured: asking upstream: " + err.Error()
		return m
	}
	res := verify.Run([]string{path}, verify.Options{})
	v := "no verdict"
	if len(res.Reports) == 1 && res.Reports[0] != nil {
		v = fmt.Sprintf("`%s`: %s", res.Reports[0].Verdict, strings.ReplaceAll(res.Reports[0].Detail(), dir+string(filepath.Separator), ""))
	}
	m.Outcome = fmt.Sprintf("its metaindex holds %s, so %s filter upstream reads (`filter.%s`, a filter per 2 KiB of data): pebble v1 writes its whole-table filter under that name even in LevelDB's table format. Upstream LevelDB 1.23 %s (%s); of the %d Gets, %d consulted a filter and %d did not return their entry. "+
		"So nothing is lost: upstream reads every key, without the filter, and every Get of an absent key reads a data block. `ldbcompat verify`: %s",
		strings.Join(names, ", "), has, bloom.PolicyName, ut.Class, upstreamStatus(ut), ut.Keys, consulted(ut), ut.NotFound, v)
	switch {
	case ut.NotFound > 0 || ut.Rejected > 0:
		m.Harm = kit.HarmFalseNegatives
	case ut.Class == upstreamdb.Refused:
		m.Harm = kit.HarmFails
	case ut.Class != upstreamdb.WithFilter:
		m.Harm = kit.HarmSlower
	}
	return m
}

func upstreamStatus(t upstreamdb.Table) string {
	if t.Status != "" {
		return "status: " + t.Status
	}
	return fmt.Sprintf("opens and scans it: %d entries", len(t.Entries))
}

// consulted is the number of Gets that consulted a filter: all of them
// for a table read with its filter, none otherwise.
func consulted(t upstreamdb.Table) int {
	if t.Class == upstreamdb.WithFilter {
		return t.Keys
	}
	return 0
}

// tablesFromLevelDB reads every live table of the databases upstream wrote
// with pebble v1's sstable.Reader, with pebble's bloom filter policy
// registered, and compares what it yields and finds with what upstream's
// own iterator yields.
func tablesFromLevelDB() row.Measured {
	m := row.Measured{
		What: "LevelDB 1.23's tables read by pebble v1's table reader",
		How: "every live table of the databases upstream wrote (testdata/tables) opened with sstable.NewReader(f, sstable.ReaderOptions{Filters: {bloom.FilterPolicy(bits).Name(): bloom.FilterPolicy(bits)}}); " +
			"its iterator's entries compared with upstream's full scan of the same table, each user key sought with SeekGE, and the filter the reader found taken from Reader.Layout",
		Repro: "sstable.NewReader(sstable.NewSimpleReadable(f), sstable.ReaderOptions{Filters: map[string]sstable.FilterPolicy{\"rocksdb.BuiltinBloomFilter\": bloom.FilterPolicy(10)}}) on testdata/tables/b10-bs4096-snappy/000005.ldb; Reader.Layout().Filter",
	}
	dbs, tmp, err := copyCommitted()
	if err != nil {
		return m.NotMeasured(err)
	}
	defer os.RemoveAll(tmp)
	var tables, opened, withFilter, entries, sameEntries, userKeys, found int
	var problems []string
	for _, db := range dbs {
		for _, ut := range db.upstream.Tables {
			tables++
			path := filepath.Join(db.dir, fmt.Sprintf("%06d.ldb", ut.Number))
			r, err := openPebbleTable(path, db.Info.BitsPerKey)
			if err != nil {
				problems = append(problems, fmt.Sprintf("%s/%06d.ldb: %v", db.Dir, ut.Number, err))
				continue
			}
			opened++
			if l, err := r.Layout(); err == nil && l.Filter.Length > 0 {
				withFilter++
			}
			got, err := pebbleEntries(r)
			if err != nil {
				problems = append(problems, fmt.Sprintf("%s/%06d.ldb: %v", db.Dir, ut.Number, err))
			}
			entries += len(ut.Entries)
			for j, e := range ut.Entries {
				if j < len(got) && bytes.Equal(got[j], e.Key) {
					sameEntries++
				}
			}
			k, f, err := seekUserKeys(r, ut.Entries)
			if err != nil {
				problems = append(problems, fmt.Sprintf("%s/%06d.ldb: %v", db.Dir, ut.Number, err))
			}
			userKeys += k
			found += f
			r.Close()
		}
	}
	m.Outcome = fmt.Sprintf("pebble v1 opens %d of the %d tables of the %d databases; it yields %d of their %d entries as upstream's iterator does, and SeekGE finds %d of their %d user keys. It finds a filter in %d of them: it looks only for `fullfilter.` and the policy's name, so it reads LevelDB's tables without their filters (no wrong answers; every lookup reads a data block)",
		opened, tables, len(dbs), sameEntries, entries, found, userKeys, withFilter)
	if len(problems) > 0 {
		m.Outcome += "; " + strings.Join(problems, "; ")
	}
	switch {
	case found < userKeys || sameEntries < entries:
		m.Harm = kit.HarmFalseNegatives
	case len(problems) > 0 || opened < tables:
		m.Harm = kit.HarmFails
	case withFilter < tables:
		m.Harm = kit.HarmSlower
	}
	return m
}

func openPebbleTable(path string, bitsPerKey int) (*sstable.Reader, error) {
	f, err := vfs.Default.Open(path)
	if err != nil {
		return nil, err
	}
	rd, err := sstable.NewSimpleReadable(f)
	if err != nil {
		f.Close()
		return nil, err
	}
	p := pbloom.FilterPolicy(bitsPerKey)
	r, err := sstable.NewReader(rd, sstable.ReaderOptions{Filters: map[string]sstable.FilterPolicy{p.Name(): p}})
	if err != nil {
		// NewReader has closed rd: closing it again panics.
		return nil, err
	}
	return r, nil
}

// pebbleEntries returns the internal keys r's iterator yields, encoded as
// LevelDB encodes them (user key, then 8 bytes of sequence number and
// kind).
func pebbleEntries(r *sstable.Reader) ([][]byte, error) {
	it, err := r.NewIter(nil, nil)
	if err != nil {
		return nil, err
	}
	var out [][]byte
	for k, _ := it.First(); k != nil; k, _ = it.Next() {
		e := append([]byte(nil), k.UserKey...)
		out = append(out, binary.LittleEndian.AppendUint64(e, uint64(k.Trailer)))
	}
	if err := it.Close(); err != nil {
		return out, err
	}
	return out, nil
}

// seekUserKeys seeks each distinct user key of entries in r and counts
// those found.
func seekUserKeys(r *sstable.Reader, entries []upstream.TableEntry) (keys, found int, err error) {
	it, err := r.NewIter(nil, nil)
	if err != nil {
		return 0, 0, err
	}
	seen := map[string]bool{}
	for _, e := range entries {
		if len(e.Key) < 8 {
			continue
		}
		uk := e.Key[:len(e.Key)-8]
		if seen[string(uk)] {
			continue
		}
		seen[string(uk)] = true
		keys++
		if k, _ := it.SeekGE(uk, 0); k != nil && bytes.Equal(k.UserKey, uk) {
			found++
		}
	}
	return keys, found, it.Close()
}

// dbFromLevelDB opens each database upstream wrote with pebble.Open, as it
// is and with its tables renamed to .sst, reads every key it holds, then
// asks upstream to open the database pebble opened and closed.
func dbFromLevelDB() row.Measured {
	m := row.Measured{
		What: "LevelDB 1.23's databases opened by pebble v1, then by LevelDB again",
		How: "each database upstream wrote (testdata/tables), copied: pebble.Open(dir, &Options{ErrorIfNotExists: true, Levels[0].FilterPolicy: bloom.FilterPolicy(bits)}) as it is; then, on another copy with its table files renamed from NNNNNN.ldb to NNNNNN.sst, " +
			"the same Open, DB.Get of every key the database holds (the newest version of each user key, by upstream's scan of its live tables), and DB.Close with nothing written; then upstream LevelDB 1.23 asked to open that directory (VersionSet::Recover)",
		Repro: "cp -r testdata/tables/b10-bs4096-snappy db; pebble.Open(\"db\", opts); for f in db/*.ldb; do mv $f ${f%.ldb}.sst; done; pebble.Open(\"db\", opts), DB.Get, DB.Close; then upstream's DB::Open of db",
	}
	dbs, tmp, err := copyCommitted()
	if err != nil {
		return m.NotMeasured(err)
	}
	defer os.RemoveAll(tmp)
	var asIs, renamed, keys, found, upstreamBefore, upstreamOpens int
	var firstAsIs, firstUpstream string
	var problems []string
	for i, db := range dbs {
		dir := db.dir
		live := liveKeys(db.upstream)
		if err := openClose(dir, db.Info.BitsPerKey, nil); err != nil {
			if firstAsIs == "" {
				firstAsIs, _, _ = strings.Cut(strings.ReplaceAll(err.Error(), dir, "<dir>"), "\n")
			}
		} else {
			asIs++
		}
		dir2 := filepath.Join(tmp, strconv.Itoa(i)+"-sst")
		if err := fixtures.CopyDir(dir2, db.FS); err != nil {
			return m.NotMeasured(err)
		}
		if err := renameTables(dir2); err != nil {
			return m.NotMeasured(err)
		}
		if before, err := upstreamdb.Ask(dir2, upstream.Comparator{}); err != nil {
			m.Outcome = "not measured: asking upstream: " + err.Error()
			return m
		} else if before.Opens() {
			upstreamBefore++
		}
		keys += len(live)
		var got int
		if err := openClose(dir2, db.Info.BitsPerKey, func(d *pebble.DB) error {
			for _, k := range live {
				_, closer, err := d.Get(k)
				if err == nil {
					got++
					closer.Close()
				} else if err != pebble.ErrNotFound {
					return err
				}
			}
			return nil
		}); err != nil {
			problems = append(problems, fmt.Sprintf("%s with .sst names: %s", db.Dir, strings.ReplaceAll(err.Error(), dir2, "<dir>")))
			continue
		}
		renamed++
		found += got
		after, err := upstreamdb.Ask(dir2, upstream.Comparator{})
		if err != nil {
			m.Outcome = "not measured: asking upstream: " + err.Error()
			return m
		}
		if after.Opens() {
			upstreamOpens++
		} else if firstUpstream == "" {
			firstUpstream = after.Status + after.Missing
			if _, err := manifest.Read(dir2); err != nil {
				firstUpstream += "`; ldbcompat's MANIFEST reader: `" + strings.ReplaceAll(err.Error(), dir2, "<dir>")
			}
		}
	}
	m.Outcome = fmt.Sprintf("as written, pebble v1 opens %d of the %d databases", asIs, len(dbs))
	if firstAsIs != "" {
		m.Outcome += fmt.Sprintf(" (first refusal: `%s`: pebble looks for tables named NNNNNN.sst, and LevelDB 1.23 names them NNNNNN.ldb)", firstAsIs)
	}
	m.Outcome += fmt.Sprintf(". With the tables renamed to .sst, which upstream LevelDB 1.23 still opens (%d of the %d), it opens %d of them and its Get finds %d of the %d keys they hold. After pebble v1 opened and closed them, writing no key, upstream LevelDB 1.23 opens %d of those %d", upstreamBefore, len(dbs), renamed, found, keys, upstreamOpens, renamed)
	if firstUpstream != "" {
		m.Outcome += fmt.Sprintf(" (first refusal: `%s`)", firstUpstream)
	}
	m.Outcome += "."
	if len(problems) > 0 {
		m.Outcome += " " + strings.Join(problems, "; ")
	}
	switch {
	case found < keys:
		m.Harm = kit.HarmFalseNegatives
	case asIs < len(dbs) || upstreamOpens < renamed || len(problems) > 0:
		m.Harm = kit.HarmFails
	}
	return m
}

// upstreamCopy is a copy of a database upstream wrote (testdata/tables),
// and what upstream finds in it.
type upstreamCopy struct {
	fixtures.DB
	dir      string         // the copy
	upstream *upstreamdb.DB // what upstream LevelDB 1.23 finds in it
}

// copyCommitted copies each database upstream wrote into a directory of
// its own (named by its index) under tmp, a new temporary directory, and
// asks upstream about each copy. The caller removes tmp; on an error,
// copyCommitted has.
func copyCommitted() (dbs []upstreamCopy, tmp string, err error) {
	committed, err := adapt.Committed()
	if err != nil {
		return nil, "", err
	}
	tmp, err = os.MkdirTemp("", "ldbcompat-pebblev1-")
	if err != nil {
		return nil, "", err
	}
	for i, db := range committed {
		c := upstreamCopy{DB: db, dir: filepath.Join(tmp, strconv.Itoa(i))}
		if err := fixtures.CopyDir(c.dir, db.FS); err != nil {
			os.RemoveAll(tmp)
			return nil, "", err
		}
		if c.upstream, err = upstreamdb.Ask(c.dir, upstream.Comparator{}); err != nil {
			os.RemoveAll(tmp)
			return nil, "", fmt.Errorf("asking upstream: %w", err)
		}
		dbs = append(dbs, c)
	}
	return dbs, tmp, nil
}

// liveKeys returns the user keys whose newest version in d's live tables
// is a value, in order.
func liveKeys(d *upstreamdb.DB) [][]byte {
	type version struct {
		seq  uint64
		live bool
	}
	newest := map[string]version{}
	for _, t := range d.Tables {
		for _, e := range t.Entries {
			if len(e.Key) < 8 {
				continue
			}
			tag := binary.LittleEndian.Uint64(e.Key[len(e.Key)-8:])
			uk := string(e.Key[:len(e.Key)-8])
			if v, ok := newest[uk]; !ok || tag>>8 > v.seq {
				newest[uk] = version{tag >> 8, tag&0xff == 1}
			}
		}
	}
	var out [][]byte
	for uk, v := range newest {
		if v.live {
			out = append(out, []byte(uk))
		}
	}
	sort.Slice(out, func(i, j int) bool { return bytes.Compare(out[i], out[j]) < 0 })
	return out
}

func renameTables(dir string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if base, ok := strings.CutSuffix(e.Name(), ".ldb"); ok {
			if err := os.Rename(filepath.Join(dir, e.Name()), filepath.Join(dir, base+".sst")); err != nil {
				return err
			}
		}
	}
	return nil
}

// openClose opens the database in dir with pebble v1, calls fn on it when
// fn is set, and closes it.
func openClose(dir string, bitsPerKey int, fn func(*pebble.DB) error) error {
	d, err := open(dir, pebbleapi.Open{Filter: true, BitsPerKey: bitsPerKey, ErrorIfNotExists: true})
	if err != nil {
		return err
	}
	if fn != nil {
		if err := fn(d.DB); err != nil {
			d.Close()
			return err
		}
	}
	return d.Close()
}
