package adapt

import (
	"bytes"
	"errors"
	"io"

	"github.com/ldbcompat/ldbcompat/compat"
)

// WriteBufferFor returns a memtable size above what kvs take in a
// memtable (keys, values and about 64 bytes for each entry), at least
// 4 MiB (LevelDB's default write_buffer_size): a database given it keeps
// every write of kvs in its memtable and log, as the kit's WriteSynced
// asks (nothing flushed to a table).
func WriteBufferFor(kvs [][2][]byte) int {
	n := 0
	for _, kv := range kvs {
		n += len(kv[0]) + len(kv[1]) + 64
	}
	return max(4<<20, 2*n)
}

// WriteEntries adds each entry with add and closes the writer with close,
// which it also calls, ignoring its error, when an add fails.
func WriteEntries(entries []compat.Entry, add func(compat.Entry) error, close func() error) error {
	for _, e := range entries {
		if err := add(e); err != nil {
			close()
			return err
		}
	}
	return close()
}

// MemWritable is an objstorage.Writable (pebble's) in memory: Write
// appends to Buf.
type MemWritable struct{ Buf bytes.Buffer }

// Write appends p to Buf.
func (w *MemWritable) Write(p []byte) error {
	_, err := w.Buf.Write(p)
	return err
}

// Finish does nothing: the bytes are in Buf.
func (w *MemWritable) Finish() error { return nil }

// Abort does nothing.
func (w *MemWritable) Abort() {}

// LogWriter is a port's writer of LevelDB's log format (syndtr's
// journal.Writer, golang/leveldb's and pebble's record.Writer): Next
// starts a record, Flush writes what is buffered, Close ends the log.
type LogWriter interface {
	Next() (io.Writer, error)
	Flush() error
	Close() error
}

// WriteLog writes each record through w as one record, flushing after
// each when flushEach is set (as a database that writes each batch with
// sync does), then closes w.
func WriteLog(w LogWriter, records [][]byte, flushEach bool) error {
	for _, rec := range records {
		rw, err := w.Next()
		if err != nil {
			return err
		}
		if _, err := rw.Write(rec); err != nil {
			return err
		}
		if !flushEach {
			continue
		}
		if err := w.Flush(); err != nil {
			return err
		}
	}
	return w.Close()
}

// ReadLog reads the records of a log of size bytes with next, a port's
// log reader's Next, until io.EOF or the first error. With skipCut, a
// record the reader cuts short (reading it ends in io.ErrUnexpectedEOF,
// as syndtr's journal reader does on a damaged chunk when not strict) is
// dropped and reading goes on, as that database's recovery does.
func ReadLog(next func() (io.Reader, error), size int, skipCut bool) ([][]byte, error) {
	var out [][]byte
	// Every record or drop takes at least a header's 7 bytes, or a
	// block: a reader still going after this many has stopped moving.
	for n := 0; n <= size+1; n++ {
		rr, err := next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		rec, err := io.ReadAll(rr)
		if skipCut && errors.Is(err, io.ErrUnexpectedEOF) {
			continue
		}
		if err != nil {
			return out, err
		}
		out = append(out, rec)
	}
	return out, errNoProgress
}

var errNoProgress = errors.New("the log reader returns more records than the log has bytes")

// EntryIterator is a port's iterator over a table's entries (syndtr's
// iterator.Iterator, golang/leveldb's db.Iterator): Next moves to the next
// entry, whose Key and Value it may reuse after the next call.
type EntryIterator interface {
	Next() bool
	Key() []byte
	Value() []byte
}

// Entries copies every entry left in it; the caller asks it for its error.
func Entries(it EntryIterator) []compat.Entry {
	var out []compat.Entry
	for it.Next() {
		out = append(out, compat.Entry{Key: bytes.Clone(it.Key()), Value: bytes.Clone(it.Value())})
	}
	return out
}

// PutSynced puts kvs as PutAll does and returns close, for the kit to call
// when it asks (WriteSynced).
func PutSynced(kvs [][2][]byte, put func(key, value []byte) error, close func() error) (func() error, error) {
	if err := PutAll(kvs, put, close); err != nil {
		return nil, err
	}
	return close, nil
}

// PutAll puts every key and value of kvs with put, in order; on an error
// it closes the database with close and returns put's error.
func PutAll(kvs [][2][]byte, put func(key, value []byte) error, close func() error) error {
	for _, kv := range kvs {
		if err := put(kv[0], kv[1]); err != nil {
			close()
			return err
		}
	}
	return nil
}
