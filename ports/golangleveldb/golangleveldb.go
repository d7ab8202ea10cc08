// Package golangleveldb describes github.com/golang/leveldb (its last
// commit, of January 2017; its README calls it an incomplete work in
// progress) as a compat.Port, through its public API:
//
//   - NewPolicy: bloom.FilterPolicy, its db.FilterPolicy;
//   - Hash: not exported (bloom's hash function is unexported);
//   - filter block reader: unexported, reached through its table reader
//     (table.NewReader and Reader.Get, which consults the filter), on a
//     table made around the block by ports/internal/sstcraft;
//   - filter block builder: unexported, and table.Writer picks the data
//     block offsets itself, so the suite's builder calls cannot be replayed;
//   - WriteTable and ReadTable: table.NewWriter and table.NewReader with
//     the options its database gives them: a copy of its unexported
//     internal key comparer (which never shortens index separators) and
//     the filter policy as it is, over whole internal keys;
//   - WriteLog and ReadLog: package record, as the database writes and
//     recovers its log; WriteSynced: DB.Set with Sync;
//   - ReadDB and WriteDB: leveldb.Open with db.Options.FilterPolicy set.
//     The database has no CompactRange or flush call, but Open writes the
//     log it finds to a level-0 table: WriteDB puts the keys in batches of
//     64 KiB, closing and opening the database again after each, so that
//     its data goes to tables, which then compact, without depending on
//     when background flushes run (the tables are the same on every run).
package golangleveldb

import (
	"errors"
	"io"
	"os"
	"time"

	"github.com/golang/leveldb"
	gbloom "github.com/golang/leveldb/bloom"
	"github.com/golang/leveldb/db"
	"github.com/golang/leveldb/table"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/compat"
	"github.com/ldbcompat/ldbcompat/internal/kit"
	"github.com/ldbcompat/ldbcompat/ports/internal/adapt"
	"github.com/ldbcompat/ldbcompat/ports/internal/sstcraft"
)

// Module is the module this adapter checks.
const Module = "github.com/golang/leveldb"

// batchBytes is how many bytes of keys and values WriteDB puts before it
// closes and opens the database again: far less than the memtable
// (db.Options' default write buffer of 4 MiB), so that no flush runs in
// the background, and little enough that the kit's database makes several
// level-0 tables, and so compactions.
const batchBytes = 64 << 10

// Notes say how each property is reached, or why it is not.
var Notes = map[kit.Property]string{
	kit.PropHash:        "not exported: bloom's hash function is unexported",
	kit.PropBlockBytes:  "not reachable: the filter block writer is unexported and table.Writer chooses data block offsets itself",
	kit.PropReader:      "through table.NewReader and Reader.Get, which consults the filter, on a table made around the block",
	kit.PropReadDB:      "leveldb.Open with db.Options{FilterPolicy: bloom.FilterPolicy(bits)}, DB.Get",
	kit.PropWriteDB:     "leveldb.Open with db.Options{FilterPolicy: bloom.FilterPolicy(bits)}, DB.Set, and DB.Close and leveldb.Open again after every 64 KiB put (no flush or CompactRange call exists; Open writes the log to a table)",
	kit.PropFilterBytes: "bloom.FilterPolicy(bits).AppendFilter",
	kit.PropTableBytes: "table.NewWriter with db.Options{Comparer, FilterPolicy: bloom.FilterPolicy(bits) (none for 0 bits), BlockSize, BlockRestartInterval, Compression: db.SnappyCompression or db.NoCompression}, Writer.Set, Writer.Close, as the database writes its tables: " +
		"Comparer is the adapter's copy of the database's unexported internalKeyComparer, whose AppendSeparator never shortens (the index holds each block's last key), " +
		"and the database hands the filter policy whole internal keys, as the adapter does (upstream's InternalFilterPolicy filters user keys)",
	kit.PropReadTable:    "table.NewReader with db.Options{Comparer: the adapter's copy of the database's internalKeyComparer, VerifyChecksums: true}, Reader.Find(nil, nil): Next, Key, Value, then Close's error",
	kit.PropLogBytes:     "record.NewWriter; for each record Writer.Next, Write and Flush, as the database writes a batch with sync; Writer.Close",
	kit.PropReadLog:      "record.NewReader, Reader.Next and reading each record to its end, stopping at the first error, as the database's recovery does (it fails to open there; it never calls Reader.Recover)",
	kit.PropLogRecovered: "leveldb.Open with db.Options{ErrorIfDBExists: true, WriteBufferSize: above the kit's writes, so that no memtable is flushed}, DB.Set with db.WriteOptions{Sync: true}; DB.Close when the kit asks",
	kit.PropRecoversLog:  "leveldb.Open with db.Options{FilterPolicy: bloom.FilterPolicy(bits)}, DB.Get (the ReadDB hook); Open replays the log into a level-0 table",
}

// Port returns golang/leveldb described as a compat.Port.
func Port() compat.Port {
	return compat.Port{
		Name:      Module,
		NewPolicy: func(bitsPerKey int) bloom.FilterPolicy { return Policy{gbloom.FilterPolicy(bitsPerKey)} },
		NewFilterBlockReader: func(p bloom.FilterPolicy, contents []byte) compat.FilterBlockReader {
			return adapt.NewBlockReader(p.Name(), contents, openTable(asPolicy(p)), notFound)
		},
		ReadDB:      readDB,
		WriteDB:     writeDB,
		WriteTable:  writeTable,
		ReadTable:   readTable,
		WriteLog:    writeLog,
		ReadLog:     readLog,
		WriteSynced: writeSynced,
	}
}

// Policy is a golang/leveldb db.FilterPolicy as a bloom.FilterPolicy.
type Policy struct{ P db.FilterPolicy }

// Name returns the policy's name.
func (p Policy) Name() string { return p.P.Name() }

// CreateFilter calls AppendFilter.
func (p Policy) CreateFilter(keys [][]byte, dst []byte) []byte { return p.P.AppendFilter(dst, keys) }

// KeyMayMatch calls MayContain.
func (p Policy) KeyMayMatch(key, f []byte) bool { return p.P.MayContain(f, key) }

// asPolicy returns p as a golang/leveldb policy: its own when p wraps one,
// else a wrapper (for upstream's test policy).
func asPolicy(p bloom.FilterPolicy) db.FilterPolicy {
	if gp, ok := p.(Policy); ok {
		return gp.P
	}
	return wrapped{p}
}

type wrapped struct{ p bloom.FilterPolicy }

func (w wrapped) Name() string                                  { return w.p.Name() }
func (w wrapped) AppendFilter(dst []byte, keys [][]byte) []byte { return w.p.CreateFilter(keys, dst) }
func (w wrapped) MayContain(f, key []byte) bool                 { return w.p.KeyMayMatch(key, f) }

// openTable opens the table r reads with golang/leveldb's table reader and
// the policy p; its Finder calls Reader.Get, which consults the filter.
// NewReader returns no error: a table it refuses fails every Get.
func openTable(p db.FilterPolicy) adapt.OpenTable {
	return func(r *sstcraft.Reads) (adapt.Finder, error) {
		tr := table.NewReader(memFile{r}, &db.Options{FilterPolicy: p})
		return func(key []byte) error {
			_, err := tr.Get(key, nil)
			return err
		}, nil
	}
}

func notFound(err error) bool { return errors.Is(err, db.ErrNotFound) }

// memFile is a read-only db.File over a table in memory.
type memFile struct{ r *sstcraft.Reads }

func (f memFile) Close() error                            { return nil }
func (f memFile) Read([]byte) (int, error)                { return 0, io.EOF }
func (f memFile) ReadAt(p []byte, off int64) (int, error) { return f.r.ReadAt(p, off) }
func (f memFile) Write([]byte) (int, error)               { return 0, errors.New("read-only") }
func (f memFile) Stat() (os.FileInfo, error)              { return fileInfo{f.r.Size()}, nil }
func (f memFile) Sync() error                             { return nil }

type fileInfo struct{ size int64 }

func (fi fileInfo) Name() string       { return "000001.ldb" }
func (fi fileInfo) Size() int64        { return fi.size }
func (fi fileInfo) Mode() os.FileMode  { return 0o444 }
func (fi fileInfo) ModTime() time.Time { return time.Time{} }
func (fi fileInfo) IsDir() bool        { return false }
func (fi fileInfo) Sys() any           { return nil }

func readDB(dir string, bitsPerKey int, keys [][]byte) ([]bool, error) {
	d, err := leveldb.Open(dir, &db.Options{FilterPolicy: gbloom.FilterPolicy(bitsPerKey)})
	if err != nil {
		return nil, err
	}
	return adapt.GetKeys(keys, func(k []byte) error { _, err := d.Get(k, nil); return err }, notFound, d.Close)
}

func writeDB(dir string, kvs [][2][]byte, bitsPerKey int) error {
	opts := &db.Options{FilterPolicy: gbloom.FilterPolicy(bitsPerKey)}
	d, err := leveldb.Open(dir, opts)
	if err != nil {
		return err
	}
	// reopen closes the database, which waits for the compactions that
	// run, and opens it again, which writes the log to a table.
	reopen := func() error {
		if err := d.Close(); err != nil {
			return err
		}
		d, err = leveldb.Open(dir, opts)
		return err
	}
	size := 0
	for _, kv := range kvs {
		if size > 0 && size+len(kv[0])+len(kv[1]) > batchBytes {
			if err := reopen(); err != nil {
				return err
			}
			size = 0
		}
		size += len(kv[0]) + len(kv[1])
		if err := d.Set(kv[0], kv[1], nil); err != nil {
			d.Close()
			return err
		}
	}
	if err := reopen(); err != nil {
		return err
	}
	return d.Close()
}
