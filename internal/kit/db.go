package kit

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/internal/base"
	"github.com/ldbcompat/ldbcompat/internal/cases"
	"github.com/ldbcompat/ldbcompat/internal/filtercheck"
	"github.com/ldbcompat/ldbcompat/internal/fixtures"
	"github.com/ldbcompat/ldbcompat/internal/manifest"
	"github.com/ldbcompat/ldbcompat/internal/plural"
	"github.com/ldbcompat/ldbcompat/internal/table"
)

// An upstreamDB is a database that upstream LevelDB wrote.
type upstreamDB struct {
	name string // where it comes from, for reports
	bits int    // bloom filter bits per key it was written with
	fsys fs.FS
}

// committedPrefix begins the name of every committed database.
const committedPrefix = "testdata/tables/"

// committedDBs lists the databases in tables (internal/fixtures layout).
func committedDBs(tables fs.FS) ([]upstreamDB, error) {
	dbs, err := fixtures.Load(tables)
	if err != nil {
		return nil, err
	}
	out := make([]upstreamDB, len(dbs))
	for i, db := range dbs {
		out[i] = upstreamDB{name: committedPrefix + db.Dir, bits: db.Info.BitsPerKey, fsys: db.FS}
	}
	return out, nil
}

// tableNames returns the table files (*.ldb, *.sst) of fsys, sorted.
func tableNames(fsys fs.FS) ([]string, error) {
	ents, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if n := e.Name(); e.Type().IsRegular() && base.HasTableExt(n) {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out, nil
}

func openTable(fsys fs.FS, name string) (*table.Table, error) {
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, err
	}
	return table.Open(name, bytes.NewReader(data), int64(len(data)))
}

// dbKey is what a database holds for one user key: its newest version.
type dbKey struct {
	key   []byte
	seq   uint64
	live  bool   // the newest version is a value, not a deletion
	where string // table and data block of the newest version
	value []byte
}

// dbContents returns each user key's newest version in a database, by
// key: from its tables, or its logs too when one is not empty.
func dbContents(fsys fs.FS) ([]dbKey, error) {
	ents, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, err
	}
	for _, e := range ents {
		if _, typ, _ := base.ParseFileName(e.Name()); typ == base.LogFile {
			if info, err := e.Info(); err != nil || info.Size() != 0 {
				return logContents(fsys)
			}
		}
	}
	names, err := tableNames(fsys)
	if err != nil {
		return nil, err
	}
	newest := map[string]*dbKey{}
	put := keepNewest(newest, false)
	for _, name := range names {
		if err := scanTable(fsys, name, put); err != nil {
			return nil, err
		}
	}
	return sortedVersions(newest), nil
}

// putFunc records a version of key, found where where() says.
type putFunc func(key []byte, seq uint64, live bool, value []byte, where func() string)

// keepNewest keeps each user key's newest version in m (ties: the last).
func keepNewest(m map[string]*dbKey, ties bool) putFunc {
	return func(key []byte, seq uint64, live bool, value []byte, where func() string) {
		if old, ok := m[string(key)]; ok && (old.seq > seq || old.seq == seq && !ties) {
			return
		}
		m[string(key)] = &dbKey{key: append([]byte(nil), key...), seq: seq, live: live, where: where(), value: append([]byte(nil), value...)}
	}
}

// scanTable puts every entry of table name of fsys.
func scanTable(fsys fs.FS, name string, put putFunc) error {
	t, err := openTable(fsys, name)
	if err != nil {
		return err
	}
	return t.DataBlocks(func(b *table.DataBlock) error {
		where := func() string { return fmt.Sprintf("%s, data block at offset %d", name, b.Handle.Offset) }
		for _, e := range b.Entries {
			put(e.Key.UserKey, e.Key.Seq, e.Key.Kind == table.KindValue, e.Value, where)
		}
		return nil
	})
}

// sortedVersions returns the versions of m by user key.
func sortedVersions(m map[string]*dbKey) []dbKey {
	out := make([]dbKey, 0, len(m))
	for _, d := range m {
		out = append(out, *d)
	}
	sort.Slice(out, func(i, j int) bool { return bytes.Compare(out[i].key, out[j].key) < 0 })
	return out
}

// checkReadDB has the port read databases upstream wrote.
func checkReadDB(p Port, cfg kitConfig, k *results) string {
	return readUpstreamDBs(p, cfg, k, dbRead{
		prop: PropReadDB, fails: kindReadFails, missing: kindReadMissing, extra: kindReadExtra,
		committed: func() ([]upstreamDB, error) { return committedDBs(cfg.tables) },
		live:      liveDBs,
		confirm: func(db upstreamDB, contents []dbKey, absent [][]byte) error {
			if !cfg.live {
				return nil
			}
			return confirmContents(db, contents, absent)
		},
		committedErr: "committed databases", liveErr: "writing databases with upstream",
		none: "no upstream database to read: this build of ldbcompat embeds none and was built without the leveldb tag",
		cannot: func(db upstreamDB) string {
			return fmt.Sprintf("port cannot read the database upstream wrote (%s, bloom filter of %d bits/key)", plural.Count(tableCount(db.fsys), "table"), db.bits)
		},
		holds: "upstream's database holds",
		everyOne: func(db upstreamDB) string {
			return fmt.Sprintf("upstream finds every one; bloom filter of %d bits/key", db.bits)
		},
		holdsNot: "upstream's database",
	})
}

// dbRead words a property of ReadDB on upstream's databases.
type dbRead struct {
	prop                  Property
	fails, missing, extra failureKind
	committed             func() ([]upstreamDB, error)
	live                  func(dir string) ([]upstreamDB, error)
	confirm               func(db upstreamDB, contents []dbKey, absent [][]byte) error
	committedErr, liveErr string // what failed to load, in suite errors
	none                  string // the skip note when there is no database
	cannot                func(db upstreamDB) string
	holds, holdsNot       string
	everyOne              func(db upstreamDB) string
}

// readUpstreamDBs runs property r.prop: the port must find every live key
// of each database and no deleted or absent one.
func readUpstreamDBs(p Port, cfg kitConfig, k *results, r dbRead) string {
	var dbs []upstreamDB
	if cfg.tables != nil {
		c, err := r.committed()
		if err != nil {
			k.suiteError(fmt.Sprintf("%s: %v", r.committedErr, err))
		}
		dbs = append(dbs, c...)
	}
	tmp, err := os.MkdirTemp("", "ldbcompat-kit-")
	if err != nil {
		k.suiteError(err.Error())
		return ""
	}
	defer os.RemoveAll(tmp)
	if cfg.live {
		live, err := r.live(filepath.Join(tmp, "upstream"))
		if err != nil {
			k.suiteError(fmt.Sprintf("%s: %v", r.liveErr, err))
		}
		dbs = append(dbs, live...)
	}
	if len(dbs) == 0 {
		return r.none
	}
	for i, db := range dbs {
		contents, absent, err := dbQueries(db)
		if err == nil {
			err = r.confirm(db, contents, absent)
		}
		if err != nil {
			k.suiteError(fmt.Sprintf("%s: %v", db.name, err))
			continue
		}
		queries := append(userKeys(contents), absent...)
		dir := filepath.Join(tmp, fmt.Sprintf("read%d", i))
		if err := fixtures.CopyDir(dir, db.fsys); err != nil {
			k.suiteError(err.Error())
			continue
		}
		k.compare(r.prop, db.name)
		repro := fmt.Sprintf("ReadDB(compat.UpstreamDB(t, %q), %d, compat.UpstreamDBKeys(%q))", db.name, db.bits, db.name)
		k.guard(r.prop, db.name, repro, func() {
			found, err := p.ReadDB(dir, db.bits, queries)
			if err != nil {
				k.fail(failure(r.prop, db.name, r.fails, r.cannot(db)+": "+scrub(err, dir), repro))
				return
			}
			if len(found) != len(queries) {
				k.fail(failure(r.prop, db.name, r.fails, fmt.Sprintf("ReadDB answered %d of %s", len(found), plural.Count(len(queries), "key")), repro))
				return
			}
			r.judge(db, contents, queries, found, k)
		})
	}
	return ""
}

// judge records the failure of the port's answers found to queries, if any.
func (r dbRead) judge(db upstreamDB, contents []dbKey, queries [][]byte, found []bool, k *results) {
	var missing, extra []int
	live := 0
	for i := range queries {
		switch {
		case i < len(contents) && contents[i].live:
			live++
			if !found[i] {
				missing = append(missing, i)
			}
		case found[i]:
			extra = append(extra, i)
		}
	}
	var problems, keys []string
	var kinds []failureKind
	if len(missing) > 0 {
		d := contents[missing[0]]
		problems = append(problems, fmt.Sprintf("port reports %d of the %s %s missing (%s); first: key %x, newest version in %s",
			len(missing), plural.Count(live, "key"), r.holds, r.everyOne(db), d.key, d.where))
		kinds = append(kinds, r.missing)
		keys = append(keys, fmt.Sprintf("%q", hex.EncodeToString(d.key)))
	}
	if len(extra) > 0 {
		q := queries[extra[0]]
		what := "never written"
		if extra[0] < len(contents) {
			what = "deleted, in " + contents[extra[0]].where
		}
		problems = append(problems, fmt.Sprintf("port finds %s that %s does not hold; first: key %x (%s)", plural.Count(len(extra), "key"), r.holdsNot, q, what))
		kinds = append(kinds, r.extra)
		keys = append(keys, fmt.Sprintf("%q", hex.EncodeToString(q)))
	}
	if len(problems) > 0 {
		k.fail(failure(r.prop, db.name, kinds[0], strings.Join(problems, "; "),
			fmt.Sprintf("ReadDB(compat.UpstreamDB(t, %q), %d, compat.HexKeys(%s))", db.name, db.bits, strings.Join(keys, ", "))))
	}
}

// inCopy calls fn on a temporary copy of fsys, which it then removes.
func inCopy(fsys fs.FS, fn func(dir string) error) error {
	tmp, err := os.MkdirTemp("", "ldbcompat-kit-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := fixtures.CopyDir(tmp, fsys); err != nil {
		return err
	}
	return fn(tmp)
}

// scrub drops the temporary dir from err, so that reports are stable.
func scrub(err error, dir string) string {
	return strings.ReplaceAll(err.Error(), dir, "<dir>")
}

func tableCount(fsys fs.FS) int {
	n, _ := tableNames(fsys)
	return len(n)
}

// checkWriteDB has the port write databases, checked as upstream reads them.
func checkWriteDB(p Port, cfg kitConfig, k *results) {
	eachCaseDir(k, cases.DBCases(), func(c cases.DBCase, tmp, dir string) {
		write := fmt.Sprintf("dir := t.TempDir(); WriteDB(dir, compat.CaseKVs(%q), %d)", c.Name, c.BitsPerKey)
		var found []caseFailure
		returned := false
		k.guard(PropWriteDB, c.Name, write, func() {
			err := p.WriteDB(dir, c.KVs, c.BitsPerKey)
			returned = true
			if err != nil {
				k.compared[PropWriteDB]++
				found = append(found, failure(PropWriteDB, c.Name, kindWriteFails, fmt.Sprintf("port cannot write the database: %s", scrub(err, dir)), write))
				return
			}
			found = append(found, checkTables(c, dir, write, k)...)
			if cfg.live {
				found = append(found, checkUpstreamReads(c, dir, write, tmp, k)...)
			}
		})
		if !returned {
			k.compared[PropWriteDB]++ // WriteDB panicked: the guard recorded it
		}
		sortBySeverity(found)
		for _, f := range found {
			k.fail(f)
		}
	})
}

// eachCaseDir calls fn on each of cs with an empty dir under tmp.
func eachCaseDir[C any](res *results, cs []C, fn func(c C, tmp, dir string)) {
	tmp, err := os.MkdirTemp("", "ldbcompat-kit-")
	if err != nil {
		res.suiteError(err.Error())
		return
	}
	defer os.RemoveAll(tmp)
	for i, c := range cs {
		dir := filepath.Join(tmp, fmt.Sprintf("case%d", i))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			res.suiteError(err.Error())
			continue
		}
		fn(c, tmp, dir)
	}
}

// checkTables checks each live table's filter block against upstream's
// for the same keys and blocks, and the keys upstream's filter rejects.
func checkTables(c cases.DBCase, dir, write string, k *results) []caseFailure {
	fsys := os.DirFS(dir)
	names, err := tableNames(fsys)
	if err != nil {
		k.suiteError(err.Error())
		return nil
	}
	names, out := liveTables(c, dir, names, write)
	if len(out) > 0 {
		k.compared[PropWriteDB]++
	}
	if len(names) == 0 {
		k.compared[PropWriteDB]++
		return append(out, failure(PropWriteDB, c.Name, kindNoTable, "the port left no table in the database (its data stayed in the log), so no filter block could be checked", write))
	}
	for _, name := range names {
		k.compared[PropWriteDB]++
		repro := write + "; go run github.com/ldbcompat/ldbcompat/cmd/ldbcompat verify " + path.Join("dir", name)
		caseName := c.Name + "/" + name
		fail := func(kind failureKind, format string, args ...any) {
			out = append(out, failure(PropWriteDB, caseName, kind, fmt.Sprintf(format, args...), repro))
		}
		t, err := openTable(fsys, name)
		if err != nil {
			fail(kindTableFormat, "table is not in upstream's format: %v", err)
			continue
		}
		r, err := filtercheck.CompareTable(t)
		if err != nil {
			fail(kindTableFormat, "table is not in upstream's format: %v", err)
			continue
		}
		switch {
		case r.Match == filtercheck.MatchNoFilter:
			fail(kindNoFilter, "table of %s has no filter block; upstream writes one in every table when a filter policy is set", plural.Count(r.Keys, "key"))
			continue
		case r.Policy != bloom.PolicyName:
			d := fmt.Sprintf("filter block is named %q (metaindex key %q); upstream 1.23 reads only %q and ignores it", r.Policy, "filter."+r.Policy, "filter."+bloom.PolicyName)
			if r.Policy == bloom.LegacyPolicyName {
				d += fmt.Sprintf(" (the name of LevelDB v1.4 to v1.17; its bytes are those of that era's %s hash)", r.Legacy)
			}
			fail(kindFilterName, "%s", d)
			continue
		}
		var problems []string
		if r.Match == filtercheck.MatchDiffers {
			params := "layout: " + r.LayoutError
			if r.Params != nil && r.LayoutError == "" {
				params = r.Params.String()
			}
			problems = append(problems, fmt.Sprintf("filter block differs from the one upstream writes for the table's %s in %s at %d bits/key: %s; the stored block implies %s",
				plural.Count(r.Keys, "key"), plural.Count(r.DataBlocks, "data block"), c.BitsPerKey, r.Diff, params))
		} else if r.Params != nil && r.Params.Known && (c.BitsPerKey < r.Params.MinBitsPerKey || c.BitsPerKey > r.Params.MaxBitsPerKey) {
			problems = append(problems, fmt.Sprintf("filters are upstream's for %s, but the port was asked for %d bits/key", r.Params, c.BitsPerKey))
		}
		// What Table::InternalGet asks the filter block (package bloom is upstream's).
		_, contents, _ := t.FilterBlock()
		fn := filtercheck.CountFalseNegatives(bloom.NewPolicy(c.BitsPerKey), contents, r.Blocks)
		switch {
		case fn.Rejected > 0:
			problems = append([]string{fmt.Sprintf("upstream's filter check rejects %d of the table's %s (false negatives); first: key %x in the data block at offset %d",
				fn.Rejected, plural.Count(fn.Keys, "key"), fn.FirstKey, fn.FirstBlock.Offset)}, problems...)
			fail(kindRejectsKeys, "%s", strings.Join(problems, "; "))
		case len(problems) > 0:
			fail(kindOtherFilters, "%s", strings.Join(problems, "; "))
		}
	}
	return out
}

// liveTables returns the tables of names the MANIFEST lists, the only ones
// upstream reads; when it cannot tell, every table and a failure.
func liveTables(c cases.DBCase, dir string, names []string, write string) ([]string, []caseFailure) {
	caseName := c.Name + "/MANIFEST"
	write += "; go run github.com/ldbcompat/ldbcompat/cmd/ldbcompat verify dir"
	v, err := manifest.Read(dir)
	if err != nil {
		return names, []caseFailure{failure(PropWriteDB, caseName, kindTableFormat,
			fmt.Sprintf("upstream cannot read the port's MANIFEST: %s; every table file is checked instead", scrub(err, dir)), write)}
	}
	byNumber := map[uint64]string{}
	for _, n := range names {
		if num, typ, ok := base.ParseFileName(n); ok && typ == base.TableFile {
			byNumber[num] = n
		}
	}
	var live, problems []string
	for _, f := range v.Files {
		name, ok := byNumber[f.Number]
		if !ok {
			problems = append(problems, fmt.Sprintf("the MANIFEST lists table %06d, which is not in the directory", f.Number))
			continue
		}
		live = append(live, name)
		if info, err := os.Stat(filepath.Join(dir, name)); err == nil && uint64(info.Size()) != f.Size {
			problems = append(problems, fmt.Sprintf("the MANIFEST records a size of %d for table %s, which has %d bytes: upstream opens a table at the size its MANIFEST records, so it cannot read this one", f.Size, name, info.Size()))
		}
	}
	sort.Strings(live)
	if len(problems) == 0 {
		return live, nil
	}
	return live, []caseFailure{failure(PropWriteDB, caseName, kindTableFormat, strings.Join(problems, "; "), write)}
}

// checkUpstreamReads has upstream read every key from a copy of dir.
func checkUpstreamReads(c cases.DBCase, dir, write, tmp string, k *results) []caseFailure {
	cp := filepath.Join(tmp, "upstream-reads-"+strings.ReplaceAll(c.Name, "/", "-"))
	if err := fixtures.CopyDir(cp, os.DirFS(dir)); err != nil {
		k.suiteError(err.Error())
		return nil
	}
	keys := make([][]byte, len(c.KVs))
	for i, kv := range c.KVs {
		keys[i] = kv[0]
	}
	name := c.Name + " read by upstream"
	k.compared[PropWriteDB]++
	vals, errs, err := upstreamGet(cp, c.BitsPerKey, keys)
	if err != nil {
		return []caseFailure{failure(PropWriteDB, name, kindUpstreamOpen, fmt.Sprintf("upstream LevelDB cannot open the database the port wrote: %s", scrub(err, cp)), write)}
	}
	var missing, wrong, failed []int
	for i, kv := range c.KVs {
		switch {
		case errs[i] != nil:
			failed = append(failed, i)
		case vals[i] == nil:
			missing = append(missing, i)
		case !bytes.Equal(vals[i], kv[1]):
			wrong = append(wrong, i)
		}
	}
	var problems []string
	var kinds []failureKind
	var first []byte
	for _, g := range []struct {
		idx    []int
		kind   failureKind
		format string // of the count, the keys and the first key
	}{
		{failed, kindUpstreamGet, "upstream LevelDB 1.23's Get fails for %d of the %s the port wrote; first: key %x"},
		{missing, kindUpstreamMisses, fmt.Sprintf("upstream LevelDB 1.23 (through levigo, bloom filter of %d bits/key) reports", c.BitsPerKey) + " %d of the %s the port wrote missing; first: key %x"},
		{wrong, kindUpstreamValue, "upstream LevelDB 1.23 (through levigo) returns another value for %d of the %s the port wrote; first: key %x"},
	} {
		if len(g.idx) == 0 {
			continue
		}
		key := c.KVs[g.idx[0]][0]
		p := fmt.Sprintf(g.format, len(g.idx), plural.Count(len(keys), "key"), key)
		if g.kind == kindUpstreamGet {
			p += ": " + scrub(errs[g.idx[0]], cp)
		}
		if first == nil {
			first = key
		}
		problems, kinds = append(problems, p), append(kinds, g.kind)
	}
	if len(problems) == 0 {
		return nil
	}
	return []caseFailure{failure(PropWriteDB, name, kinds[0], strings.Join(problems, "; "),
		write+fmt.Sprintf("; then upstream's DB::Get of compat.HexBytes(%q)", hex.EncodeToString(first)))}
}
