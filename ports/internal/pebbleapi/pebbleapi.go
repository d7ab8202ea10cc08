// Package pebbleapi is the adapter that pebble v1 and v2
// (ports/cockroachdbpebblev1 and ports/cockroachdbpebble) share: the
// modules have the same API for what the kit reaches under other import
// paths, so it is written once, generic in their types, and each module's
// adapter binds an API to its own functions.
//
// The adapter reaches each module through its public API only: the
// functions and methods an API names, and nothing else of the module.
package pebbleapi

import (
	"bytes"
	"fmt"
	"io"
	"math"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/compat"
	"github.com/ldbcompat/ldbcompat/ports/internal/adapt"
	"github.com/ldbcompat/ldbcompat/ports/internal/ikey"
)

// batchBytes is how many bytes WriteDB puts (keys, values and
// entryOverhead for each) before it flushes the memtable: a quarter of the
// smallest memtable pebble makes (256 KiB, its first), so that no flush
// runs in the background.
const batchBytes = 64 << 10

// entryOverhead is about what a memtable entry takes beyond its key and
// value (skiplist node and the key's 8-byte trailer).
const entryOverhead = 64

// FilterWriter is a module's pebble.FilterWriter.
type FilterWriter interface {
	AddKey(key []byte)
	Finish(buf []byte) []byte
}

// FilterPolicy is a module's pebble.FilterPolicy, whose filter types are T
// (its pebble.FilterType) and whose writers are W.
type FilterPolicy[T any, W FilterWriter] interface {
	Name() string
	MayContain(ftype T, filter, key []byte) bool
	NewWriter(ftype T) W
}

// Policy is a module's pebble.FilterPolicy P, used for filters of type
// Table (pebble.TableFilter, its only type), as a bloom.FilterPolicy.
type Policy[T any, W FilterWriter, P FilterPolicy[T, W]] struct {
	P     P
	Table T
}

// Name returns the policy's name.
func (p Policy[T, W, P]) Name() string { return p.P.Name() }

// CreateFilter adds keys to a new writer of a Table filter and appends
// its filter to dst.
func (p Policy[T, W, P]) CreateFilter(keys [][]byte, dst []byte) []byte {
	w := p.P.NewWriter(p.Table)
	for _, k := range keys {
		w.AddKey(k)
	}
	return w.Finish(dst)
}

// KeyMayMatch asks MayContain about a Table filter.
func (p Policy[T, W, P]) KeyMayMatch(key, f []byte) bool { return p.P.MayContain(p.Table, f, key) }

// Quiet is a module's pebble.Logger without Errorf (v1's whole Logger):
// it drops pebble's informational messages (it logs every Open), and a
// fatal error panics, so that the kit reports it as a crash and goes on,
// where pebble's default logger would end the process.
type Quiet struct{}

// Infof drops the message.
func (Quiet) Infof(string, ...any) {}

// Fatalf panics with the message.
func (Quiet) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }

// DB is a module's *pebble.DB, bound by its adapter: Set without waiting
// for the WAL to sync (pebble.NoSync), SetSync with pebble.Sync, Compact
// without parallelism.
type DB interface {
	adapt.Flusher
	Get(key []byte) ([]byte, io.Closer, error)
	SetSync(key, value []byte) error
}

// LogReader is a module's *record.Reader.
type LogReader interface {
	Next() (io.Reader, error)
}

// API is one module's pebble API, bound to its own functions.
type API[D DB] struct {
	// NewPolicy is bloom.FilterPolicy(bits) as a Policy.
	NewPolicy func(bitsPerKey int) bloom.FilterPolicy

	// Open is pebble.Open of dir with the pebble.Options o describes.
	Open func(dir string, o Open) (D, error)

	// ErrNotFound is pebble.ErrNotFound.
	ErrNotFound error

	// WriteTable and ReadTable are the kit's hooks, through the module's
	// sstable writer and reader, whose calls differ between the modules.
	WriteTable func(entries []compat.Entry, o compat.TableOptions) ([]byte, error)
	ReadTable  func(contents []byte) ([]compat.Entry, error)

	// NewLogWriter is record.NewWriter, which writes LevelDB's log format
	// (pebble's database writes its WAL with record.LogWriter instead, in
	// the recyclable format, whose headers hold the log number).
	NewLogWriter func(w io.Writer) adapt.LogWriter

	// NewLogReader is record.NewReader(r, 0).
	NewLogReader func(r io.Reader) LogReader
}

// Open is what the adapter sets in a module's pebble.Options, besides a
// Logger of Quiet: the fields of the same names (0 for the default), and
// when Filter is set, Levels[0].FilterPolicy, bloom.FilterPolicy of
// BitsPerKey, which the other levels inherit.
type Open struct {
	Filter                      bool
	BitsPerKey                  int
	ErrorIfExists               bool
	ErrorIfNotExists            bool
	DisableAutomaticCompactions bool
	L0StopWritesThreshold       int
	MemTableSize                uint64
}

// AppendEntry appends to out the entry of a table's user key, trailer
// (LevelDB's tag) and value, read with the module's LazyValue.Value.
func AppendEntry(out []compat.Entry, userKey []byte, trailer uint64, value func([]byte) ([]byte, bool, error)) ([]compat.Entry, error) {
	v, _, err := value(nil)
	if err != nil {
		return out, err
	}
	return append(out, compat.Entry{Key: ikey.Make(userKey, trailer), Value: bytes.Clone(v)}), nil
}

// Port returns the module named module described as a compat.Port,
// through the functions a binds.
func (a *API[D]) Port(module string) compat.Port {
	return compat.Port{
		Name:        module,
		NewPolicy:   a.NewPolicy,
		ReadDB:      a.readDB,
		WriteDB:     a.writeDB,
		WriteTable:  a.WriteTable,
		ReadTable:   a.ReadTable,
		WriteLog:    a.writeLog,
		ReadLog:     a.readLog,
		WriteSynced: a.writeSynced,
	}
}

func (a *API[D]) readDB(dir string, bitsPerKey int, keys [][]byte) ([]bool, error) {
	d, err := a.Open(dir, Open{Filter: true, BitsPerKey: bitsPerKey, ErrorIfNotExists: true})
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return adapt.ReadKeys(adapt.ClosingGetter(d.Get, a.ErrNotFound), keys)
}

// writeDB puts the keys with adapt.WriteFlushed: in batches of about
// batchBytes, flushing the memtable after each, then a compaction of the
// whole key range. With automatic compactions off, the tables that
// compaction starts from, and so leaves, are the same on every run; the
// level-0 tables pile up, so the write stall at 12 of them is lifted.
func (a *API[D]) writeDB(dir string, kvs [][2][]byte, bitsPerKey int) error {
	o := Open{Filter: true, BitsPerKey: bitsPerKey, ErrorIfExists: true, DisableAutomaticCompactions: true, L0StopWritesThreshold: math.MaxInt32}
	d, err := a.Open(dir, o)
	if err != nil {
		return err
	}
	return adapt.WriteFlushed(d, kvs, batchBytes, entryOverhead)
}

func (a *API[D]) writeLog(records [][]byte) ([]byte, error) {
	var buf bytes.Buffer
	if err := adapt.WriteLog(a.NewLogWriter(&buf), records, false); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// readLog reads records until the first error, as pebble's WAL replay
// ends at one.
func (a *API[D]) readLog(contents []byte) ([][]byte, error) {
	return adapt.ReadLog(a.NewLogReader(bytes.NewReader(contents)).Next, len(contents), false)
}

// writeSynced opens a new store at the default format major version with a
// memtable above the kit's writes and automatic compactions off, and sets
// each key with pebble.Sync.
func (a *API[D]) writeSynced(dir string, kvs [][2][]byte) (func() error, error) {
	d, err := a.Open(dir, Open{ErrorIfExists: true, DisableAutomaticCompactions: true, MemTableSize: uint64(adapt.WriteBufferFor(kvs))})
	if err != nil {
		return nil, err
	}
	return adapt.PutSynced(kvs, d.SetSync, d.Close)
}
