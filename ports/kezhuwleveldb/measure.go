package kezhuwleveldb

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/kezhuw/leveldb"

	"github.com/ldbcompat/ldbcompat/internal/cases"
	"github.com/ldbcompat/ldbcompat/internal/fixtures"
	"github.com/ldbcompat/ldbcompat/ports/internal/adapt"
	"github.com/ldbcompat/ldbcompat/ports/internal/row"
)

// withoutFilter opens each committed database with no filter and reads
// every key it holds.
func withoutFilter() row.Measured {
	m := row.Measured{
		What:  "kezhuw/leveldb reading upstream's databases without a filter",
		How:   "each database upstream wrote (testdata/tables), copied, opened with leveldb.Open(dir, &leveldb.Options{}) (no Filter), and DB.Get of every key it holds (the newest version of each user key is a value, by ldbcompat's reader of its tables)",
		Repro: "leveldb.Open(<copy of testdata/tables/b10-bs4096-none>, &leveldb.Options{}); DB.Get of each key",
	}
	dbs, tmp, err := committed()
	if err != nil {
		return m.NotMeasured(err)
	}
	defer os.RemoveAll(tmp)
	var keys, found int
	for _, db := range dbs {
		dir, live, err := copyLive(tmp, db)
		if err != nil {
			return m.NotMeasured(err)
		}
		n, err := countFound(dir, nil, live)
		if err != nil {
			m.Outcome = fmt.Sprintf("%s: %s", db.Dir, strings.ReplaceAll(err.Error(), dir, "<dir>"))
			return m
		}
		keys += len(live)
		found += n
	}
	m.Outcome = fmt.Sprintf("without a filter, its Get finds %d of the %d keys the %d databases hold", found, keys, len(dbs))
	if found == keys {
		m.Outcome += ": what it misses with one, the filter makes it miss"
	}
	return m
}

// committed returns the committed databases and a new temporary directory
// for their copies, which the caller removes.
func committed() ([]fixtures.DB, string, error) {
	dbs, err := adapt.Committed()
	if err != nil {
		return nil, "", err
	}
	tmp, err := os.MkdirTemp("", "ldbcompat-kezhuw-")
	return dbs, tmp, err
}

// copyLive copies db into a directory of tmp and returns it with the keys
// a Get finds in db.
func copyLive(tmp string, db fixtures.DB) (dir string, live [][]byte, err error) {
	if live, err = adapt.LiveKeys(db.FS); err != nil {
		return "", nil, err
	}
	dir = filepath.Join(tmp, db.Dir)
	return dir, live, fixtures.CopyDir(dir, db.FS)
}

func countFound(dir string, f leveldb.Filter, keys [][]byte) (int, error) {
	db, err := leveldb.Open(dir, &leveldb.Options{Filter: f})
	if err != nil {
		return 0, err
	}
	defer db.Close()
	n := 0
	for _, k := range keys {
		_, err := db.Get(k, nil)
		switch {
		case err == nil:
			n++
		case !errors.Is(err, leveldb.ErrNotFound):
			return n, err
		}
	}
	return n, nil
}

// recorder is a leveldb.Filter that answers as f does and keeps the keys
// Contains is asked about.
type recorder struct {
	leveldb.Filter
	asked [][]byte
}

func (r *recorder) Contains(data, key []byte) bool {
	r.asked = append(r.asked, append([]byte(nil), key...))
	return r.Filter.Contains(data, key)
}

// filterQuestions reads every key of one committed database with a
// recording filter and compares the keys the filter is asked about with
// the keys looked up.
func filterQuestions() row.Measured {
	const name, bits = "b10-bs4096-none", 10
	m := row.Measured{
		What:  "What kezhuw/leveldb's Get asks its filter",
		How:   fmt.Sprintf("a copy of testdata/tables/%s opened with leveldb.Options{Filter: f}, where f is leveldb.NewBloomFilter(%d) with its Contains wrapped to keep each key it is asked about, and DB.Get of every key the database holds; each key asked compared with the key looked up", name, bits),
		Repro: fmt.Sprintf("leveldb.Open(<copy of testdata/tables/%s>, &leveldb.Options{Filter: f}) with f a leveldb.Filter whose Contains logs its key and calls leveldb.NewBloomFilter(%d).Contains; DB.Get of each key", name, bits),
	}
	dbs, tmp, err := committed()
	if err != nil {
		return m.NotMeasured(err)
	}
	defer os.RemoveAll(tmp)
	for _, db := range dbs {
		if db.Dir != name {
			continue
		}
		dir, live, err := copyLive(tmp, db)
		if err != nil {
			return m.NotMeasured(err)
		}
		var plain, longer, other, found int
		for _, k := range live {
			r := &recorder{Filter: leveldb.NewBloomFilter(bits)}
			n, err := countFound(dir, r, [][]byte{k})
			if err != nil {
				m.Outcome = "not measured: " + strings.ReplaceAll(err.Error(), dir, "<dir>")
				return m
			}
			found += n
			for _, a := range r.asked {
				switch {
				case bytes.Equal(a, k):
					plain++
				case len(a) == len(k)+8 && bytes.HasPrefix(a, k):
					longer++
				default:
					other++
				}
			}
		}
		m.Outcome = fmt.Sprintf("the %d Gets (%d found) ask the filter %d times: %d times about the user key followed by 8 more bytes (the size of the sequence number and type that end LevelDB's internal keys), %d times about the user key itself, %d times about another key",
			len(live), found, plain+longer+other, longer, plain, other)
		if longer > 0 {
			m.Outcome += ". Upstream's table reader asks its filter policy about the user key only (its InternalFilterPolicy strips the 8 bytes: db/dbformat.cc), and the filters upstream writes, which kezhuw reads here, hold user keys: a longer key matches one only as often as an absent key does"
		}
		return m
	}
	m.Outcome = "not measured: no database " + name + " in testdata/tables"
	return m
}

// feeds is a leveldb.Filter that answers as f does and counts what its
// generators are given.
type feeds struct {
	leveldb.Filter
	generators, adds, appends int
}

func (f *feeds) NewGenerator() leveldb.Generator {
	f.generators++
	return &countingGenerator{Generator: f.Filter.NewGenerator(), f: f}
}

type countingGenerator struct {
	leveldb.Generator
	f *feeds
}

func (g *countingGenerator) Add(key []byte) {
	g.f.adds++
	g.Generator.Add(key)
}

func (g *countingGenerator) Append(buf *bytes.Buffer) {
	g.f.appends++
	g.Generator.Append(buf)
}

// writerFeeds writes the kit's database case with a counting filter and
// counts what the table writer gives the filter's generators.
func writerFeeds() row.Measured {
	c := cases.DBCases()[0]
	m := row.Measured{
		What:  "What kezhuw/leveldb's table writer gives its filter",
		How:   fmt.Sprintf("the %d keys of the kit's database case %q written as WriteDB writes them (DB.Put, DB.CompactRange(nil, nil), DB.Close), with Options.Filter a leveldb.NewBloomFilter(%d) whose NewGenerator, and its generators' Add and Append, are counted", len(c.KVs), c.Name, c.BitsPerKey),
		Repro: fmt.Sprintf("WriteDB as the adapter does, with Options.Filter a leveldb.Filter that counts the calls to its generators and passes them on to leveldb.NewBloomFilter(%d)", c.BitsPerKey),
	}
	dir, err := os.MkdirTemp("", "ldbcompat-kezhuw-")
	if err != nil {
		return m.NotMeasured(err)
	}
	defer os.RemoveAll(dir)
	f := &feeds{Filter: leveldb.NewBloomFilter(c.BitsPerKey)}
	if err := writeWith(dir, c.KVs, f); err != nil {
		return m.NotMeasured(err)
	}
	m.Outcome = fmt.Sprintf("writing the %d keys into tables makes %d filter generator(s), which are given %d keys and asked for %d filters",
		len(c.KVs), f.generators, f.adds, f.appends)
	if f.adds == 0 && f.appends == 0 {
		m.Outcome += ": its table writer never adds a key to the filter block it sets up, which then writes nothing, so its tables have no filter block (upstream reads them without one, as the write check finds)"
	}
	return m
}
