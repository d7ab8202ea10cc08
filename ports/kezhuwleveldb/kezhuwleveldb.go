// Package kezhuwleveldb describes github.com/kezhuw/leveldb (its master
// of February 2020, reached by its pseudo-version: the module has no
// tag, and the module proxy refuses its version list but serves that
// version) as a compat.Port, through its public API. Its README says it
// exports only the top-level package; everything else is internal:
//
//   - NewPolicy: leveldb.NewBloomFilter, its leveldb.Filter: Name,
//     Append(*bytes.Buffer, keys) and Contains;
//   - Hash: internal (internal/hash), not reachable;
//   - filter block builder and reader: internal (internal/table/filter),
//     and so is its table reader, so neither can be reached;
//   - table writer and reader, log writer and reader: internal
//     (internal/table, internal/record), not reachable;
//   - WriteSynced: leveldb.Open, DB.Put with WriteOptions.Sync;
//   - ReadDB and WriteDB: leveldb.Open with Options.Filter set; DB.Get;
//     DB.Put and DB.CompactRange over every key, which writes the memtable
//     to a table and compacts.
package kezhuwleveldb

import (
	"bytes"
	"errors"

	"github.com/kezhuw/leveldb"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/compat"
	"github.com/ldbcompat/ldbcompat/internal/kit"
	"github.com/ldbcompat/ldbcompat/ports/internal/adapt"
	"github.com/ldbcompat/ldbcompat/ports/internal/row"
)

// Module is the module this adapter checks.
const Module = "github.com/kezhuw/leveldb"

// Notes say how each property is reached, or why it is not.
var Notes = map[kit.Property]string{
	kit.PropName:         "leveldb.NewBloomFilter(bits).Name()",
	kit.PropHash:         "internal: its hash is in internal/hash, which other modules cannot import",
	kit.PropFilterBytes:  "leveldb.NewBloomFilter(bits).Append(buf, keys), into a bytes.Buffer holding dst",
	kit.PropKeyMayMatch:  "leveldb.NewBloomFilter(bits).Contains(filter, key)",
	kit.PropBlockBytes:   "internal: the filter block writer is in internal/table/filter, and its table writer too",
	kit.PropReader:       "internal: the filter block reader is in internal/table/filter, and the table reader that calls it in internal/table; only DB.Get reaches it (see reads upstream's DBs)",
	kit.PropReadDB:       "leveldb.Open with Options{Filter: leveldb.NewBloomFilter(bits)}, DB.Get",
	kit.PropWriteDB:      "leveldb.Open with Options{CreateIfMissing: true, ErrorIfExists: true, Filter: leveldb.NewBloomFilter(bits)}, DB.Put, DB.CompactRange(nil, nil), DB.Close",
	kit.PropTableBytes:   "internal: the table writer is in internal/table, which other modules cannot import; only the database writes tables (see upstream reads its DBs)",
	kit.PropReadTable:    "internal: the table reader is in internal/table; only DB.Get and iterators reach it (see reads upstream's DBs)",
	kit.PropLogBytes:     "internal: the log writer is in internal/record, which other modules cannot import; only DB.Put and DB.Write reach it (see upstream recovers the port's log)",
	kit.PropReadLog:      "internal: the log reader is in internal/record; only leveldb.Open's recovery reaches it (see recovers upstream's log)",
	kit.PropLogRecovered: "leveldb.Open with Options{CreateIfMissing: true, ErrorIfExists: true, WriteBufferSize: above the kit's writes, so that no memtable is flushed}, DB.Put with WriteOptions{Sync: true}; DB.Close when the kit asks",
	kit.PropRecoversLog:  "leveldb.Open with Options{Filter: leveldb.NewBloomFilter(bits)}, DB.Get (the ReadDB hook)",
}

// Measure finds out, through kezhuw/leveldb's public API, why its Get
// misses keys of upstream's databases: it reads every key of each
// database upstream wrote (testdata/tables) without a filter, and records
// what its table reader asks the filter (a leveldb.Filter of the
// application's own may be set in Options.Filter: here one that passes
// each question on to leveldb.NewBloomFilter and keeps the key).
func Measure() []row.Measured {
	return []row.Measured{withoutFilter(), filterQuestions(), writerFeeds()}
}

// Port returns kezhuw/leveldb described as a compat.Port.
func Port() compat.Port {
	return compat.Port{
		Name:        Module,
		NewPolicy:   func(bitsPerKey int) bloom.FilterPolicy { return Policy{leveldb.NewBloomFilter(bitsPerKey)} },
		ReadDB:      readDB,
		WriteDB:     writeDB,
		WriteSynced: writeSynced,
	}
}

// Policy is a kezhuw/leveldb Filter as a bloom.FilterPolicy.
type Policy struct{ F leveldb.Filter }

// Name returns the filter's name.
func (p Policy) Name() string { return p.F.Name() }

// CreateFilter appends the filter of keys to dst with the filter's Append.
func (p Policy) CreateFilter(keys [][]byte, dst []byte) []byte {
	b := bytes.NewBuffer(dst)
	p.F.Append(b, keys)
	return b.Bytes()
}

// KeyMayMatch asks the filter's Contains.
func (p Policy) KeyMayMatch(key, f []byte) bool { return p.F.Contains(f, key) }

func readDB(dir string, bitsPerKey int, keys [][]byte) ([]bool, error) {
	db, err := leveldb.Open(dir, &leveldb.Options{Filter: leveldb.NewBloomFilter(bitsPerKey)})
	if err != nil {
		return nil, err
	}
	return adapt.GetKeys(keys, func(k []byte) error { _, err := db.Get(k, nil); return err }, notFound, db.Close)
}

func notFound(err error) bool { return errors.Is(err, leveldb.ErrNotFound) }

func writeDB(dir string, kvs [][2][]byte, bitsPerKey int) error {
	return writeWith(dir, kvs, leveldb.NewBloomFilter(bitsPerKey))
}

// writeWith writes kvs into a new database in dir with the filter f as
// WriteDB does: DB.Put of each, DB.CompactRange over every key, DB.Close.
func writeWith(dir string, kvs [][2][]byte, f leveldb.Filter) error {
	db, err := leveldb.Open(dir, &leveldb.Options{CreateIfMissing: true, ErrorIfExists: true, Filter: f})
	if err != nil {
		return err
	}
	put := func(k, v []byte) error { return db.Put(k, v, nil) }
	if err := adapt.PutAll(kvs, put, db.Close); err != nil {
		return err
	}
	if err := db.CompactRange(nil, nil); err != nil {
		db.Close()
		return err
	}
	return db.Close()
}

func writeSynced(dir string, kvs [][2][]byte) (func() error, error) {
	db, err := leveldb.Open(dir, &leveldb.Options{CreateIfMissing: true, ErrorIfExists: true, WriteBufferSize: adapt.WriteBufferFor(kvs)})
	if err != nil {
		return nil, err
	}
	put := func(k, v []byte) error { return db.Put(k, v, &leveldb.WriteOptions{Sync: true}) }
	return adapt.PutSynced(kvs, put, db.Close)
}
