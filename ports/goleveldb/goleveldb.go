// Package goleveldb describes github.com/syndtr/goleveldb as a
// compat.Port, through its public API:
//
//   - NewPolicy: leveldb/filter.NewBloomFilter, its bloom filter;
//   - Hash: leveldb/util.Hash;
//   - filter block reader: goleveldb's filter block reader is unexported,
//     so the adapter reaches it through its table reader
//     (leveldb/table.NewReader and Reader.Find with filtering on), on a
//     table made around the block by ports/internal/sstcraft;
//   - filter block builder: unexported, and its table writer picks the
//     data block offsets itself, so the arbitrary builder calls of the suite
//     cannot be replayed (the end-to-end write check covers the builder);
//   - ReadDB and WriteDB: leveldb.OpenFile with Options.Filter set.
//
// The ports module builds it with the newest syndtr/goleveldb; the modules
// under ports/versions build this same package with another version, or
// with a fork that keeps syndtr's module path, through a replace
// directive (one version of a module per build).
package goleveldb

import (
	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/filter"
	"github.com/syndtr/goleveldb/leveldb/opt"
	"github.com/syndtr/goleveldb/leveldb/storage"
	"github.com/syndtr/goleveldb/leveldb/table"
	"github.com/syndtr/goleveldb/leveldb/util"

	"github.com/ldbcompat/ldbcompat/compat"
	"github.com/ldbcompat/ldbcompat/ports/internal/adapt"
	"github.com/ldbcompat/ldbcompat/ports/internal/sstcraft"
	"github.com/ldbcompat/ldbcompat/ports/internal/syndtrapi"
)

// Module is the module this adapter checks.
const Module = "github.com/syndtr/goleveldb"

// Notes say how each property is reached, or why it is not.
var Notes = syndtrapi.Notes(syndtrapi.FindFiltered)

// Port returns goleveldb described as a compat.Port.
func Port() compat.Port { return api.Port(Module) }

// api binds goleveldb's functions and types to the adapter, which
// ports/internal/syndtrapi holds for every module with syndtr's API.
var api = &syndtrapi.API[filter.Filter, filter.FilterGenerator, filter.Buffer, *leveldb.DB, *opt.ReadOptions, *opt.WriteOptions, util.Range]{
	Hash:           util.Hash,
	NewBloomFilter: filter.NewBloomFilter,
	Generate: func(g filter.FilterGenerator, dst []byte) []byte {
		b := util.NewBuffer(dst)
		g.Generate(b)
		return b.Bytes()
	},
	OpenFile: func(dir string, f filter.Filter, create bool) (*leveldb.DB, error) {
		return leveldb.OpenFile(dir, &opt.Options{Filter: f, ErrorIfMissing: !create, ErrorIfExist: create})
	},
	OpenTable: func(r *sstcraft.Reads, f filter.Filter) (adapt.Finder, error) {
		t, err := table.NewReader(r, r.Size(), storage.FileDesc{Type: storage.TypeTable, Num: 1}, nil, util.NewBufferPool(4096), &opt.Options{Filter: f, Strict: opt.StrictBlockChecksum})
		if err != nil {
			return nil, err
		}
		return func(key []byte) error {
			_, _, err := t.Find(key, true, nil)
			return err
		}, nil
	},
	ErrNotFound: leveldb.ErrNotFound,
}
