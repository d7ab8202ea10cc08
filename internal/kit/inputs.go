package kit

import (
	"fmt"
	"hash/fnv"
	"os"
	"strings"
	"testing"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/internal/cases"
	"github.com/ldbcompat/ldbcompat/internal/fixtures"
)

// The inputs of the kit's cases, by name, for reproducers whose inputs are
// too long for a line: a port's module cannot import this module's
// internal packages, where the cases are made, but can call these. Each
// panics when there is no such case, as HexBytes does on bad hex: they
// are written by the kit into reproducers, not called on user input.

// CaseKeys returns the keys the kit gives CreateFilter in filter case name,
// as reproducers write them: NewPolicy(10).CreateFilter(compat.CaseKeys("bpk10/n100000"), nil).
func CaseKeys(name string) [][]byte {
	s := cases.Find(name)
	if len(s.Filter) == 0 {
		panic(noCase(name))
	}
	return s.Filter[0].Keys
}

// CaseQuery returns the key of query i of case name: the i-th key the kit
// asks KeyMayMatch of a filter or a filter block reader in that case.
func CaseQuery(name string, i int) []byte {
	s := cases.Find(name)
	switch {
	case len(s.Filter) > 0:
		return s.Filter[0].Queries[i]
	case len(s.Match) > 0:
		return s.Match[0].Queries[i]
	case len(s.Block) > 0:
		return s.Block[0].Queries[i].Key
	case len(s.Reader) > 0:
		return s.Reader[0].Queries[i].Key
	}
	panic(noCase(name))
}

// CaseFilter returns the filter the kit asks KeyMayMatch on in case name:
// the bytes of a match case, or upstream's filter for the keys of a filter
// case, without its dst (package bloom writes it, byte for byte as
// upstream LevelDB 1.23 does).
func CaseFilter(name string) []byte {
	s := cases.Find(name)
	switch {
	case len(s.Match) > 0:
		return s.Match[0].Filter
	case len(s.Filter) > 0:
		c := s.Filter[0]
		return bloom.NewPolicy(c.BitsPerKey).CreateFilter(c.Keys, nil)
	}
	panic(noCase(name))
}

// CaseBlock returns the filter block the kit gives a filter block reader in
// case name: the contents of a reader case, or the block upstream's
// builder returns at the last Finish of a builder case (package bloom
// builds it, byte for byte as upstream does).
func CaseBlock(name string) []byte {
	s := cases.Find(name)
	switch {
	case len(s.Reader) > 0:
		return s.Reader[0].Contents
	case len(s.Block) > 0:
		c := s.Block[0]
		return cases.LastFinish(portImpl{bloomPort()}.BuildBlock(c.Policy, c.Ops))
	}
	panic(noCase(name))
}

// CaseCalls makes the calls of filter block builder case name on b, the
// port's builder, and returns what each Finish returned.
func CaseCalls(name string, b FilterBlockBuilder) [][]byte {
	s := cases.Find(name)
	if len(s.Block) == 0 {
		panic(noCase(name))
	}
	return makeCalls(b, s.Block[0].Ops)
}

// CaseKVs returns the keys and values the kit gives WriteDB in database
// case name, or WriteSynced in recovery case name, in the order it puts
// them.
func CaseKVs(name string) [][2][]byte {
	for _, c := range cases.DBCases() {
		if c.Name == name {
			return c.KVs
		}
	}
	if kvs := syncedKVs(name); kvs != nil {
		return kvs
	}
	panic(fmt.Sprintf("compat: no database case named %q", name))
}

// UpstreamDB copies the database upstream wrote that the kit names name
// (such as "testdata/tables/b10-bs4096-none") into a new directory of
// t.TempDir() and returns that directory. A database upstream writes live
// is written again, which needs the leveldb build tag.
func UpstreamDB(t testing.TB, name string) string {
	t.Helper()
	db, cleanup, err := upstreamDBNamed(name)
	if err != nil {
		t.Fatalf("compat.UpstreamDB: %v", err)
	}
	defer cleanup()
	dir := t.TempDir()
	if err := fixtures.CopyDir(dir, db.fsys); err != nil {
		t.Fatalf("compat.UpstreamDB: %v", err)
	}
	return dir
}

// UpstreamDBKeys returns the keys the kit asks ReadDB of upstream's
// database name: every user key the database holds, live or deleted, in
// order, then keys it never held. It panics when there is no such
// database or it cannot be read.
func UpstreamDBKeys(name string) [][]byte {
	db, cleanup, err := upstreamDBNamed(name)
	if err != nil {
		panic(fmt.Sprintf("compat: %v", err))
	}
	defer cleanup()
	contents, absent, err := dbQueries(db)
	if err != nil {
		panic(fmt.Sprintf("compat: %s: %v", name, err))
	}
	return append(userKeys(contents), absent...)
}

// upstreamDBNamed finds the database upstream wrote named name: a
// committed one, or one upstream writes live (into a directory that
// cleanup removes).
func upstreamDBNamed(name string) (upstreamDB, func(), error) {
	nothing := func() {}
	if strings.HasPrefix(name, committedPrefix) || strings.HasPrefix(name, logDBPrefix) {
		var dbs []upstreamDB
		var err error
		if strings.HasPrefix(name, logDBPrefix) {
			dbs, _, err = committedLogDBs()
		} else if tables := committedTables(); tables == nil {
			return upstreamDB{}, nothing, fmt.Errorf("no database %q: this build embeds no testdata", name)
		} else {
			dbs, err = committedDBs(tables)
		}
		if err != nil {
			return upstreamDB{}, nothing, err
		}
		db, err := dbNamed(dbs, name, "the committed ones")
		return db, nothing, err
	}
	tmp, err := os.MkdirTemp("", "ldbcompat-db-")
	if err != nil {
		return upstreamDB{}, nothing, err
	}
	var db upstreamDB
	if strings.HasPrefix(name, liveLogDBPrefix) {
		dbs, liveErr := liveLogDBs(tmp)
		if db, err = dbNamed(dbs, name, "those upstream leaves in its log live"); err != nil && liveErr != nil {
			err = liveErr
		}
	} else {
		db, err = liveDBNamed(tmp, name)
	}
	if err != nil {
		os.RemoveAll(tmp)
		return upstreamDB{}, nothing, err
	}
	return db, func() { os.RemoveAll(tmp) }, nil
}

// dbNamed returns the database of dbs named name; among says where it was
// looked for.
func dbNamed(dbs []upstreamDB, name, among string) (upstreamDB, error) {
	for _, db := range dbs {
		if db.name == name {
			return db, nil
		}
	}
	return upstreamDB{}, fmt.Errorf("no database %q among %s", name, among)
}

// dbQueries returns what the kit asks ReadDB of db: its contents, and 200
// keys it never held, the same for the same database on every run.
func dbQueries(db upstreamDB) (contents []dbKey, absent [][]byte, err error) {
	contents, err = dbContents(db.fsys)
	if err != nil {
		return nil, nil, err
	}
	h := fnv.New64a()
	h.Write([]byte(db.name))
	return contents, cases.NewGen(h.Sum64()).Absent(userKeys(contents), 200, 1, 40), nil
}

// userKeys returns the user keys of contents.
func userKeys(contents []dbKey) [][]byte {
	out := make([][]byte, len(contents))
	for i, d := range contents {
		out[i] = d.key
	}
	return out
}

// noCase says that the kit has no case of the kind asked named name.
func noCase(name string) string {
	return fmt.Sprintf("compat: the kit has no case of this kind named %q", name)
}
