package table

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/ldbcompat/ldbcompat/internal/base"
)

// Opening a table, as table/table.cc Table::Open does: the footer and the
// index block, whose problems fail the open, and the metaindex block that
// Table::ReadMeta reads, whose problems never do.

// errorf returns a *base.Error at offset off of t's file.
func (t *Table) errorf(off uint64, format string, args ...any) error {
	return &base.Error{Type: base.TableFile, File: t.name, Offset: int64(off), Msg: fmt.Sprintf(format, args...)}
}

// statusErrorf returns a *base.Error at offset off of t's file for a
// problem upstream reports with status.
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

// IndexEntry is one entry of a table's index block: a data block's handle
// and the separator key that bounds it.
type IndexEntry struct {
	Separator []byte      // an internal key >= the block's last key
	Value     []byte      // the entry's value, normally a block handle
	Handle    BlockHandle // the handle Value starts with, when HandleOK
	// HandleOK tells whether Value starts with a block handle; upstream
	// ignores any bytes after it. Without one, upstream's iterator
	// reports "Corruption: bad block handle" for the entry and goes on.
	HandleOK bool
	// At is the file offset of the entry's value, or of the index block
	// when the index block is compressed.
	At uint64
}

// Table is an open table: what Table::Open (table/table.cc) reads, the
// footer and the index block, plus the metaindex block that Table::ReadMeta
// reads, whose problems never fail the open. Data and filter blocks are
// read on demand. A Table is safe for concurrent use if its io.ReaderAt is.
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

	// The whole file, read once when a scan needs every data block (or
	// nil when that read failed: blocks are then read one at a time).
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

// Options say how a table is read. The zero value reads as upstream does
// with paranoid_checks and verify_checksums, every block's checksum
// verified.
type Options struct {
	// SkipChecksums reads as LevelDB 1.23 does with its default options
	// (paranoid_checks=false, ReadOptions.verify_checksums=false):
	// table/table.cc reads the index, metaindex and filter blocks, and
	// the data blocks, without comparing their checksums
	// (table/format.cc ReadBlock), so a damaged block is decoded as it
	// is. The compression type, snappy decompression and every other
	// check are unchanged. The blocks whose checksums do not match are
	// listed by ChecksumFailures.
	SkipChecksums bool
}

// Open reads the table in r, a file of size bytes, as Table::Open does
// when given the file's own size. See OpenSized.
func Open(name string, r io.ReaderAt, size int64) (*Table, error) {
	return OpenSized(name, r, size, size)
}

// OpenSized reads the table in r, a file of fileSize bytes, as LevelDB 1.23
// opens a live table whose size the MANIFEST records as size
// (db/table_cache.cc FindTable, table/table.cc Table::Open) with
// paranoid_checks: the footer is the 48 bytes before size, and every block
// is read from the file, memory-mapped as util/env_posix.cc does on 64-bit
// systems, so that a block running past fileSize is an I/O error whatever
// size says. name identifies the table in errors. OpenSizedWith reads as
// upstream does under its default options instead.
//
// Open fails, with a *base.Error whose Status is upstream's, exactly when
// Table::Open does: a file that cannot be mapped (empty), a size under 48
// bytes, a footer past the end of the file, a bad magic number or footer
// handle, or an index block that cannot be read (I/O, checksum,
// decompression or block type). Everything else about the index block
// fails the scan instead, as upstream's iterator does; the metaindex and
// filter blocks never fail it (see LookupFilter).
func OpenSized(name string, r io.ReaderAt, fileSize, size int64) (*Table, error) {
	return OpenSizedWith(name, r, fileSize, size, Options{})
}

// OpenSizedWith is OpenSized reading as o says: with o.SkipChecksums, as
// LevelDB 1.23 opens and reads the table under its default options, where
// no checksum fails the open or a read.
func OpenSizedWith(name string, r io.ReaderAt, fileSize, size int64, o Options) (*Table, error) {
	return open(&Table{name: name, r: r, opts: o}, fileSize, size)
}

// OpenBytes is OpenSized for a file whose whole contents are data, such
// as a read-only memory map of it (util/env_posix.cc reads tables that
// way): nothing is copied, and every block, entry and filter read from the
// table aliases data, which must stay valid and unchanged while they are in
// use.
func OpenBytes(name string, data []byte, size int64) (*Table, error) {
	return OpenBytesWith(name, data, size, Options{})
}

// OpenBytesWith is OpenBytes reading as o says (see OpenSizedWith).
func OpenBytesWith(name string, data []byte, size int64, o Options) (*Table, error) {
	t := &Table{name: name, r: bytes.NewReader(data), file: data, opts: o}
	t.fileOnce.Do(func() {}) // the whole file is already in memory
	return open(t, int64(len(data)), size)
}

// OpenBytesReusing is OpenBytes for a table that takes over the memory of
// prev, a table opened earlier (or nil): its index entries, their
// separators and the buffers compressed blocks decode into. A
// caller that checks many tables one after another opens each so, and the
// memory is not allocated and faulted in afresh for every table. Nothing
// read from prev may be in use any more; prev itself must not be used
// again, but the table returned may be prev.
func OpenBytesReusing(prev *Table, name string, data []byte, size int64) (*Table, error) {
	return OpenBytesReusingWith(prev, name, data, size, Options{})
}

// OpenBytesReusingWith is OpenBytesReusing reading as o says (see
// OpenSizedWith): the options prev was opened with do not carry over.
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

// Index returns the index block's entries, one per data block, in table
// order, as upstream's index iterator yields them: up to the end of the
// block or the first entry it cannot decode (see IndexError). The caller
// must not modify them.
func (t *Table) Index() []IndexEntry { return t.index }

// IndexError returns what ends the index block's iteration early ("bad
// block contents", "bad entry in block"), or nil. Upstream's scan reports
// it after the entries before it.
func (t *Table) IndexError() error { return t.indexErr }

// Metaindex returns the metaindex block's entries as upstream's iterator
// yields them from the first: none when the block cannot be read
// (MetaindexError), and up to the first entry it cannot decode. The caller
// must not modify them.
func (t *Table) Metaindex() []MetaEntry { return t.meta }

// MetaindexError returns why the metaindex block cannot be read or
// iterated to its end, or nil. Upstream then finds no filter, or only what
// Seek reaches (see LookupFilter); the table stays readable.
func (t *Table) MetaindexError() error {
	if t.metaErr != nil {
		return t.metaErr
	}
	return t.metaIter
}

// NumDataBlocks returns the number of index entries: the data blocks a
// scan reads.
func (t *Table) NumDataBlocks() int { return len(t.index) }

// readIndex reads the index block as Table::Open does, then decodes its
// entries as upstream's index iterator yields them.
func (t *Table) readIndex() error {
	var err error
	if t.indexBuf, err = t.readBlock(&t.indexBlock, t.indexHandle, named("index block"), t.indexBuf); err != nil {
		return err
	}
	it := t.newBlockIter(&t.indexBlock, named("index block"))
	// Upstream writes one restart point per index entry; room for that
	// many, but for no more than one per 32 bytes of the block (an entry
	// takes about that much), however many restarts a damaged block claims.
	t.index = slices.Grow(t.index[:0], int(min(it.num, uint32(len(t.indexBlock.Contents)/32))))
	// The separators are copied one after another into t.seps. Where
	// appending moves them, the earlier ones stay where they were, unchanged.
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

// readMetaindex reads the metaindex block as Table::ReadMeta does, keeping
// why it cannot, and lists its entries.
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
