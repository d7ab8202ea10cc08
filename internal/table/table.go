package table

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/ldbcompat/ldbcompat/internal/base"
)

// errorf returns a *base.Error at offset off of t's file.
func (t *Table) errorf(off uint64, format string, args ...any) error {
	return &base.Error{Type: base.TableFile, File: t.name, Offset: int64(off), Msg: fmt.Sprintf(format, args...)}
}

// statusErrorf is errorf for a problem upstream reports with status.
func (t *Table) statusErrorf(off uint64, status, format string, args ...any) error {
	return &base.Error{Type: base.TableFile, File: t.name, Offset: int64(off), Msg: fmt.Sprintf(format, args...), Status: status}
}

// MetaEntry is one entry of a table's metaindex block.
type MetaEntry struct {
	Name   string      // the entry's key, such as "filter.leveldb.BuiltinBloomFilter2"
	Value  []byte      // the entry's value, normally a block handle
	Handle BlockHandle // the handle Value starts with, when HandleOK
	// HandleOK tells whether Value starts with a block handle. Bytes after
	// it are ignored, as upstream ignores them.
	HandleOK bool
}

// IndexEntry is an index block entry: a data block's handle and separator.
type IndexEntry struct {
	Separator []byte      // an internal key >= the block's last key
	Value     []byte      // the entry's value, normally a block handle
	Handle    BlockHandle // the handle Value starts with, when HandleOK
	// HandleOK tells whether Value starts with a block handle (bytes after
	// it are ignored); without one upstream reports "bad block handle".
	HandleOK bool
	// At is the value's file offset, or the index block's if compressed.
	At uint64
}

// Table is an open table (table/table.cc Table::Open and ReadMeta); data
// and filter blocks are read on demand. It is safe for concurrent use if
// its io.ReaderAt is.
type Table struct {
	name     string
	r        io.ReaderAt
	fileSize uint64 // the file's length: reads past it fail
	size     uint64 // the size given to Table::Open: the footer ends there

	metaindexHandle BlockHandle
	indexHandle     BlockHandle
	indexBlock      Block
	index           []IndexEntry
	indexErr        error // what ends the index iterator early, if anything

	metaBlock Block // the metaindex block, when metaErr is nil
	meta      []MetaEntry
	metaErr   error // why the metaindex block cannot be read
	metaIter  error // what ends the metaindex iterator early

	firstOnce sync.Once
	first     *FilterLookup // LookupFilter for the first "filter." entry, or nil

	// The whole file, read once for a full scan (nil if that read failed).
	fileOnce sync.Once
	file     []byte
	spare    []byte // a buffer loadFile may read the file into (UseBuffer)

	seps     []byte // the index entries' separators, one after another
	indexBuf []byte // the buffer a compressed index block decodes into

	bufMu sync.Mutex
	bufs  walkerBufs // a scan's buffers, while no scan uses them

	opts     Options
	failMu   sync.Mutex
	failures []ChecksumFailure // blocks read whose checksum did not match
}

// Options say how a table is read; the zero value is upstream with
// paranoid_checks and verify_checksums.
type Options struct {
	// SkipChecksums reads as LevelDB 1.23's default options do: no block's
	// checksum is compared (table/format.cc ReadBlock), all else unchanged;
	// ChecksumFailures lists the mismatches.
	SkipChecksums bool
}

// Open is OpenSized with the file's own size.
func Open(name string, r io.ReaderAt, size int64) (*Table, error) {
	return OpenSized(name, r, size, size)
}

// OpenSized reads the table in r, a file of fileSize bytes, as LevelDB 1.23
// opens a table whose size the MANIFEST records as size (db/table_cache.cc
// FindTable, Table::Open) with paranoid_checks: the footer ends at size,
// and blocks are read from the whole (memory-mapped) file. It fails with
// upstream's status exactly when Table::Open does: an empty file, size
// under 48, footer past the end, bad magic or handle, or an unreadable
// index block; the rest of the index fails the scan, and the metaindex and
// filter never fail.
func OpenSized(name string, r io.ReaderAt, fileSize, size int64) (*Table, error) {
	return OpenSizedWith(name, r, fileSize, size, Options{})
}

// OpenSizedWith is OpenSized reading as o says.
func OpenSizedWith(name string, r io.ReaderAt, fileSize, size int64, o Options) (*Table, error) {
	return open(&Table{name: name, r: r, opts: o}, fileSize, size)
}

// OpenBytes is OpenSized for a file held whole in data (such as a memory
// map, as util/env_posix.cc reads tables): nothing is copied, so data must
// stay valid and unchanged while what is read from it is in use.
func OpenBytes(name string, data []byte, size int64) (*Table, error) {
	return OpenBytesWith(name, data, size, Options{})
}

// OpenBytesWith is OpenBytes reading as o says (see OpenSizedWith).
func OpenBytesWith(name string, data []byte, size int64, o Options) (*Table, error) {
	t := &Table{name: name, r: bytes.NewReader(data), file: data, opts: o}
	t.fileOnce.Do(func() {}) // the whole file is already in memory
	return open(t, int64(len(data)), size)
}

// OpenBytesReusing is OpenBytes taking over prev's memory (or nil), so a
// caller checking many tables does not allocate afresh for each. Nothing
// read from prev may still be in use, and prev must not be used again.
func OpenBytesReusing(prev *Table, name string, data []byte, size int64) (*Table, error) {
	return OpenBytesReusingWith(prev, name, data, size, Options{})
}

// OpenBytesReusingWith is OpenBytesReusing reading as o says; prev's
// options do not carry over.
func OpenBytesReusingWith(prev *Table, name string, data []byte, size int64, o Options) (*Table, error) {
	if prev == nil {
		return OpenBytesWith(name, data, size, o)
	}
	index, seps, indexBuf, bufs := prev.index, prev.seps, prev.indexBuf, prev.takeBufs()
	*prev = Table{name: name, r: bytes.NewReader(data), file: data, index: index, seps: seps, indexBuf: indexBuf, bufs: bufs, opts: o}
	prev.fileOnce.Do(func() {}) // the whole file is already in memory
	return open(prev, int64(len(data)), size)
}

// open opens t, whose name and reader are set, as OpenSized describes.
func open(t *Table, fileSize, size int64) (*Table, error) {
	if fileSize < 0 || size < 0 {
		return nil, t.errorf(0, "negative size (file %d bytes, table %d bytes)", fileSize, size)
	}
	t.fileSize, t.size = uint64(fileSize), uint64(size)
	if t.fileSize == 0 {
		// util/env_posix.cc NewRandomAccessFile: mmap of 0 bytes fails.
		return nil, t.statusErrorf(0, t.ioStatus(), "file is 0 bytes, too short for a table (LevelDB cannot even memory-map an empty file)")
	}
	if err := t.readFooter(); err != nil {
		return nil, err
	}
	if err := t.readIndex(); err != nil {
		return nil, err
	}
	t.readMetaindex()
	return t, nil
}

// Options returns the options the table was opened with.
func (t *Table) Options() Options { return t.opts }

// Name returns the name given to Open.
func (t *Table) Name() string { return t.name }

// Size returns the size the table was opened with, where its footer ends.
func (t *Table) Size() int64 { return int64(t.size) }

// FileSize returns the length of the table's file.
func (t *Table) FileSize() int64 { return int64(t.fileSize) }

// IndexHandle returns the handle of the index block, from the footer.
func (t *Table) IndexHandle() BlockHandle { return t.indexHandle }

// MetaindexHandle returns the handle of the metaindex block, from the footer.
func (t *Table) MetaindexHandle() BlockHandle { return t.metaindexHandle }

// Index returns the index entries as upstream's iterator yields them, up
// to the first it cannot decode (IndexError). Do not modify them.
func (t *Table) Index() []IndexEntry { return t.index }

// IndexError returns what ends the index iteration early, or nil; upstream
// reports it after the entries before it.
func (t *Table) IndexError() error { return t.indexErr }

// Metaindex returns the metaindex entries as upstream's iterator yields
// them: none if the block is unreadable, else up to the first bad entry.
// Do not modify them.
func (t *Table) Metaindex() []MetaEntry { return t.meta }

// MetaindexError returns why the metaindex cannot be read or iterated to
// its end, or nil; upstream then finds no filter, or what Seek reaches.
func (t *Table) MetaindexError() error {
	if t.metaErr != nil {
		return t.metaErr
	}
	return t.metaIter
}

// NumDataBlocks returns the number of index entries.
func (t *Table) NumDataBlocks() int { return len(t.index) }

// readIndex reads the index block as Table::Open does and decodes it.
func (t *Table) readIndex() error {
	var err error
	if t.indexBuf, err = t.readBlock(&t.indexBlock, t.indexHandle, named("index block"), t.indexBuf); err != nil {
		return err
	}
	it := t.newBlockIter(&t.indexBlock, named("index block"))
	// One restart per entry upstream, but room for at most one per 32
	// bytes, whatever a damaged block claims.
	t.index = slices.Grow(t.index[:0], int(min(it.num, uint32(len(t.indexBlock.Contents)/32))))
	// Separators are appended to t.seps; earlier ones stay valid if it moves.
	seps := t.seps[:0]
	for ok := it.first(); ok; ok = it.parseNext() {
		seps = append(seps, it.key...)
		n := len(seps)
		e := IndexEntry{Separator: seps[n-len(it.key) : n : n], Value: it.value, At: it.valueAt()}
		if e.Separator == nil {
			e.Separator = []byte{} // empty, not nil, as bytes.Clone gives it
		}
		e.Handle, e.HandleOK = decodeHandleOK(it.value)
		t.index = append(t.index, e)
	}
	t.indexErr = it.err
	t.seps = seps
	return nil
}

// readMetaindex reads the metaindex as Table::ReadMeta does, keeping why not.
func (t *Table) readMetaindex() {
	if _, err := t.readBlock(&t.metaBlock, t.metaindexHandle, named("metaindex block"), nil); err != nil {
		t.metaErr = err
		return
	}
	it := t.newBlockIter(&t.metaBlock, named("metaindex block"))
	for ok := it.first(); ok; ok = it.parseNext() {
		m := MetaEntry{Name: string(it.key), Value: it.value}
		m.Handle, m.HandleOK = decodeHandleOK(it.value)
		t.meta = append(t.meta, m)
	}
	t.metaIter = it.err
}

// truncate shortens b for an error message.
func truncate(b []byte) []byte {
	if len(b) > 24 {
		return b[:24]
	}
	return b
}
