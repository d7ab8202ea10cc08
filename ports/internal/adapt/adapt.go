// Package adapt holds what the port adapters share that does not depend on
// a port's own types: asking a filter block a question through a port's
// table reader (on a table ports/internal/sstcraft makes around the block),
// and reading keys through a port's database.
//
// The forks of syndtr/goleveldb (btcsuite, pingcap, siddontang, and the
// ones that keep syndtr's module path) have the same API under other
// import paths, so their types differ: each adapter binds its own types to
// these helpers with a few closures.
package adapt

import (
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
