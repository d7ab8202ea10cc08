// Package syndtrapi is the adapter of syndtr/goleveldb's public API to a
// compat.Port, written once for every module that has that API:
// syndtr/goleveldb itself (and the forks that keep its module path, built
// by the modules under ports/versions), and the forks under paths of their
// own, btcsuite/goleveldb, pingcap/goleveldb and siddontang/goleveldb.
//
// Those modules have the same functions and types under other import
// paths, so their types differ, and Go cannot name them in one package
// without importing every module. The adapter is generic in them instead:
// a module's own adapter package (ports/goleveldb and the others) fills in
// an API with its functions and types, the few places where a struct of
// the module's own has to be built (its opt.Options, its table reader),
// and keeps its name, documentation, Module and Notes.
//
// The adapter reaches each module through that module's public API only:
// everything here calls the functions and methods an API names, and
// nothing else of the module.
package syndtrapi

import (
	"errors"
	"io"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/compat"
	"github.com/ldbcompat/ldbcompat/internal/kit"
	"github.com/ldbcompat/ldbcompat/ports/internal/adapt"
	"github.com/ldbcompat/ldbcompat/ports/internal/ikey"
	"github.com/ldbcompat/ldbcompat/ports/internal/sstcraft"
)

// Filter is a module's filter.Filter, whose generators are G (its
// filter.FilterGenerator).
type Filter[G any] interface {
	Name() string
	NewGenerator() G
	Contains(filter, key []byte) bool
}

// Generator is a module's filter.FilterGenerator, which generates into B
// (its filter.Buffer).
type Generator[B any] interface {
	Add(key []byte)
	Generate(b B)
}

// Buffer is what the adapter needs of a module's filter.Buffer: the
// generator that stands for a bloom.FilterPolicy of the kit's writes the
// policy's filter into it.
type Buffer interface {
	Write(p []byte) (n int, err error)
}

// DB is a module's *leveldb.DB. RO, WO and R are the *opt.ReadOptions,
// *opt.WriteOptions and util.Range its methods take; the adapter passes
// their zero values: no read or write options, and the whole key range.
type DB[RO, WO, R any] interface {
	Get(key []byte, ro RO) (value []byte, err error)
	Put(key, value []byte, wo WO) error
	CompactRange(r R) error
	Close() error
}

// API is one module's syndtr/goleveldb API, bound to its own types: F, G
// and B are its filter.Filter, filter.FilterGenerator and filter.Buffer
// (interface types in every module: the adapter's stand-in for a policy of
// the kit's implements them); D is its *leveldb.DB and RO, WO and R what
// D's methods take (see DB).
type API[F Filter[G], G Generator[B], B Buffer, D DB[RO, WO, R], RO, WO, R any] struct {
	// Hash is util.Hash.
	Hash func(data []byte, seed uint32) uint32

	// NewBloomFilter is filter.NewBloomFilter.
	NewBloomFilter func(bitsPerKey int) F

	// Generate calls g.Generate with a util.Buffer holding dst
	// (util.NewBuffer(dst)), as the module's table writer generates into
	// its util.Buffer, and returns the buffer's Bytes.
	Generate func(g G, dst []byte) []byte

	// OpenFile is leveldb.OpenFile of dir with opt.Options{Filter:
	// o.Filter, ErrorIfMissing: !o.Create, ErrorIfExist: o.Create,
	// WriteBuffer: o.WriteBuffer}.
	OpenFile func(dir string, o Open[F]) (D, error)

	// OpenTable opens the table r reads with table.NewReader, with
	// opt.Options{Filter: f, Strict: opt.StrictBlockChecksum}, and returns
	// a Finder that calls the reader's Find with filtering on, where Find
	// lets its caller choose.
	OpenTable func(r *sstcraft.Reads, f F) (adapt.Finder, error)

	// ErrNotFound is leveldb.ErrNotFound, the "not found" of DB.Get and of
	// the table reader's Find (errors.ErrNotFound, which leveldb and table
	// export again, in every module of the family).
	ErrNotFound error

	// UserComparer is comparer.DefaultComparer, which the database wraps
	// in its internal key comparer.
	UserComparer ikey.UserComparer

	// NewTableWriter is table.NewWriter of w with opt.Options{Comparer:
	// cmp, Filter: f (nil for none), BlockSize, BlockRestartInterval and
	// Compression (opt.SnappyCompression or opt.NoCompression) from o}.
	NewTableWriter func(w io.Writer, cmp ikey.Syndtr, f F, o compat.TableOptions) TableWriter

	// OpenTableIter opens the table in contents with table.NewReader and
	// opt.Options{Comparer: cmp, Strict: opt.DefaultStrict} (which verifies
	// block checksums) and returns Reader.NewIterator(nil, nil).
	OpenTableIter func(contents []byte, cmp ikey.Syndtr) (Iterator, error)

	// NewLogWriter is journal.NewWriter.
	NewLogWriter func(w io.Writer) LogWriter

	// NewLogReader is journal.NewReader(r, nil, false, true): not strict
	// and verifying checksums, as the database reads its journals with
	// opt.DefaultStrict.
	NewLogReader func(r io.Reader) LogReader

	// Sync is &opt.WriteOptions{Sync: true}.
	Sync WO
}

// Open is what the adapter sets in the opt.Options of a database it opens
// (see API.OpenFile): Filter (nil for none), whether the database is new
// (Create: it must not exist) or must exist, and the memtable's size (0
// for the default).
type Open[F any] struct {
	Filter      F
	Create      bool
	WriteBuffer int
}

// FindFiltered is the note on the filter block reader of a module whose
// table reader's Find takes whether to consult the filter.
const FindFiltered = "through table.NewReader and Reader.Find(key, filtered=true) on a table made around the block"

// Notes say how the adapter reaches each property of a module, or why it
// cannot; reader says how it reaches the filter block reader, the one
// property whose way differs from module to module (FindFiltered for most).
func Notes(reader string) map[kit.Property]string {
	return map[kit.Property]string{
		kit.PropHash:         "leveldb/util.Hash",
		kit.PropBlockBytes:   "not reachable: the filter block writer is unexported and table.Writer chooses data block offsets itself",
		kit.PropReader:       reader,
		kit.PropReadDB:       "leveldb.OpenFile with opt.Options{Filter: filter.NewBloomFilter(bits)}, DB.Get",
		kit.PropWriteDB:      "leveldb.OpenFile with opt.Options{Filter: filter.NewBloomFilter(bits)}, DB.Put, DB.CompactRange(util.Range{})",
		kit.PropFilterBytes:  "filter.NewBloomFilter(bits).NewGenerator(): Add, Generate",
		kit.PropTableBytes:   TableBytesNote,
		kit.PropReadTable:    ReadTableNote,
		kit.PropLogBytes:     "journal.NewWriter; for each record Writer.Next, Write and Flush, as the database writes each batch; Writer.Close",
		kit.PropReadLog:      "journal.NewReader(r, nil, strict=false, checksum=true), as the database reads its journals with the default opt.DefaultStrict (StrictJournalChecksum without StrictJournal); Reader.Next and reading each record to its end, skipping a record cut short by corruption (io.ErrUnexpectedEOF) and going on, as the database's recovery does",
		kit.PropLogRecovered: "leveldb.OpenFile with opt.Options{ErrorIfExist: true, WriteBuffer: above the kit's writes, so that no memtable is flushed}, DB.Put with opt.WriteOptions{Sync: true}; DB.Close when the kit asks",
		kit.PropRecoversLog:  "leveldb.OpenFile with opt.Options{Filter: filter.NewBloomFilter(bits)}, DB.Get (the ReadDB hook)",
	}
}

// TableBytesNote says how the adapter reaches the table writer.
const TableBytesNote = "table.NewWriter with opt.Options{Comparer, Filter, BlockSize, BlockRestartInterval, Compression: opt.SnappyCompression or opt.NoCompression}, Writer.Append, Writer.Close. " +
	"Comparer and Filter are the adapter's copies of what the database passes, whose types are unexported: " +
	"its iComparer over comparer.DefaultComparer (user keys bytewise, then sequence and type descending; Separator and Successor shorten the user key and append the largest sequence number, as leveldb's InternalKeyComparator) " +
	"and its iFilter over filter.NewBloomFilter(bits) (the filter over user keys)"

// ReadTableNote says how the adapter reaches the table reader.
const ReadTableNote = "table.NewReader with opt.Options{Comparer: the adapter's copy of the database's iComparer, Strict: opt.DefaultStrict (block checksums verified)}, Reader.NewIterator(nil, nil): Next, Key, Value, then Error; no filter (a scan does not consult it)"

// Port returns the module named module described as a compat.Port, through
// the functions a binds.
func (a *API[F, G, B, D, RO, WO, R]) Port(module string) compat.Port {
	return compat.Port{
		Name:      module,
		NewPolicy: func(bitsPerKey int) bloom.FilterPolicy { return a.policy(a.NewBloomFilter(bitsPerKey)) },
		Hash:      a.Hash,
		NewFilterBlockReader: func(p bloom.FilterPolicy, contents []byte) compat.FilterBlockReader {
			return adapt.NewBlockReader(p.Name(), contents, a.openTable(a.asFilter(p)), a.notFound)
		},
		ReadDB:      a.readDB,
		WriteDB:     a.writeDB,
		WriteTable:  a.writeTable,
		ReadTable:   a.readTable,
		WriteLog:    a.writeLog,
		ReadLog:     a.readLog,
		WriteSynced: a.writeSynced,
	}
}

// policy is a module's filter.Filter f as a bloom.FilterPolicy; generate
// is the module's API.Generate.
type policy[F Filter[G], G Generator[B], B Buffer] struct {
	f        F
	generate func(g G, dst []byte) []byte
}

func (a *API[F, G, B, D, RO, WO, R]) policy(f F) policy[F, G, B] {
	return policy[F, G, B]{f: f, generate: a.Generate}
}

// Name returns the filter's name.
func (p policy[F, G, B]) Name() string { return p.f.Name() }

// CreateFilter adds keys to a new generator of the filter and generates
// its filter into a util.Buffer holding dst.
func (p policy[F, G, B]) CreateFilter(keys [][]byte, dst []byte) []byte {
	g := p.f.NewGenerator()
	for _, k := range keys {
		g.Add(k)
	}
	return p.generate(g, dst)
}

// KeyMayMatch asks the filter's Contains.
func (p policy[F, G, B]) KeyMayMatch(key, f []byte) bool { return p.f.Contains(f, key) }

// asFilter returns p as the module's filter: its own when p wraps one,
// else a stand-in that asks p (for upstream's test policy).
func (a *API[F, G, B, D, RO, WO, R]) asFilter(p bloom.FilterPolicy) F {
	if mp, ok := p.(policy[F, G, B]); ok {
		return mp.f
	}
	// F is an interface type whose methods wrapped has: the assertion
	// cannot fail for a module of the family.
	return any(wrapped[G, B]{p}).(F)
}

// wrapped is a bloom.FilterPolicy as a module's filter.Filter.
type wrapped[G any, B Buffer] struct{ p bloom.FilterPolicy }

func (w wrapped[G, B]) Name() string                { return w.p.Name() }
func (w wrapped[G, B]) Contains(f, key []byte) bool { return w.p.KeyMayMatch(key, f) }

// NewGenerator returns a generator that keeps the keys and has the policy
// create their filter. G is an interface type whose methods *generator
// has, so the assertion cannot fail for a module of the family.
func (w wrapped[G, B]) NewGenerator() G { return any(&generator[B]{p: w.p}).(G) }

type generator[B Buffer] struct {
	p    bloom.FilterPolicy
	keys [][]byte
}

func (g *generator[B]) Add(key []byte) { g.keys = append(g.keys, append([]byte(nil), key...)) }

func (g *generator[B]) Generate(b B) {
	_, _ = b.Write(g.p.CreateFilter(g.keys, nil))
	g.keys = g.keys[:0]
}

// openTable opens a table with the module's table reader and the filter f.
func (a *API[F, G, B, D, RO, WO, R]) openTable(f F) adapt.OpenTable {
	return func(r *sstcraft.Reads) (adapt.Finder, error) { return a.OpenTable(r, f) }
}

func (a *API[F, G, B, D, RO, WO, R]) notFound(err error) bool {
	return errors.Is(err, a.ErrNotFound)
}

func (a *API[F, G, B, D, RO, WO, R]) readDB(dir string, bitsPerKey int, keys [][]byte) ([]bool, error) {
	db, err := a.OpenFile(dir, Open[F]{Filter: a.NewBloomFilter(bitsPerKey)})
	if err != nil {
		return nil, err
	}
	defer db.Close()
	var ro RO
	get := func(k []byte) error { _, err := db.Get(k, ro); return err }
	return adapt.ReadKeys(adapt.ErrGetter(get, a.notFound), keys)
}

func (a *API[F, G, B, D, RO, WO, R]) writeDB(dir string, kvs [][2][]byte, bitsPerKey int) error {
	db, err := a.OpenFile(dir, Open[F]{Filter: a.NewBloomFilter(bitsPerKey), Create: true})
	if err != nil {
		return err
	}
	var wo WO
	put := func(k, v []byte) error { return db.Put(k, v, wo) }
	if err := adapt.PutAll(kvs, put, db.Close); err != nil {
		return err
	}
	var all R
	if err := db.CompactRange(all); err != nil {
		db.Close()
		return err
	}
	return db.Close()
}
