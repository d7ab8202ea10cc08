// Package btcsuitegoleveldb describes github.com/btcsuite/goleveldb, the
// fork of syndtr/goleveldb that btcd required up to v0.22 and dcrd's
// database module before v2 (see ports/users.json), at v1.0.0, as a
// compat.Port, through its public API, which is syndtr's under its own
// module path:
//
//   - NewPolicy: leveldb/filter.NewBloomFilter, its bloom filter;
//   - Hash: leveldb/util.Hash;
//   - filter block reader: unexported, reached through its table reader
//     (leveldb/table.NewReader and Reader.Find with filtering on), on a
//     table made around the block by ports/internal/sstcraft;
//   - filter block builder: unexported, and its table writer picks the
//     data block offsets itself, so the suite's builder calls cannot be
//     replayed;
//   - ReadDB and WriteDB: leveldb.OpenFile with Options.Filter set.
package btcsuitegoleveldb

import (
	"errors"

	"github.com/btcsuite/goleveldb/leveldb"
	lerrors "github.com/btcsuite/goleveldb/leveldb/errors"
	"github.com/btcsuite/goleveldb/leveldb/filter"
	"github.com/btcsuite/goleveldb/leveldb/opt"
	"github.com/btcsuite/goleveldb/leveldb/storage"
	"github.com/btcsuite/goleveldb/leveldb/table"
	"github.com/btcsuite/goleveldb/leveldb/util"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/compat"
	"github.com/ldbcompat/ldbcompat/internal/kit"
	"github.com/ldbcompat/ldbcompat/ports/internal/adapt"
	"github.com/ldbcompat/ldbcompat/ports/internal/sstcraft"
)

// Module is the module this adapter checks.
const Module = "github.com/btcsuite/goleveldb"

// Notes say how each property is reached, or why it is not.
var Notes = map[kit.Property]string{
	kit.PropHash:        "leveldb/util.Hash",
	kit.PropBlockBytes:  "not reachable: the filter block writer is unexported and table.Writer chooses data block offsets itself",
	kit.PropReader:      "through table.NewReader and Reader.Find(key, filtered=true) on a table made around the block",
	kit.PropReadDB:      "leveldb.OpenFile with opt.Options{Filter: filter.NewBloomFilter(bits)}, DB.Get",
	kit.PropWriteDB:     "leveldb.OpenFile with opt.Options{Filter: filter.NewBloomFilter(bits)}, DB.Put, DB.CompactRange(util.Range{})",
	kit.PropFilterBytes: "filter.NewBloomFilter(bits).NewGenerator(): Add, Generate",
}

// Port returns btcsuite/goleveldb described as a compat.Port.
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

// Policy is a goleveldb filter.Filter as a bloom.FilterPolicy.
type Policy struct{ F filter.Filter }

// Name returns the filter's name.
func (p Policy) Name() string { return p.F.Name() }

// CreateFilter generates the filter of keys with the filter's generator
// into a goleveldb util.Buffer holding dst.
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

// asFilter returns p as a goleveldb filter: goleveldb's own when p wraps
// one, else a wrapper (for upstream's test policy).
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

// openTable opens a table with goleveldb's table reader, verifying block
// checksums, with filter f; its Finder calls Find with filtering on.
func openTable(f filter.Filter) adapt.OpenTable {
	return func(rd *sstcraft.Reads) (adapt.Finder, error) {
		tr, err := table.NewReader(rd, rd.Size(), storage.FileDesc{Type: storage.TypeTable, Num: 1}, nil, util.NewBufferPool(4096), &opt.Options{Filter: f, Strict: opt.StrictBlockChecksum})
		if err != nil {
			return nil, err
		}
		return func(key []byte) error {
			_, _, err := tr.Find(key, true, nil)
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
