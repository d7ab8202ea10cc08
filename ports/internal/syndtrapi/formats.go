package syndtrapi

import (
	"bytes"
	"errors"
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
type LogWriter interface {
	Next() (io.Writer, error)
	Flush() error
	Close() error
}

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
	var out []compat.Entry
	for it.Next() {
		out = append(out, compat.Entry{Key: bytes.Clone(it.Key()), Value: bytes.Clone(it.Value())})
	}
	return out, it.Error()
}

func (a *API[F, G, B, D, RO, WO, R]) writeLog(records [][]byte) ([]byte, error) {
	var buf bytes.Buffer
	w := a.NewLogWriter(&buf)
	for _, rec := range records {
		rw, err := w.Next()
		if err != nil {
			return nil, err
		}
		if _, err := rw.Write(rec); err != nil {
			return nil, err
		}
		if err := w.Flush(); err != nil {
			return nil, err
		}
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func (a *API[F, G, B, D, RO, WO, R]) readLog(contents []byte) ([][]byte, error) {
	r := a.NewLogReader(bytes.NewReader(contents))
	var out [][]byte
	// Every record or drop takes at least a header's 7 bytes, or a
	// block: a reader still going after this many has stopped moving.
	for n := 0; n <= len(contents)+1; n++ {
		rr, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		rec, err := io.ReadAll(rr)
		if errors.Is(err, io.ErrUnexpectedEOF) {
			// Not strict: the reader dropped a damaged record, and the
			// database's recovery goes on with the next one.
			continue
		}
		if err != nil {
			return out, err
		}
		out = append(out, rec)
	}
	return out, errNoProgress
}

var errNoProgress = errors.New("the journal reader returns more records than the log has bytes")

func (a *API[F, G, B, D, RO, WO, R]) writeSynced(dir string, kvs [][2][]byte) (func() error, error) {
	db, err := a.OpenSynced(dir, adapt.WriteBufferFor(kvs))
	if err != nil {
		return nil, err
	}
	for _, kv := range kvs {
		if err := db.Put(kv[0], kv[1], a.Sync); err != nil {
			db.Close()
			return nil, err
		}
	}
	return db.Close, nil
}
