package syndtrapi

import (
	"bytes"
	"io"

	"github.com/ldbcompat/ldbcompat/compat"
	"github.com/ldbcompat/ldbcompat/ports/internal/adapt"
	"github.com/ldbcompat/ldbcompat/ports/internal/ikey"
)

// TableWriter is a module's *table.Writer.
type TableWriter interface {
	Append(key, value []byte) error
	Close() error
}

// Iterator is the iterator.Iterator a module's table reader returns.
type Iterator interface {
	Next() bool
	Key() []byte
	Value() []byte
	Error() error
	Release()
}

// LogWriter is a module's *journal.Writer.
type LogWriter = adapt.LogWriter

// LogReader is a module's *journal.Reader.
type LogReader interface {
	Next() (io.Reader, error)
}

// iFilter is a module's filter F over internal keys, as the database's
// unexported iFilter wraps the filter it is given: it adds and looks up
// user keys.
type iFilter[F Filter[G], G Generator[B], B Buffer] struct{ f F }

func (w iFilter[F, G, B]) Name() string { return w.f.Name() }

func (w iFilter[F, G, B]) Contains(filter, key []byte) bool {
	return w.f.Contains(filter, ikey.UserKey(key))
}

// NewGenerator returns a generator that adds user keys to one of the
// filter's. G is an interface type whose methods iGenerator has, so the
// assertion cannot fail for a module of the family.
func (w iFilter[F, G, B]) NewGenerator() G {
	return any(iGenerator[G, B]{w.f.NewGenerator()}).(G)
}

type iGenerator[G Generator[B], B Buffer] struct{ g G }

func (g iGenerator[G, B]) Add(key []byte) { g.g.Add(ikey.UserKey(key)) }
func (g iGenerator[G, B]) Generate(b B)   { g.g.Generate(b) }

func (a *API[F, G, B, D, RO, WO, R]) writeTable(entries []compat.Entry, o compat.TableOptions) ([]byte, error) {
	var f F
	if o.BitsPerKey > 0 {
		// F is an interface type whose methods iFilter has.
		f = any(iFilter[F, G, B]{a.NewBloomFilter(o.BitsPerKey)}).(F)
	}
	var buf bytes.Buffer
	w := a.NewTableWriter(&buf, ikey.Syndtr{User: a.UserComparer}, f, o)
	for _, e := range entries {
		if err := w.Append(e.Key, e.Value); err != nil {
			return nil, err
		}
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func (a *API[F, G, B, D, RO, WO, R]) readTable(contents []byte) ([]compat.Entry, error) {
	it, err := a.OpenTableIter(contents, ikey.Syndtr{User: a.UserComparer})
	if err != nil {
		return nil, err
	}
	defer it.Release()
	return adapt.Entries(it), it.Error()
}

func (a *API[F, G, B, D, RO, WO, R]) writeLog(records [][]byte) ([]byte, error) {
	var buf bytes.Buffer
	if err := adapt.WriteLog(a.NewLogWriter(&buf), records, true); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// readLog reads records as the database's recovery does, which is not
// strict: it drops a damaged record and goes on with the next one.
func (a *API[F, G, B, D, RO, WO, R]) readLog(contents []byte) ([][]byte, error) {
	return adapt.ReadLog(a.NewLogReader(bytes.NewReader(contents)).Next, len(contents), true)
}

func (a *API[F, G, B, D, RO, WO, R]) writeSynced(dir string, kvs [][2][]byte) (func() error, error) {
	db, err := a.OpenFile(dir, Open[F]{Create: true, WriteBuffer: adapt.WriteBufferFor(kvs)})
	if err != nil {
		return nil, err
	}
	put := func(k, v []byte) error { return db.Put(k, v, a.Sync) }
	return adapt.PutSynced(kvs, put, db.Close)
}
