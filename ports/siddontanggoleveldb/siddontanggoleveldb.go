// Package siddontanggoleveldb describes github.com/siddontang/goleveldb,
// the fork of syndtr/goleveldb that LedisDB used before Go modules (no
// go.mod records it: LedisDB's module requires syndtr/goleveldb instead,
// see ports/users.json), at its pseudo-version of November 2014 (it has
// no tag and no go.mod; its snappy package comes from
// github.com/siddontang/go, at the version the module proxy has as latest),
// as a compat.Port, through its public API. That API is syndtr's of 2014,
// older than the one syndtr's other forks share: table.NewReader takes a
// storage.FileInfo and returns no error (a table it refuses fails every
// Find instead), and Reader.Find always consults the filter.
//
//   - NewPolicy: leveldb/filter.NewBloomFilter, its bloom filter;
//   - Hash: leveldb/util.Hash;
//   - filter block reader: unexported, reached through its table reader
//     (leveldb/table.NewReader and Reader.Find), on a table made around
//     the block by ports/internal/sstcraft;
//   - filter block builder: unexported, and its table writer picks the
//     data block offsets itself, so the suite's builder calls cannot be
//     replayed;
//   - ReadDB and WriteDB: leveldb.OpenFile with Options.Filter set.
package siddontanggoleveldb

import (
	"errors"

	"github.com/siddontang/goleveldb/leveldb"
	lerrors "github.com/siddontang/goleveldb/leveldb/errors"
	"github.com/siddontang/goleveldb/leveldb/filter"
	"github.com/siddontang/goleveldb/leveldb/opt"
	"github.com/siddontang/goleveldb/leveldb/storage"
	"github.com/siddontang/goleveldb/leveldb/table"
	"github.com/siddontang/goleveldb/leveldb/util"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/compat"
	"github.com/ldbcompat/ldbcompat/internal/kit"
	"github.com/ldbcompat/ldbcompat/ports/internal/adapt"
	"github.com/ldbcompat/ldbcompat/ports/internal/sstcraft"
)

// Module is the module this adapter checks.
const Module = "github.com/siddontang/goleveldb"

// Notes say how each property is reached, or why it is not.
var Notes = map[kit.Property]string{
	kit.PropHash:        "leveldb/util.Hash",
	kit.PropFilterBytes: "filter.NewBloomFilter(bits).NewGenerator(): Add, Generate",
	kit.PropBlockBytes:  "not reachable: the filter block writer is unexported and table.Writer chooses data block offsets itself",
	kit.PropReader:      "through table.NewReader (which returns no error: a table it refuses fails every Find) and Reader.Find, which always consults the filter, on a table made around the block",
	kit.PropReadDB:      "leveldb.OpenFile with opt.Options{Filter: filter.NewBloomFilter(bits)}, DB.Get",
	kit.PropWriteDB:     "leveldb.OpenFile with opt.Options{Filter: filter.NewBloomFilter(bits)}, DB.Put, DB.CompactRange(util.Range{})",
}

// Port returns siddontang/goleveldb described as a compat.Port.
func Port() compat.Port {
	return compat.Port{
		Name:      Module,
		NewPolicy: func(bitsPerKey int) bloom.FilterPolicy { return Policy{filter.NewBloomFilter(bitsPerKey)} },
		Hash:      util.Hash,
		NewFilterBlockReader: func(p bloom.FilterPolicy, contents []byte) compat.FilterBlockReader {
			return adapt.NewBlockReader(p.Name(), contents, openTable(asFilter(p)), notFound)
		},
		ReadDB:  readDB,
		WriteDB: writeDB,
	}
}

// Policy is a siddontang/goleveldb filter.Filter as a bloom.FilterPolicy.
type Policy struct{ F filter.Filter }

// Name returns the filter's name.
func (p Policy) Name() string { return p.F.Name() }

// CreateFilter generates the filter of keys with the filter's generator
// into a util.Buffer holding dst.
func (p Policy) CreateFilter(keys [][]byte, dst []byte) []byte {
	g := p.F.NewGenerator()
	for _, k := range keys {
		g.Add(k)
	}
	b := util.NewBuffer(dst)
	g.Generate(b)
	return b.Bytes()
}

// KeyMayMatch asks the filter's Contains.
func (p Policy) KeyMayMatch(key, f []byte) bool { return p.F.Contains(f, key) }

// asFilter returns p as a siddontang/goleveldb filter: its own when p
// wraps one, else a wrapper (for upstream's test policy).
func asFilter(p bloom.FilterPolicy) filter.Filter {
	if gp, ok := p.(Policy); ok {
		return gp.F
	}
	return wrapped{p}
}

type wrapped struct{ p bloom.FilterPolicy }

func (w wrapped) Name() string                         { return w.p.Name() }
func (w wrapped) Contains(f, key []byte) bool          { return w.p.KeyMayMatch(key, f) }
func (w wrapped) NewGenerator() filter.FilterGenerator { return &generator{p: w.p} }

type generator struct {
	p    bloom.FilterPolicy
	keys [][]byte
}

func (g *generator) Add(key []byte) { g.keys = append(g.keys, append([]byte(nil), key...)) }

func (g *generator) Generate(b filter.Buffer) {
	_, _ = b.Write(g.p.CreateFilter(g.keys, nil))
	g.keys = g.keys[:0]
}

// openTable opens a table with the fork's table reader, verifying block
// checksums, with filter f. Its NewReader returns no error: a table it
// refuses makes every Find fail, which the block reader reports as a
// refusal.
func openTable(f filter.Filter) adapt.OpenTable {
	return func(rd *sstcraft.Reads) (adapt.Finder, error) {
		tr := table.NewReader(rd, rd.Size(), &storage.FileInfo{Type: storage.TypeTable, Num: 1}, nil, util.NewBufferPool(4096), &opt.Options{Filter: f, Strict: opt.StrictBlockChecksum})
		return func(key []byte) error {
			_, _, err := tr.Find(key, nil)
			return err
		}, nil
	}
}

func notFound(err error) bool {
	return errors.Is(err, leveldb.ErrNotFound) || errors.Is(err, lerrors.ErrNotFound)
}

func readDB(dir string, bitsPerKey int, keys [][]byte) ([]bool, error) {
	db, err := leveldb.OpenFile(dir, &opt.Options{Filter: filter.NewBloomFilter(bitsPerKey), ErrorIfMissing: true})
	if err != nil {
		return nil, err
	}
	defer db.Close()
	return adapt.ReadKeys(func(k []byte) (bool, error) {
		_, err := db.Get(k, nil)
		if err != nil && notFound(err) {
			return false, nil
		}
		return err == nil, err
	}, keys)
}

func writeDB(dir string, kvs [][2][]byte, bitsPerKey int) error {
	db, err := leveldb.OpenFile(dir, &opt.Options{Filter: filter.NewBloomFilter(bitsPerKey), ErrorIfExist: true})
	if err != nil {
		return err
	}
	for _, kv := range kvs {
		if err := db.Put(kv[0], kv[1], nil); err != nil {
			db.Close()
			return err
		}
	}
	if err := db.CompactRange(util.Range{}); err != nil {
		db.Close()
		return err
	}
	return db.Close()
}
