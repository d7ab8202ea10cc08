package compat

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ldbcompat/ldbcompat"
	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/internal/filtercheck"
	"github.com/ldbcompat/ldbcompat/internal/table"
)

// The conformance kit: TestPort and Check run every property of a Port
// against upstream LevelDB 1.23. Upstream's answers come from the golden
// vectors embedded in this module (no C++ needed) and, when the suite is
// built with the leveldb tag, from the C++ library itself. The end-to-end
// properties use real databases: the ones under testdata/tables that the C++
// library wrote, when the module embeds them, fresh ones written through
// levigo under the leveldb tag, and the databases the port writes, judged by
// rebuilding their filter blocks as upstream's TableBuilder does and, under
// the leveldb tag, by upstream reading every key back.

// The end-to-end properties, checked through Port.ReadDB and Port.WriteDB.
const (
	PropReadDB  = "reads upstream's databases"
	PropWriteDB = "writes databases upstream reads"
)

// Properties returns every property the kit checks, in report order.
func Properties() []string {
	return []string{PropName, PropHash, PropFilterBytes, PropKeyMayMatch, PropBlockBytes, PropReader, PropReadDB, PropWriteDB}
}

// Status is the outcome of one check.
type Status string

// The outcomes of a check.
const (
	StatusPass Status = "pass" // every case agrees with upstream
	StatusFail Status = "fail" // some case differs from upstream
	StatusSkip Status = "skip" // the port has no hook for the property
)

// MaxShown is how many failures of one property TestPort and
// Report.String print; the rest are counted.
const MaxShown = 5

// CheckResult is the outcome of one property.
type CheckResult struct {
	Property string
	Status   Status
	// Cases counts the cases run: inputs compared with upstream, or
	// databases read or written for the end-to-end properties.
	Cases int
	// Failures are every case that differs from upstream, in case order.
	Failures []Failure
	// Effects says, for each failure, what it means for the port's users.
	Effects []string
	// Note says why the check was skipped.
	Note string
	// Effect says what the failures mean for the port's users, such as
	// "false negatives: Get reports keys missing that are present": the
	// distinct Effects, the most harmful first.
	Effect string
}

// Report is the outcome of Check: one CheckResult per property, in the
// order of Properties.
type Report struct {
	Port string
	// Upstream says what the port was compared with: the golden vectors'
	// provenance and, under the leveldb tag, the live library.
	Upstream string
	Checks   []CheckResult
	// Errors are problems of the suite itself, such as golden vectors
	// that do not match the cases; they are not the port's fault, but a
	// report with errors has not checked everything.
	Errors []string
}

// Passed reports whether no check failed and the suite had no errors.
func (r Report) Passed() bool {
	if len(r.Errors) > 0 {
		return false
	}
	for _, c := range r.Checks {
		if c.Status == StatusFail {
			return false
		}
	}
	return true
}

// Result returns the result for property prop.
func (r Report) Result(prop string) (CheckResult, bool) {
	for _, c := range r.Checks {
		if c.Property == prop {
			return c, true
		}
	}
	return CheckResult{}, false
}

// String summarizes r: one line per property and, for each failed one, its
// first MaxShown failures and its effect on users.
func (r Report) String() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s against %s\n", r.Port, r.Upstream)
	for _, e := range r.Errors {
		fmt.Fprintf(&sb, "  suite error: %s\n", e)
	}
	for _, c := range r.Checks {
		switch c.Status {
		case StatusSkip:
			fmt.Fprintf(&sb, "  skip  %s: %s\n", c.Property, c.Note)
		case StatusPass:
			fmt.Fprintf(&sb, "  pass  %s (%d cases)\n", c.Property, c.Cases)
		default:
			fmt.Fprintf(&sb, "  FAIL  %s (%d of %d cases)\n", c.Property, len(c.Failures), c.Cases)
			for i, f := range c.Failures {
				if i == MaxShown {
					fmt.Fprintf(&sb, "        ... and %d more\n", len(c.Failures)-MaxShown)
					break
				}
				fmt.Fprintf(&sb, "%s\n", indent(f.String()))
			}
			fmt.Fprintf(&sb, "        effect: %s\n", c.Effect)
		}
	}
	return sb.String()
}

// TestPort checks port p against upstream LevelDB 1.23, with one subtest per
// property (see Properties). A failing subtest prints its first MaxShown
// failures, each with what upstream does and a reproducer, and what the
// difference means for users; properties whose hooks p leaves nil are
// skipped. A port that panics fails the property; the test binary goes on.
//
// A port's own test calls it as
//
//	func TestLevelDBCompat(t *testing.T) {
//		compat.TestPort(t, compat.Port{Name: "myport", NewPolicy: ...})
//	}
//
// Built with -tags leveldb (and cgo flags for upstream LevelDB 1.23, see the
// ldbcompat README), it also asks the C++ library live and writes and reads
// databases with it.
func TestPort(t *testing.T, p Port) {
	t.Helper()
	r := Check(p)
	t.Logf("%s against %s", r.Port, r.Upstream)
	for _, e := range r.Errors {
		t.Errorf("suite error: %s", e)
	}
	for _, c := range r.Checks {
		t.Run(c.Property, func(t *testing.T) {
			switch c.Status {
			case StatusSkip:
				t.Skip(c.Note)
			case StatusPass:
				t.Logf("%d cases agree with upstream", c.Cases)
			default:
				for i, f := range c.Failures {
					if i == MaxShown {
						t.Errorf("... and %d more failures (%d of %d cases differ)", len(c.Failures)-MaxShown, len(c.Failures), c.Cases)
						break
					}
					t.Error(f)
				}
				t.Logf("effect on users: %s", c.Effect)
			}
		})
	}
}

// Check checks port p against upstream LevelDB 1.23, as TestPort does, and
// returns the outcome of every property.
func Check(p Port) Report {
	return check(p, kitConfig{tables: committedTables(), live: Live})
}

// kitConfig is what a check runs with.
type kitConfig struct {
	// tables holds upstream-written databases, one per directory, each
	// with a <name>.json beside it giving bits_per_key; nil if none.
	tables fs.FS
	// live asks upstream LevelDB through cgo and levigo.
	live bool
	// endToEndOnly skips the case suite (for the kit's own tests).
	endToEndOnly bool
}

// committedTables returns the databases under testdata/tables when the
// module embeds them, or nil.
func committedTables() fs.FS {
	sub, err := fs.Sub(ldbcompat.TestData, "testdata/tables")
	if err != nil {
		return nil
	}
	if _, err := fs.ReadDir(sub, "."); err != nil {
		return nil
	}
	return sub
}

// kitResults gathers the failures of every run and the end-to-end checks.
type kitResults struct {
	*results
	cases   map[string]int
	effects map[string]string // effect of each failure made by the kit, by property and case
	seen    map[string]bool   // property and case of each failure kept
	errSeen map[string]bool
	suite   []string // errors of the suite itself
}

func newKitResults() *kitResults {
	return &kitResults{results: &results{}, cases: map[string]int{}, seen: map[string]bool{}, effects: map[string]string{}, errSeen: map[string]bool{}}
}

// merge adds the failures of a run, keeping one failure per property and
// case.
func (k *kitResults) merge(r *results) {
	for _, prop := range Properties() {
		for _, f := range r.byProp[prop] {
			key := f.Property + "\x00" + f.Case
			if k.seen[key] {
				continue
			}
			k.seen[key] = true
			k.fail(tidyRefusal(f))
		}
	}
	for _, e := range r.errs {
		k.suiteError(e.Error())
	}
}

func (k *kitResults) suiteError(s string) {
	if !k.errSeen[s] {
		k.errSeen[s] = true
		k.suite = append(k.suite, s)
	}
}

// failWith records f and what it means for users.
func (k *kitResults) failWith(f Failure, effect string) {
	k.fail(f)
	k.effects[f.Property+"\x00"+f.Case] = effect
}

// count adds the cases of cs that p's hooks let run.
func (k *kitResults) count(p Port, cs caseSet) {
	k.cases[PropName]++
	if p.Hash != nil {
		k.cases[PropHash] += len(cs.hash)
	}
	k.cases[PropFilterBytes] += len(cs.filter)
	k.cases[PropKeyMayMatch] += len(cs.filter) + len(cs.match)
	if p.NewFilterBlockBuilder != nil {
		k.cases[PropBlockBytes] += len(cs.block)
	}
	if p.NewFilterBlockReader != nil {
		k.cases[PropReader] += len(cs.block) + len(cs.reader)
	}
}

// Refusal is what a hook panics with when the port refuses an input that
// upstream accepts: for example a port whose filter block reader is
// reachable only through its table reader, which rejects a table whose
// filter block upstream reads as "every key may match". The kit reports it
// as a refusal rather than a crash.
type Refusal struct{ Err error }

const refusalPrefix = "port refuses the input upstream accepts: "

func (r Refusal) Error() string { return refusalPrefix + r.Err.Error() }

// tidyRefusal drops the stack trace of a Refusal, which says nothing.
func tidyRefusal(f Failure) Failure {
	const p = "port panics: " + refusalPrefix
	if strings.HasPrefix(f.Detail, p) {
		d := strings.TrimPrefix(f.Detail, "port panics: ")
		if i := strings.IndexByte(d, '\n'); i >= 0 {
			d = d[:i]
		}
		f.Detail = d
	}
	return f
}

// Effects on users, by kind of difference.
const (
	effectPanic   = "the port panics on input that upstream handles (the kit caught it; in a program it is a crash)"
	effectRefuses = "the port refuses input that upstream accepts: a table reader that does so fails every read of such a table"
	effectName    = "upstream finds a table's filter by its name (metaindex key filter.<name>), so it reads the port's tables without their filters and the port reads upstream's without filters: no wrong answers, but every Get of a missing key reads a data block"
	effectHash    = "the hash feeds the bloom filter: filters the port builds with it reject keys upstream's filters accept, so reading each other's tables reports present keys missing (false negatives)"
	effectFilter  = "the port's filters are not upstream's: depending on the difference, upstream reading the port's tables reports present keys missing (false negatives: other bits set) or only filters worse (another k or size)"
	effectFalseNo = "false negatives: on filters or filter blocks that upstream writes, the port answers \"absent\" where upstream answers \"may be present\", so Get on the port misses keys in upstream's tables"
	effectBadNo   = "false negatives on damaged or arbitrary filter data only (upstream never writes it; a corrupted table holds it): the port answers \"absent\" where upstream answers \"may be present\""
	effectExtraOK = "only extra reads: the port answers \"may be present\" where upstream answers \"absent\", so it reads data blocks upstream skips (no wrong answers)"
	effectBlock   = "the port's filter blocks are laid out otherwise than upstream's: upstream reading the port's tables consults the wrong filter for a data block or none, so it can report present keys missing (false negatives) or filter worse"
	effectReadNo  = "false negatives: Get on the port reports keys missing from databases upstream wrote"
	effectReadYes = "Get on the port returns keys that upstream deleted or never wrote"
	effectOpen    = "the port cannot read databases upstream wrote"
	effectNoTable = "nothing to check: the port left no table (its data stayed in the log); make WriteDB flush the memtable"
	effectNoFilt  = "upstream reads these tables without a filter: no wrong answers, but every Get of a missing key reads a data block"
	effectWrongNm = "upstream 1.23 looks only for filter.leveldb.BuiltinBloomFilter2, so it reads these tables without their filters: no wrong answers, but every Get of a missing key reads a data block"
	effectBytes   = "the filter blocks differ from the ones upstream writes for the same keys, though upstream's filter check accepts every key in them: no wrong answers, but filters of another size or probe count than asked for"
	effectUpNo    = "false negatives: upstream's Get reports keys missing from the databases the port writes"
	effectUpWrong = "upstream's Get returns wrong values from the databases the port writes"
	effectUpOpen  = "upstream cannot open the databases the port writes"
	effectUpGet   = "upstream's Get fails with an error on keys of the databases the port writes"
)

// severity ranks effects, the most harmful first.
var severity = map[string]int{
	effectPanic: 0, effectRefuses: 1, effectOpen: 1, effectUpOpen: 1, effectUpGet: 1,
	effectReadNo: 2, effectUpNo: 2, effectFalseNo: 2, effectUpWrong: 2, effectReadYes: 2,
	effectHash: 3, effectFilter: 3, effectBlock: 3, effectBytes: 3, effectBadNo: 3,
	effectWrongNm: 4, effectName: 4, effectNoFilt: 4, effectExtraOK: 5, effectNoTable: 6,
}

// effectOf says what failure f means for users.
func (k *kitResults) effectOf(f Failure) string {
	switch {
	case strings.HasPrefix(f.Detail, refusalPrefix):
		return effectRefuses
	case strings.HasPrefix(f.Detail, "port panics"):
		return effectPanic
	}
	if e, ok := k.effects[f.Property+"\x00"+f.Case]; ok {
		return e
	}
	switch f.Property {
	case PropName:
		return effectName
	case PropHash:
		return effectHash
	case PropFilterBytes:
		return effectFilter
	case PropBlockBytes:
		return effectBlock
	}
	// Filters and blocks upstream wrote, or arbitrary and damaged ones.
	upstreamWrote := strings.HasPrefix(f.Detail, "KeyMayMatch on upstream's filter") ||
		strings.HasPrefix(f.Detail, "reader on upstream's block") || f.Case == "valid" || f.Case == "bloom/valid"
	switch {
	case strings.Contains(f.Detail, "upstream true, port false") && upstreamWrote:
		return effectFalseNo
	case strings.Contains(f.Detail, "upstream true, port false"):
		return effectBadNo
	case strings.Contains(f.Detail, "upstream false, port true"):
		return effectExtraOK
	}
	return "the port answers otherwise than upstream"
}

// summarize joins the distinct effects, the most harmful first.
func summarize(effects []string) string {
	var out []string
	seen := map[string]bool{}
	for _, e := range effects {
		if !seen[e] {
			seen[e] = true
			out = append(out, e)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return severity[out[i]] < severity[out[j]] })
	return strings.Join(out, "; ")
}

// check runs every property of p.
func check(p Port, cfg kitConfig) Report {
	rep := Report{Port: p.Name}
	k := newKitResults()
	skip := map[string]string{}
	if p.NewPolicy == nil {
		k.suiteError("Port.NewPolicy is nil: it is required")
		for _, prop := range Properties() {
			skip[prop] = "Port.NewPolicy is nil"
		}
	} else if !cfg.endToEndOnly {
		vs, err := loadVectors(ldbcompat.TestData, VectorDir)
		if err != nil {
			k.suiteError(err.Error())
			rep.Upstream = "nothing: the golden vectors did not load"
		} else {
			cs := vectorCases()
			k.merge(run(p, vectorOracle{vs, bloomRef}, cs))
			k.count(p, cs)
			rep.Upstream = fmt.Sprintf("LevelDB %s golden vectors (%s, %s)", vs.prov["leveldb"], vs.prov["goarch"], vs.prov["compiler"])
		}
		if cfg.live {
			cs := liveCases()
			k.merge(runLive(p, cs))
			k.count(p, cs)
			rep.Upstream += " and LevelDB live through cgo"
		}
	}
	if p.NewPolicy != nil {
		if cfg.endToEndOnly {
			for _, prop := range []string{PropName, PropHash, PropFilterBytes, PropKeyMayMatch, PropBlockBytes, PropReader} {
				skip[prop] = "not run: end-to-end checks only"
			}
		}
		if p.Hash == nil {
			skip[PropHash] = "the port has no Hash hook (it does not export its hash)"
		}
		if p.NewFilterBlockBuilder == nil {
			skip[PropBlockBytes] = "the port has no NewFilterBlockBuilder hook"
		}
		if p.NewFilterBlockReader == nil {
			skip[PropReader] = "the port has no NewFilterBlockReader hook"
		}
		if note := checkReadDB(p, cfg, k); note != "" {
			skip[PropReadDB] = note
		}
		if note := checkWriteDB(p, cfg, k); note != "" {
			skip[PropWriteDB] = note
		}
	}
	rep.Errors = k.suite
	for _, prop := range Properties() {
		c := CheckResult{Property: prop, Cases: k.cases[prop], Failures: k.byProp[prop]}
		switch {
		case len(c.Failures) > 0:
			c.Status = StatusFail
			for _, f := range c.Failures {
				c.Effects = append(c.Effects, k.effectOf(f))
			}
			c.Effect = summarize(c.Effects)
		case skip[prop] != "":
			c.Status, c.Note = StatusSkip, skip[prop]
		default:
			c.Status = StatusPass
		}
		rep.Checks = append(rep.Checks, c)
	}
	return rep
}

// liveCases are the cases asked of upstream live: the vector cases, with
// filters of 10000 keys at every bits/key and of 100000 keys at a few, and
// 500 random filter block builder sequences. (TestLive checks package
// bloom on larger filters still.)
func liveCases() caseSet {
	cs := vectorCases()
	g := newGen(10)
	add := func(b, n int) {
		keys := g.keys(n, 0, 40)
		q := append(sample(keys, 100), g.absent(keys, 200, 0, 40)...)
		cs.filter = append(cs.filter, FilterCase{Name: fmt.Sprintf("live/bpk%d/n%d", b, n), BitsPerKey: b, Keys: keys, Queries: q})
	}
	for _, b := range FilterBitsPerKey() {
		if b <= 800 {
			add(b, 10000)
		}
	}
	for _, b := range []int{1, 16, 30, 64} {
		add(b, 100000)
	}
	cs.block = BlockCases(500)
	return cs
}

// An upstreamDB is a database that upstream LevelDB wrote.
type upstreamDB struct {
	name string // where it comes from, for reports
	bits int    // bloom filter bits per key it was written with
	fsys fs.FS
}

// committedDBs lists the databases in tables: each directory with a
// <name>.json beside it.
func committedDBs(tables fs.FS) ([]upstreamDB, error) {
	ents, err := fs.ReadDir(tables, ".")
	if err != nil {
		return nil, err
	}
	var out []upstreamDB
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		meta, err := fs.ReadFile(tables, e.Name()+".json")
		if err != nil {
			continue
		}
		var info struct {
			BitsPerKey *int `json:"bits_per_key"`
		}
		if err := json.Unmarshal(meta, &info); err != nil || info.BitsPerKey == nil {
			return nil, fmt.Errorf("testdata/tables/%s.json: no bits_per_key (%v)", e.Name(), err)
		}
		sub, err := fs.Sub(tables, e.Name())
		if err != nil {
			return nil, err
		}
		out = append(out, upstreamDB{name: "testdata/tables/" + e.Name(), bits: *info.BitsPerKey, fsys: sub})
	}
	return out, nil
}

// copyDB copies the regular files at the top of fsys into the new directory
// dir.
func copyDB(fsys fs.FS, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	ents, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return err
	}
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		data, err := fs.ReadFile(fsys, e.Name())
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// tableNames returns the table files (*.ldb, *.sst) at the top of fsys,
// sorted.
func tableNames(fsys fs.FS) ([]string, error) {
	ents, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if n := e.Name(); e.Type().IsRegular() && (strings.HasSuffix(n, ".ldb") || strings.HasSuffix(n, ".sst")) {
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

// dbContents reads every table of a database whose log is empty and
// returns each user key's newest version, by key.
func dbContents(fsys fs.FS) ([]dbKey, error) {
	ents, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, err
	}
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".log") {
			if info, err := e.Info(); err != nil || info.Size() != 0 {
				return nil, fmt.Errorf("log %s is not empty: its contents are not known without replaying it", e.Name())
			}
		}
	}
	names, err := tableNames(fsys)
	if err != nil {
		return nil, err
	}
	newest := map[string]*dbKey{}
	for _, name := range names {
		t, err := openTable(fsys, name)
		if err != nil {
			return nil, err
		}
		err = t.DataBlocks(func(b *table.DataBlock) error {
			for _, e := range b.Entries {
				d := newest[string(e.Key.UserKey)]
				if d != nil && d.seq >= e.Key.Seq {
					continue
				}
				newest[string(e.Key.UserKey)] = &dbKey{
					key: append([]byte(nil), e.Key.UserKey...), seq: e.Key.Seq, live: e.Key.Kind == table.KindValue,
					where: fmt.Sprintf("%s, data block at offset %d", name, b.Handle.Offset),
					value: append([]byte(nil), e.Value...),
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	out := make([]dbKey, 0, len(newest))
	for _, d := range newest {
		out = append(out, *d)
	}
	sort.Slice(out, func(i, j int) bool { return bytes.Compare(out[i].key, out[j].key) < 0 })
	return out, nil
}

// checkReadDB has the port read databases upstream wrote. It returns why
// the check was skipped, or "".
func checkReadDB(p Port, cfg kitConfig, k *kitResults) string {
	if p.ReadDB == nil {
		return "the port has no ReadDB hook"
	}
	var dbs []upstreamDB
	if cfg.tables != nil {
		c, err := committedDBs(cfg.tables)
		if err != nil {
			k.suiteError(fmt.Sprintf("committed databases: %v", err))
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
		live, err := liveDBs(filepath.Join(tmp, "upstream"))
		if err != nil {
			k.suiteError(fmt.Sprintf("writing databases with upstream: %v", err))
		}
		dbs = append(dbs, live...)
	}
	if len(dbs) == 0 {
		return "no upstream database to read: this build of ldbcompat embeds none and was built without the leveldb tag"
	}
	g := newGen(8)
	for i, db := range dbs {
		contents, err := dbContents(db.fsys)
		if err != nil {
			k.suiteError(fmt.Sprintf("%s: %v", db.name, err))
			continue
		}
		queries := make([][]byte, 0, len(contents)+200)
		for _, d := range contents {
			queries = append(queries, d.key)
		}
		present := make([][]byte, len(queries))
		copy(present, queries)
		absent := g.absent(present, 200, 1, 40)
		queries = append(queries, absent...)
		if cfg.live {
			if err := confirmContents(db, contents, absent); err != nil {
				k.suiteError(fmt.Sprintf("%s: %v", db.name, err))
				continue
			}
		}
		dir := filepath.Join(tmp, fmt.Sprintf("read%d", i))
		if err := copyDB(db.fsys, dir); err != nil {
			k.suiteError(err.Error())
			continue
		}
		k.cases[PropReadDB]++
		repro := fmt.Sprintf("ReadDB(<copy of %s>, %d, <its %d user keys and %d absent ones>)", db.name, db.bits, len(contents), len(absent))
		k.guard(PropReadDB, db.name, repro, func() {
			found, err := p.ReadDB(dir, db.bits, queries)
			if err != nil {
				k.failWith(Failure{PropReadDB, db.name, fmt.Sprintf("port cannot read the database upstream wrote (%d tables, bloom filter of %d bits/key): %s", tableCount(db.fsys), db.bits, scrub(err, dir)), repro}, effectOpen)
				return
			}
			if len(found) != len(queries) {
				k.failWith(Failure{PropReadDB, db.name, fmt.Sprintf("ReadDB answered %d keys of %d", len(found), len(queries)), repro}, effectOpen)
				return
			}
			var missing, extra []int
			live := 0
			for i, d := range contents {
				if d.live {
					live++
					if !found[i] {
						missing = append(missing, i)
					}
				} else if found[i] {
					extra = append(extra, i)
				}
			}
			for j := range absent {
				if found[len(contents)+j] {
					extra = append(extra, len(contents)+j)
				}
			}
			var problems, effects, keys []string
			if len(missing) > 0 {
				d := contents[missing[0]]
				problems = append(problems, fmt.Sprintf("port reports %d of the %d keys upstream's database holds missing (upstream finds every one; bloom filter of %d bits/key); first: key %x, newest version in %s",
					len(missing), live, db.bits, d.key, d.where))
				effects = append(effects, effectReadNo)
				keys = append(keys, fmt.Sprintf("%q", hex.EncodeToString(d.key)))
			}
			if len(extra) > 0 {
				q := queries[extra[0]]
				what := "never written"
				if extra[0] < len(contents) {
					what = "deleted, in " + contents[extra[0]].where
				}
				problems = append(problems, fmt.Sprintf("port finds %d keys that upstream's database does not hold; first: key %x (%s)", len(extra), q, what))
				effects = append(effects, effectReadYes)
				keys = append(keys, fmt.Sprintf("%q", hex.EncodeToString(q)))
			}
			if len(problems) > 0 {
				k.failWith(Failure{PropReadDB, db.name, strings.Join(problems, "; "),
					fmt.Sprintf("ReadDB(<copy of %s>, %d, compat.HexKeys(%s))", db.name, db.bits, strings.Join(keys, ", "))}, effects[0])
			}
		})
	}
	return ""
}

// scrub writes err without the temporary directory dir, so that reports
// are the same from run to run.
func scrub(err error, dir string) string {
	return strings.ReplaceAll(err.Error(), dir, "<dir>")
}

func tableCount(fsys fs.FS) int {
	n, _ := tableNames(fsys)
	return len(n)
}

// DBCase is an input of Port.WriteDB: distinct keys of 1 to 40 bytes
// (bytes of 0x80 and above included) in random order, with values of 1 to
// 100 bytes and some of 2 to 6 KiB, so that data blocks span whole 2 KiB
// filter ranges.
type DBCase struct {
	Name       string
	BitsPerKey int
	KVs        [][2][]byte
}

// DBCases returns the databases the kit has a port write.
func DBCases() []DBCase {
	g := newGen(9)
	keys := g.keys(3000, 1, 40)
	kvs := make([][2][]byte, len(keys))
	for i, key := range keys {
		n := 1 + g.r.IntN(100)
		if g.r.IntN(20) == 0 {
			n = 2048 + g.r.IntN(4096)
		}
		kvs[i] = [2][]byte{key, g.bytes(n)}
	}
	return []DBCase{{Name: "n3000/bpk10", BitsPerKey: 10, KVs: kvs}}
}

// checkWriteDB has the port write databases and checks their tables'
// filter blocks and, live, has upstream read them. It returns why the
// check was skipped, or "".
func checkWriteDB(p Port, cfg kitConfig, k *kitResults) string {
	if p.WriteDB == nil {
		return "the port has no WriteDB hook"
	}
	tmp, err := os.MkdirTemp("", "ldbcompat-kit-")
	if err != nil {
		k.suiteError(err.Error())
		return ""
	}
	defer os.RemoveAll(tmp)
	for i, c := range DBCases() {
		dir := filepath.Join(tmp, fmt.Sprintf("write%d", i))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			k.suiteError(err.Error())
			continue
		}
		write := fmt.Sprintf("WriteDB(dir, compat.DBCases()[%d].KVs, %d)", i, c.BitsPerKey)
		var found []rankedFailure
		k.guard(PropWriteDB, c.Name, write, func() {
			if err := p.WriteDB(dir, c.KVs, c.BitsPerKey); err != nil {
				found = append(found, rankedFailure{0, Failure{PropWriteDB, c.Name, fmt.Sprintf("port cannot write the database: %s", scrub(err, dir)), write}, "the port cannot write the kit's database"})
				k.cases[PropWriteDB]++
				return
			}
			found = append(found, checkTables(c, dir, write, k)...)
			if cfg.live {
				k.cases[PropWriteDB]++
				found = append(found, checkUpstreamReads(c, dir, write, tmp, k)...)
			}
		})
		sort.SliceStable(found, func(i, j int) bool { return found[i].rank < found[j].rank })
		for _, f := range found {
			k.failWith(f.f, f.effect)
		}
	}
	return ""
}

// rankedFailure is a failure of the write check, ranked by how much it
// hurts users (0 most).
type rankedFailure struct {
	rank   int
	f      Failure
	effect string
}

// checkTables checks the filter block of every table the port wrote
// against the one upstream's TableBuilder writes for the same keys and data
// blocks, and counts the keys upstream's filter check would reject. Each
// table is a case.
func checkTables(c DBCase, dir, write string, k *kitResults) []rankedFailure {
	fsys := os.DirFS(dir)
	names, err := tableNames(fsys)
	if err != nil {
		k.suiteError(err.Error())
		return nil
	}
	if len(names) == 0 {
		k.cases[PropWriteDB]++
		return []rankedFailure{{4, Failure{PropWriteDB, c.Name, "the port left no table in the database (its data stayed in the log), so no filter block could be checked", write}, effectNoTable}}
	}
	var out []rankedFailure
	for _, name := range names {
		k.cases[PropWriteDB]++
		repro := write + "; go run github.com/ldbcompat/ldbcompat/cmd/ldbcompat verify " + path.Join("dir", name)
		caseName := c.Name + "/" + name
		fail := func(rank int, effect, format string, args ...any) {
			out = append(out, rankedFailure{rank, Failure{PropWriteDB, caseName, fmt.Sprintf(format, args...), repro}, effect})
		}
		t, err := openTable(fsys, name)
		if err != nil {
			fail(0, effectUpOpen, "table is not in upstream's format: %v", err)
			continue
		}
		r, err := filtercheck.Check(t)
		if err != nil {
			fail(0, effectUpOpen, "table is not in upstream's format: %v", err)
			continue
		}
		switch {
		case r.Status == filtercheck.StatusNoFilter:
			fail(3, effectNoFilt, "table of %d keys has no filter block; upstream writes one in every table when a filter policy is set", r.Keys)
			continue
		case r.Policy != bloom.PolicyName:
			d := fmt.Sprintf("filter block is named %q (metaindex key %q); upstream 1.23 reads only %q and ignores it", r.Policy, "filter."+r.Policy, "filter."+bloom.PolicyName)
			if r.Policy == bloom.LegacyPolicyName {
				d += fmt.Sprintf(" (the name of LevelDB before 1.16; its bytes are those of that era's %s hash)", r.Legacy)
			}
			fail(2, effectWrongNm, "%s", d)
			continue
		}
		var problems []string
		if r.Status == filtercheck.StatusMismatch {
			params := "layout: " + r.LayoutError
			if r.Params != nil && r.LayoutError == "" {
				params = r.Params.String()
			}
			problems = append(problems, fmt.Sprintf("filter block differs from the one upstream writes for the table's %d keys in %d data blocks at %d bits/key: %s; the stored block implies %s",
				r.Keys, r.DataBlocks, c.BitsPerKey, r.Diff, params))
		} else if r.Params != nil && r.Params.Known && (c.BitsPerKey < r.Params.MinBitsPerKey || c.BitsPerKey > r.Params.MaxBitsPerKey) {
			problems = append(problems, fmt.Sprintf("filters are upstream's for %s, but the port was asked for %d bits/key", r.Params, c.BitsPerKey))
		}
		// What upstream's Table::InternalGet asks the filter block, with
		// upstream's semantics (package bloom matches them byte for byte).
		_, contents, _ := t.FilterBlock()
		fr := bloom.NewFilterBlockReader(bloom.NewPolicy(c.BitsPerKey), contents)
		rejected, total := 0, 0
		var first []byte
		var firstOff uint64
		for _, b := range r.Blocks {
			for _, key := range b.Keys {
				total++
				if !fr.KeyMayMatch(b.Handle.Offset, key) {
					if rejected == 0 {
						first, firstOff = key, b.Handle.Offset
					}
					rejected++
				}
			}
		}
		switch {
		case rejected > 0:
			problems = append([]string{fmt.Sprintf("upstream's filter check rejects %d of the table's %d keys (false negatives); first: key %x in the data block at offset %d",
				rejected, total, first, firstOff)}, problems...)
			fail(1, effectUpNo, "%s", strings.Join(problems, "; "))
		case len(problems) > 0:
			fail(2, effectBytes, "%s", strings.Join(problems, "; "))
		}
	}
	return out
}

// checkUpstreamReads has upstream open a copy of the database in dir with
// a bloom filter and read every key.
func checkUpstreamReads(c DBCase, dir, write, tmp string, k *kitResults) []rankedFailure {
	cp := filepath.Join(tmp, "upstream-reads-"+strings.ReplaceAll(c.Name, "/", "-"))
	if err := copyDB(os.DirFS(dir), cp); err != nil {
		k.suiteError(err.Error())
		return nil
	}
	keys := make([][]byte, len(c.KVs))
	for i, kv := range c.KVs {
		keys[i] = kv[0]
	}
	name := c.Name + " read by upstream"
	vals, errs, err := upstreamGet(cp, c.BitsPerKey, keys)
	if err != nil {
		return []rankedFailure{{0, Failure{PropWriteDB, name, fmt.Sprintf("upstream LevelDB cannot open the database the port wrote: %s", scrub(err, cp)), write}, effectUpOpen}}
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
	var effects []string
	var first []byte
	if len(failed) > 0 {
		first = c.KVs[failed[0]][0]
		problems = append(problems, fmt.Sprintf("upstream LevelDB 1.23's Get fails for %d of the %d keys the port wrote; first: key %x: %s",
			len(failed), len(keys), first, scrub(errs[failed[0]], cp)))
		effects = append(effects, effectUpGet)
	}
	if len(missing) > 0 {
		key := c.KVs[missing[0]][0]
		if first == nil {
			first = key
		}
		problems = append(problems, fmt.Sprintf("upstream LevelDB 1.23 (through levigo, bloom filter of %d bits/key) reports %d of the %d keys the port wrote missing; first: key %x",
			c.BitsPerKey, len(missing), len(keys), key))
		effects = append(effects, effectUpNo)
	}
	if len(wrong) > 0 {
		key := c.KVs[wrong[0]][0]
		if first == nil {
			first = key
		}
		problems = append(problems, fmt.Sprintf("upstream LevelDB 1.23 (through levigo) returns another value for %d of the %d keys the port wrote; first: key %x",
			len(wrong), len(keys), key))
		effects = append(effects, effectUpWrong)
	}
	if len(problems) == 0 {
		return nil
	}
	return []rankedFailure{{0, Failure{PropWriteDB, name, strings.Join(problems, "; "),
		write + fmt.Sprintf("; then upstream's DB::Get of compat.HexBytes(%q)", hex.EncodeToString(first))}, effects[0]}}
}
