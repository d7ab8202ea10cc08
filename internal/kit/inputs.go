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

// The Case functions give reproducers the inputs a port's module cannot
// import from internal packages; each panics when there is no such case.

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
// a match case's bytes, or upstream's filter of a filter case's keys.
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

// CaseBlock returns the filter block the kit gives a reader in case name:
// a reader case's contents, or a builder case's last Finish upstream.
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

// CaseKVs returns the writes of database or recovery case name, in order.
func CaseKVs(name string) [][2][]byte {
	for _, c := range cases.DBCases() {
		if c.Name == name {
			return c.KVs
		}
	}
	for _, c := range cases.SyncedCases() {
		if c.Name == name {
			return c.KVs
		}
	}
	panic(fmt.Sprintf("compat: no database case named %q", name))
}

// UpstreamDB copies upstream's database name into a new t.TempDir(); a
// live one is written again (-tags leveldb).
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

// UpstreamDBKeys returns the keys the kit asks ReadDB of database name: its
// user keys, live or deleted, then keys it never held.
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

// upstreamDBNamed finds the database named name, committed or written live
// into a directory cleanup removes.
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
