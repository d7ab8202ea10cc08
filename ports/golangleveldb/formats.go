package golangleveldb

import (
	"bytes"
	"errors"
	"io"
	"os"

	"github.com/golang/leveldb"
	gbloom "github.com/golang/leveldb/bloom"
	"github.com/golang/leveldb/db"
	"github.com/golang/leveldb/record"
	"github.com/golang/leveldb/table"

	"github.com/ldbcompat/ldbcompat/compat"
	"github.com/ldbcompat/ldbcompat/ports/internal/adapt"
	"github.com/ldbcompat/ldbcompat/ports/internal/ikey"
	"github.com/ldbcompat/ldbcompat/ports/internal/sstcraft"
)

// internalComparer is what golang/leveldb's database passes its tables as
// db.Options.Comparer, its unexported internalKeyComparer over
// db.DefaultComparer: internal keys ordered by user key, then sequence
// number and kind descending (a key too short to be an internal key
// before every other), named as upstream's InternalKeyComparator, and an
// AppendSeparator that appends a whole: the database never shortens an
// index separator.
type internalComparer struct{}

func (internalComparer) Compare(a, b []byte) int {
	switch av, bv := len(a) >= ikey.TagLen, len(b) >= ikey.TagLen; {
	case !av && !bv:
		return bytes.Compare(a, b)
	case !av:
		return -1
	case !bv:
		return +1
	}
	return ikey.Compare(a, b)
}

func (internalComparer) Name() string { return "leveldb.InternalKeyComparator" }

func (internalComparer) AppendSeparator(dst, a, _ []byte) []byte { return append(dst, a...) }

// tableOptions are the db.Options the database gives its table writer and
// reader for o: the filter policy as it is, which the table writer hands
// whole internal keys.
func tableOptions(o compat.TableOptions) *db.Options {
	opts := &db.Options{Comparer: internalComparer{}, BlockSize: o.BlockSize, BlockRestartInterval: o.RestartInterval, Compression: db.NoCompression}
	if o.Snappy {
		opts.Compression = db.SnappyCompression
	}
	if o.BitsPerKey > 0 {
		opts.FilterPolicy = gbloom.FilterPolicy(o.BitsPerKey)
	}
	return opts
}

func writeTable(entries []compat.Entry, o compat.TableOptions) ([]byte, error) {
	f := &writeFile{}
	w := table.NewWriter(f, tableOptions(o))
	set := func(e compat.Entry) error { return w.Set(e.Key, e.Value, nil) }
	if err := adapt.WriteEntries(entries, set, w.Close); err != nil {
		return nil, err
	}
	return f.buf.Bytes(), nil
}

func readTable(contents []byte) ([]compat.Entry, error) {
	r := table.NewReader(memFile{sstcraft.NewReads(contents)}, &db.Options{Comparer: internalComparer{}, VerifyChecksums: true})
	defer r.Close()
	it := r.Find(nil, nil)
	return adapt.Entries(it), it.Close()
}

// writeLog flushes after each record, as the database does after each
// batch written with sync.
func writeLog(records [][]byte) ([]byte, error) {
	var buf bytes.Buffer
	if err := adapt.WriteLog(record.NewWriter(&buf), records, true); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// readLog reads records until the first error, as the database's
// recovery does (it fails to open at a damaged record; it never calls
// Reader.Recover).
func readLog(contents []byte) ([][]byte, error) {
	return adapt.ReadLog(record.NewReader(bytes.NewReader(contents)).Next, len(contents), false)
}

func writeSynced(dir string, kvs [][2][]byte) (func() error, error) {
	d, err := leveldb.Open(dir, &db.Options{ErrorIfDBExists: true, WriteBufferSize: adapt.WriteBufferFor(kvs)})
	if err != nil {
		return nil, err
	}
	put := func(k, v []byte) error { return d.Set(k, v, &db.WriteOptions{Sync: true}) }
	return adapt.PutSynced(kvs, put, d.Close)
}

// writeFile is a db.File that keeps what is written in memory.
type writeFile struct{ buf bytes.Buffer }

func (f *writeFile) Close() error                      { return nil }
func (f *writeFile) Read([]byte) (int, error)          { return 0, io.EOF }
func (f *writeFile) ReadAt([]byte, int64) (int, error) { return 0, errors.New("write-only") }
func (f *writeFile) Write(p []byte) (int, error)       { return f.buf.Write(p) }
func (f *writeFile) Stat() (os.FileInfo, error)        { return fileInfo{int64(f.buf.Len())}, nil }
func (f *writeFile) Sync() error                       { return nil }
