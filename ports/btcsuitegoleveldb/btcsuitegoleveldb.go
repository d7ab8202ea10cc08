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
//   - WriteTable and ReadTable: leveldb/table's Writer and Reader, with
//     the adapter's copies of the internal key comparer and filter that
//     the database wraps its options in (unexported types);
//   - WriteLog and ReadLog: leveldb/journal, as the database writes and
//     recovers its journal; WriteSynced: DB.Put with WriteOptions.Sync;
//   - ReadDB and WriteDB: leveldb.OpenFile with Options.Filter set.
package btcsuitegoleveldb

import (
	"bytes"
	"io"

	"github.com/btcsuite/goleveldb/leveldb"
	"github.com/btcsuite/goleveldb/leveldb/comparer"
	"github.com/btcsuite/goleveldb/leveldb/filter"
	"github.com/btcsuite/goleveldb/leveldb/journal"
	"github.com/btcsuite/goleveldb/leveldb/opt"
	"github.com/btcsuite/goleveldb/leveldb/storage"
	"github.com/btcsuite/goleveldb/leveldb/table"
	"github.com/btcsuite/goleveldb/leveldb/util"

	"github.com/ldbcompat/ldbcompat/compat"
	"github.com/ldbcompat/ldbcompat/ports/internal/adapt"
	"github.com/ldbcompat/ldbcompat/ports/internal/ikey"
	"github.com/ldbcompat/ldbcompat/ports/internal/sstcraft"
	"github.com/ldbcompat/ldbcompat/ports/internal/syndtrapi"
)

// Module is the module this adapter checks.
const Module = "github.com/btcsuite/goleveldb"

// Notes say how each property is reached, or why it is not.
var Notes = syndtrapi.Notes(syndtrapi.FindFiltered)

// Port returns btcsuite/goleveldb described as a compat.Port.
func Port() compat.Port { return api.Port(Module) }

// api binds btcsuite/goleveldb's functions and types to the adapter, which
// ports/internal/syndtrapi holds for every module with syndtr's API.
var api = &syndtrapi.API[filter.Filter, filter.FilterGenerator, filter.Buffer, *leveldb.DB, *opt.ReadOptions, *opt.WriteOptions, util.Range]{
	Hash:           util.Hash,
	NewBloomFilter: filter.NewBloomFilter,
	Generate: func(g filter.FilterGenerator, dst []byte) []byte {
		b := util.NewBuffer(dst)
		g.Generate(b)
		return b.Bytes()
	},
	OpenFile: func(dir string, o syndtrapi.Open[filter.Filter]) (*leveldb.DB, error) {
		return leveldb.OpenFile(dir, &opt.Options{Filter: o.Filter, ErrorIfMissing: !o.Create, ErrorIfExist: o.Create, WriteBuffer: o.WriteBuffer})
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
	ErrNotFound:  leveldb.ErrNotFound,
	UserComparer: comparer.DefaultComparer,
	NewTableWriter: func(w io.Writer, cmp ikey.Syndtr, f filter.Filter, o compat.TableOptions) syndtrapi.TableWriter {
		c := opt.NoCompression
		if o.Snappy {
			c = opt.SnappyCompression
		}
		return table.NewWriter(w, &opt.Options{Comparer: cmp, Filter: f, BlockSize: o.BlockSize, BlockRestartInterval: o.RestartInterval, Compression: c})
	},
	OpenTableIter: func(contents []byte, cmp ikey.Syndtr) (syndtrapi.Iterator, error) {
		t, err := table.NewReader(bytes.NewReader(contents), int64(len(contents)), storage.FileDesc{Type: storage.TypeTable, Num: 1}, nil, util.NewBufferPool(4096), &opt.Options{Comparer: cmp, Strict: opt.DefaultStrict})
		if err != nil {
			return nil, err
		}
		return t.NewIterator(nil, nil), nil
	},
	NewLogWriter: func(w io.Writer) syndtrapi.LogWriter { return journal.NewWriter(w) },
	NewLogReader: func(r io.Reader) syndtrapi.LogReader { return journal.NewReader(r, nil, false, true) },
	Sync:         &opt.WriteOptions{Sync: true},
}
