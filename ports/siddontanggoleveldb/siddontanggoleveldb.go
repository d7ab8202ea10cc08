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
//   - WriteTable and ReadTable: leveldb/table's Writer and Reader, with
//     the adapter's copies of the internal key comparer and filter that
//     the database wraps its options in (unexported types);
//   - WriteLog and ReadLog: leveldb/journal, as the database writes and
//     recovers its journal; WriteSynced: DB.Put with WriteOptions.Sync;
//   - ReadDB and WriteDB: leveldb.OpenFile with Options.Filter set.
package siddontanggoleveldb

import (
	"bytes"
	"io"

	"github.com/siddontang/goleveldb/leveldb"
	"github.com/siddontang/goleveldb/leveldb/comparer"
	"github.com/siddontang/goleveldb/leveldb/filter"
	"github.com/siddontang/goleveldb/leveldb/journal"
	"github.com/siddontang/goleveldb/leveldb/opt"
	"github.com/siddontang/goleveldb/leveldb/storage"
	"github.com/siddontang/goleveldb/leveldb/table"
	"github.com/siddontang/goleveldb/leveldb/util"

	"github.com/ldbcompat/ldbcompat/compat"
	"github.com/ldbcompat/ldbcompat/ports/internal/adapt"
	"github.com/ldbcompat/ldbcompat/ports/internal/ikey"
	"github.com/ldbcompat/ldbcompat/ports/internal/sstcraft"
	"github.com/ldbcompat/ldbcompat/ports/internal/syndtrapi"
)

// Module is the module this adapter checks.
const Module = "github.com/siddontang/goleveldb"

// readerNote says how the adapter reaches the filter block reader: this
// table reader has no choice of filtering.
const readerNote = "through table.NewReader (which returns no error: a table it refuses fails every Find) and Reader.Find, which always consults the filter, on a table made around the block"

// Notes say how each property is reached, or why it is not.
var Notes = syndtrapi.Notes(readerNote)

// Port returns siddontang/goleveldb described as a compat.Port.
func Port() compat.Port { return api.Port(Module) }

// api binds siddontang/goleveldb's functions and types to the adapter, which
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
	// Its NewReader returns no error: a table it refuses makes every Find
	// fail, which the block reader reports as a refusal.
	OpenTable: func(r *sstcraft.Reads, f filter.Filter) (adapt.Finder, error) {
		t := table.NewReader(r, r.Size(), &storage.FileInfo{Type: storage.TypeTable, Num: 1}, nil, util.NewBufferPool(4096), &opt.Options{Filter: f, Strict: opt.StrictBlockChecksum})
		return func(key []byte) error {
			_, _, err := t.Find(key, nil)
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
		// Its NewReader returns no error: a table it refuses fails the
		// iterator.
		t := table.NewReader(bytes.NewReader(contents), int64(len(contents)), &storage.FileInfo{Type: storage.TypeTable, Num: 1}, nil, util.NewBufferPool(4096), &opt.Options{Comparer: cmp, Strict: opt.DefaultStrict})
		return t.NewIterator(nil, nil), nil
	},
	NewLogWriter: func(w io.Writer) syndtrapi.LogWriter { return journal.NewWriter(w) },
	NewLogReader: func(r io.Reader) syndtrapi.LogReader { return journal.NewReader(r, nil, false, true) },
	Sync:         &opt.WriteOptions{Sync: true},
}
