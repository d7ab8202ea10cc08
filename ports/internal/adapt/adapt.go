// Package adapt holds what the port adapters share that does not depend on
// a port's own types: asking a filter block a question through a port's
// table reader (on a table ports/internal/sstcraft makes around the block),
// reading keys through a port's database, writing them through a database
// that flushes its memtable at will, writing and reading a log through a
// port's log writer and reader, and copying a table's entries out of a
// port's iterator.
//
// An adapter binds its port's own types to these helpers with a few
// closures or a small type of its own; the modules with syndtr/goleveldb's
// API, whose adapter is the same but for their types, share one in
// ports/internal/syndtrapi, and pebble v1 and v2 one in
// ports/internal/pebbleapi.
package adapt

import (
	"bytes"
	"errors"
	"io"

	"github.com/ldbcompat/ldbcompat/compat"
	"github.com/ldbcompat/ldbcompat/ports/internal/sstcraft"
)

// Finder looks key up in one table through a port's table reader, with
// the table's filter consulted: it returns nil when the key was found, an
// error for which the adapter's notFound says true when the reader answered
// "not found", and any other error otherwise.
type Finder func(key []byte) error

// OpenTable opens the table that r reads through the port's table reader,
// with the filter policy under test, and returns its Finder; an error
// means the port's reader refuses the table.
type OpenTable func(r *sstcraft.Reads) (Finder, error)

// NewBlockReader returns a compat.FilterBlockReader that answers
// KeyMayMatch(offset, key) through a port's table reader: for each offset
// asked, a table (sstcraft.Table) whose filter block, named "filter."+name,
// is contents and whose only data block sits at offset; the filter said
// "may match" when the reader went on to read that data block, and "no"
// when it answered "not found" without reading it. A table the reader
// refuses, or another error, panics with a compat.Refusal, as the kit
// expects of a port that cannot take an input upstream accepts.
func NewBlockReader(name string, contents []byte, open OpenTable, notFound func(error) bool) compat.FilterBlockReader {
	return &blockReader{name: name, contents: contents, open: open, notFound: notFound, tables: map[uint64]opened{}}
}

type opened struct {
	find  Finder
	reads *sstcraft.Reads
}

type blockReader struct {
	name     string
	contents []byte
	open     OpenTable
	notFound func(error) bool
	tables   map[uint64]opened
}

// KeyMayMatch reports whether the port's table reader read the data block
// at offset when asked for key.
func (b *blockReader) KeyMayMatch(offset uint64, key []byte) bool {
	t, ok := b.tables[offset]
	if !ok {
		t.reads = sstcraft.NewReads(sstcraft.Table(b.name, b.contents, offset))
		var err error
		t.find, err = b.open(t.reads)
		if err != nil {
			panic(compat.Refusal{Err: err})
		}
		t.reads.Arm()
		b.tables[offset] = t
	}
	before := t.reads.Count()
	err := t.find(key)
	switch {
	case t.reads.Count() > before:
		return true
	case err != nil && b.notFound(err):
		return false
	case err == nil:
		// Found without reading the data block: the table holds none, so
		// a reader that answers so has not asked the filter either.
		panic(compat.Refusal{Err: errFoundWithoutData})
	default:
		panic(compat.Refusal{Err: err})
	}
}

type foundWithoutData struct{}

func (foundWithoutData) Error() string {
	return "the table reader found a key without reading the data block, which the table does not hold"
}

var errFoundWithoutData error = foundWithoutData{}

// Getter looks one key up in an open database: found reports whether it
// holds the key; err is any failure other than "not found".
type Getter func(key []byte) (found bool, err error)

// ReadKeys looks up every key with get, in order, and stops at the first
// error.
func ReadKeys(get Getter, keys [][]byte) ([]bool, error) {
	found := make([]bool, len(keys))
	for i, k := range keys {
		ok, err := get(k)
		if err != nil {
			return nil, err
		}
		found[i] = ok
	}
	return found, nil
}

// ClosingGetter returns a Getter over get, a Get that returns the value
// with an io.Closer to release it (pebble's DB.Get): it closes what it
// finds, and notFound is the error get returns for a key it lacks.
func ClosingGetter(get func(key []byte) ([]byte, io.Closer, error), notFound error) Getter {
	return func(key []byte) (bool, error) {
		_, closer, err := get(key)
		switch {
		case err == nil:
			return true, closer.Close()
		case errors.Is(err, notFound):
			return false, nil
		}
		return false, err
	}
}

// Flusher is an open database whose memtable its user can write to a table
// at will (pebble's DB), bound by an adapter to the port's own calls.
type Flusher interface {
	// Set puts a key, without waiting for the log to sync.
	Set(key, value []byte) error
	// Flush writes the memtable to a table.
	Flush() error
	// Compact compacts the tables that hold start to end.
	Compact(start, end []byte) error
	Close() error
}

// WriteFlushed puts kvs into db in batches of about batchBytes (each key
// and value, and overhead for each entry: what a memtable entry takes
// beyond them), flushing the memtable after each, then compacts the whole
// key range and closes db. Batches far below the memtable's size keep the
// port from flushing in the background, so that the tables the compaction
// starts from, and so the tables it leaves, are the same on every run. On
// an error it closes db and returns the error.
func WriteFlushed(db Flusher, kvs [][2][]byte, batchBytes, overhead int) error {
	fail := func(err error) error {
		db.Close()
		return err
	}
	if len(kvs) == 0 {
		return db.Close()
	}
	size := 0
	lo, hi := kvs[0][0], kvs[0][0]
	for _, kv := range kvs {
		n := len(kv[0]) + len(kv[1]) + overhead
		if size > 0 && size+n > batchBytes {
			if err := db.Flush(); err != nil {
				return fail(err)
			}
			size = 0
		}
		size += n
		if err := db.Set(kv[0], kv[1]); err != nil {
			return fail(err)
		}
		if bytes.Compare(kv[0], lo) < 0 {
			lo = kv[0]
		}
		if bytes.Compare(kv[0], hi) > 0 {
			hi = kv[0]
		}
	}
	if err := db.Flush(); err != nil {
		return fail(err)
	}
	if bytes.Equal(lo, hi) {
		// Compact needs start < end; one key is one table already.
		return db.Close()
	}
	if err := db.Compact(lo, hi); err != nil {
		return fail(err)
	}
	return db.Close()
}

// GetKeys reads keys as ReadKeys does with ErrGetter(get, notFound), then
// closes the database with close.
func GetKeys(keys [][]byte, get func(key []byte) error, notFound func(error) bool, close func() error) ([]bool, error) {
	defer close()
	return ReadKeys(ErrGetter(get, notFound), keys)
}

// ErrGetter returns a Getter over get, a Get whose value the adapter does
// not need: it found the key when get returns nil, and lacks it when
// notFound says true of get's error.
func ErrGetter(get func(key []byte) error, notFound func(error) bool) Getter {
	return func(key []byte) (bool, error) {
		err := get(key)
		if err != nil && notFound(err) {
			return false, nil
		}
		return err == nil, err
	}
}
