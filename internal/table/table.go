package table

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"sync"

	"github.com/ldbcompat/ldbcompat/internal/base"
	"github.com/ldbcompat/ldbcompat/internal/crc"
)

// Format constants of table/format.h.
const (
	// FooterSize is the size of a table's footer.
	FooterSize = 48
	// Magic is the number that ends every LevelDB table, stored as a
	// little-endian uint64 in the footer's last 8 bytes.
	Magic = 0xdb4775248b80fb57
	// TrailerSize is the size of the trailer after each block: a
	// compression type byte and a masked CRC-32C.
	TrailerSize = 5

	// maxSnappyRatio bounds a snappy block's decoded length by its encoded
	// length: the densest snappy element is a 3-byte copy of 64 bytes, so no
	// valid block decodes to more than 64/3 times its size.
	maxSnappyRatio = 22
)

// Magic numbers of other table formats (as little-endian uint64s, as
// LevelDB reads its own): RocksDB's (table/block_based, table/plain,
// table/cuckoo) and Pebble's ("\xf0\x9f\xaa\xb3" twice). RocksDB's
// oldest block-based format ends in LevelDB's own Magic, as do the tables
// Pebble writes in its TableFormatLevelDB.
var foreignMagics = map[uint64]string{
	0x88e241b785f4cff7: "a RocksDB table (block-based format, which Pebble writes too)",
	0x8242229663bf9564: "a RocksDB plain table",
	0x4f3418eb7a8f13b8: "a RocksDB plain table (legacy format)",
	0x926789d0c5f17873: "a RocksDB cuckoo table",
	0xb3aa9ff0b3aa9ff0: "a Pebble table",
}

// ForeignTable names the table format whose magic number is magic, when it
// is another LevelDB-like store's ("a Pebble table"), or returns "".
func ForeignTable(magic uint64) string { return foreignMagics[magic] }

// Compression types stored in block trailers.
const (
	NoCompression     = 0 // contents stored as is
	SnappyCompression = 1 // contents stored as a snappy block
)

// FilterPrefix starts the metaindex key of a filter block; the rest of the
// key is the filter policy's name.
const FilterPrefix = "filter."

// BlockChecksum returns the masked CRC-32C that the trailer of a block with
// the given stored contents and compression type holds.
func BlockChecksum(contents []byte, compression byte) uint32 {
	return crc.Mask(crc.Extend(crc.Value(contents), []byte{compression}))
}

// BlockHandle locates a block's stored contents in a table: Size bytes at
// Offset, followed by a TrailerSize-byte trailer.
type BlockHandle struct {
	Offset uint64 // where the stored contents start
	Size   uint64 // stored (compressed) size, trailer excluded
}

// End returns the offset just past the block's trailer, where the next block
// starts. This is the offset TableBuilder passes to the filter block builder
// after writing the block.
func (h BlockHandle) End() uint64 { return h.Offset + h.Size + TrailerSize }

// String formats h as "offset+size".
func (h BlockHandle) String() string { return fmt.Sprintf("%d+%d", h.Offset, h.Size) }

// AppendBlockHandle appends the encoding of h to dst.
func AppendBlockHandle(dst []byte, h BlockHandle) []byte {
	dst = binary.AppendUvarint(dst, h.Offset)
	return binary.AppendUvarint(dst, h.Size)
}

// DecodeBlockHandle decodes a handle from the start of b as
// BlockHandle::DecodeFrom (table/format.cc) does: two varint64s, read by
// util/coding.cc GetVarint64Ptr (at most 10 bytes each; the bits of a 10th
// byte beyond the 64th are dropped). It returns the handle and the number of
// bytes it used; n is 0 when b does not start with a handle. Bytes after
// the handle are not looked at: Table::BlockReader and Table::ReadFilter
// ignore them ("We intentionally allow extra stuff in index_value").
func DecodeBlockHandle(b []byte) (h BlockHandle, n int) {
	off, n1 := getVarint64(b)
	if n1 == 0 {
		return h, 0
	}
	size, n2 := getVarint64(b[n1:])
	if n2 == 0 {
		return h, 0
	}
	return BlockHandle{Offset: off, Size: size}, n1 + n2
}

// getVarint64 is util/coding.cc GetVarint64Ptr: n is 0 when b holds no
// varint64.
func getVarint64(b []byte) (v uint64, n int) {
	for shift := uint(0); shift <= 63 && n < len(b); shift += 7 {
		c := b[n]
		n++
		if c < 0x80 {
			return v | uint64(c)<<shift, n
		}
		v |= uint64(c&0x7f) << shift
	}
	return 0, 0
}

// getVarint32 is util/coding.cc GetVarint32Ptr: at most 5 bytes, the bits
// of a 5th byte beyond the 32nd dropped; n is 0 when b holds no varint32.
func getVarint32(b []byte) (v uint32, n int) {
	for shift := uint(0); shift <= 28 && n < len(b); shift += 7 {
		c := b[n]
		n++
		if c < 0x80 {
			return v | uint32(c)<<shift, n
		}
		v |= uint32(c&0x7f) << shift
	}
	return 0, 0
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
	first     *Filter // Filter for the first "filter." entry, or nil

	// The whole file, read once when a scan needs every data block (or
	// nil when that read failed: blocks are then read one at a time).
	fileOnce sync.Once
	file     []byte
	spare    []byte // a buffer loadFile may read the file into (UseBuffer)
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
// size says. name identifies the table in errors.
//
// Open fails, with an *Error whose Status is upstream's, exactly when
// Table::Open does: a file that cannot be mapped (empty), a size under 48
// bytes, a footer past the end of the file, a bad magic number or footer
// handle, or an index block that cannot be read (I/O, checksum,
// decompression or block type). Everything else about the index block
// fails the scan instead, as upstream's iterator does; the metaindex and
// filter blocks never fail it (see Filter).
func OpenSized(name string, r io.ReaderAt, fileSize, size int64) (*Table, error) {
	return open(&Table{name: name, r: r}, fileSize, size)
}

// OpenBytes is OpenSized for a file whose whole contents are data, such
// as a read-only memory map of it (util/env_posix.cc reads tables that
// way): nothing is copied, and every block, entry and filter read from the
// table aliases data, which must stay valid and unchanged while they are in
// use.
func OpenBytes(name string, data []byte, size int64) (*Table, error) {
	t := &Table{name: name, r: bytes.NewReader(data), file: data}
	t.fileOnce.Do(func() {}) // the whole file is already in memory
	return open(t, int64(len(data)), size)
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
// Seek reaches (see Filter); the table stays readable.
func (t *Table) MetaindexError() error {
	if t.metaErr != nil {
		return t.metaErr
	}
	return t.metaIter
}

// NumDataBlocks returns the number of index entries: the data blocks a
// scan reads.
func (t *Table) NumDataBlocks() int { return len(t.index) }

// FilterBlock returns the filter block that upstream reads for the first
// metaindex entry, in the block's order, whose name starts with
// FilterPrefix, when its policy's name is the rest of that name: the name
// and the contents (decompressed). ok is false when there is no such
// entry, or when upstream would read the table without a filter under
// that name (see Filter). The caller must not modify contents.
func (t *Table) FilterBlock() (name string, contents []byte, ok bool) {
	f := t.firstFilter()
	if f == nil || f.Status != FilterUsed {
		return "", nil, false
	}
	return f.Policy, f.Contents, true
}

// FilterHandle returns the handle of the filter block FilterBlock returns;
// ok is false when it returns none.
func (t *Table) FilterHandle() (h BlockHandle, ok bool) {
	f := t.firstFilter()
	if f == nil || f.Status != FilterUsed {
		return BlockHandle{}, false
	}
	return f.Handle, true
}

// firstFilter is Filter for the first "filter." entry's name, or nil.
func (t *Table) firstFilter() *Filter {
	t.firstOnce.Do(func() {
		for _, m := range t.meta {
			if name, ok := strings.CutPrefix(m.Name, FilterPrefix); ok {
				t.first = t.Filter(name)
				return
			}
		}
	})
	return t.first
}

// readFooter reads and decodes the footer as Table::Open and
// Footer::DecodeFrom (table/format.cc) do.
func (t *Table) readFooter() error {
	if t.size < FooterSize {
		return t.statusErrorf(0, "Corruption: file is too short to be an sstable",
			"file is %d bytes, too short for a table (footer is %d bytes)", t.size, FooterSize)
	}
	off := t.size - FooterSize
	footer, err := t.read(off, FooterSize, "footer")
	if err != nil {
		return err
	}
	magic := binary.LittleEndian.Uint64(footer[FooterSize-8:])
	if magic != Magic {
		msg := "not a LevelDB table: bad magic number: want 0x%016x, got 0x%016x"
		if kind := ForeignTable(magic); kind != "" {
			msg += " (" + kind + ", which upstream LevelDB cannot open)"
		}
		return t.statusErrorf(off+FooterSize-8, "Corruption: not an sstable (bad magic number)", msg, uint64(Magic), magic)
	}
	// The handles may run into the padding and the magic number: each
	// varint stops at 10 bytes, so they end within the first 40.
	var n int
	t.metaindexHandle, n = DecodeBlockHandle(footer[:FooterSize-8])
	if n == 0 {
		return t.statusErrorf(off, statusBadHandle, "footer: want the metaindex block handle (two varints)")
	}
	var n2 int
	t.indexHandle, n2 = DecodeBlockHandle(footer[n : FooterSize-8])
	if n2 == 0 {
		return t.statusErrorf(off+uint64(n), statusBadHandle, "footer: want the index block handle (two varints)")
	}
	return nil
}

// Upstream's status messages (table/format.cc, table/block.cc).
const (
	statusBadHandle     = "Corruption: bad block handle"
	statusChecksum      = "Corruption: block checksum mismatch"
	statusSnappy        = "Corruption: corrupted compressed block contents"
	statusBlockType     = "Corruption: bad block type"
	statusBlockContents = "Corruption: bad block contents"
	statusBadEntry      = "Corruption: bad entry in block"
	statusBadKey        = "Corruption: corrupted internal key in DBIter"
)

// ioStatus is the status of a read the memory-mapped file refuses
// (util/env_posix.cc PosixMmapReadableFile::Read: EINVAL).
func (t *Table) ioStatus() string { return "IO error: " + t.name + ": Invalid argument" }

// read returns n bytes of the file at off: a slice of the whole file when
// it has been read, else a new buffer. A read past the end of the file is
// upstream's I/O error.
func (t *Table) read(off, n uint64, what string) ([]byte, error) {
	if off > t.fileSize || n > t.fileSize-off {
		return nil, t.statusErrorf(min(off, t.fileSize), t.ioStatus(),
			"%s: %d bytes at offset %d run past the end of the %d-byte file", what, n, off, t.fileSize)
	}
	return t.readIn(off, n, what)
}

// readIn is read for bytes known to lie in the file.
func (t *Table) readIn(off, n uint64, what string) ([]byte, error) {
	if t.file != nil {
		return t.file[off : off+n : off+n], nil
	}
	p := make([]byte, n)
	m, err := t.r.ReadAt(p, int64(off))
	if m == len(p) {
		return p, nil
	}
	status := base.IOStatus(t.name, err)
	if err == nil || errors.Is(err, io.EOF) {
		// A short read: the file ends before the size it had when
		// opened (it changed), or the device returned less. Upstream's
		// pread gives what it got and ReadBlock calls that a truncated
		// block; its footer decoder reads bytes it never got.
		err = io.ErrUnexpectedEOF
		status = "Corruption: truncated block read"
		if what == "footer" {
			return nil, &Error{File: t.name, Offset: int64(off), Msg: fmt.Sprintf("reading %s (%d bytes): the read returned %d bytes, and upstream decodes the %d it did not get", what, n, m, int(n)-m), Err: ErrUndefined}
		}
	}
	if status == "" {
		status = "IO error: " + t.name + ": " + err.Error()
	}
	return nil, &Error{File: t.name, Offset: int64(off), Msg: fmt.Sprintf("reading %s (%d bytes)", what, n), Err: err,
		Status: status}
}

// loadFile reads the whole file once, so that a scan reads every block
// from memory, as upstream reads from its memory map. When that read
// fails, blocks are read one at a time.
func (t *Table) loadFile() {
	t.fileOnce.Do(func() {
		if t.fileSize > maxWholeRead {
			return
		}
		p := t.spare
		if uint64(cap(p)) >= t.fileSize {
			p = p[:t.fileSize]
		} else {
			// Room for a slightly larger table next (UseBuffer): pages
			// never touched cost nothing.
			p = make([]byte, t.fileSize, t.fileSize+min(t.fileSize/8, 1<<20))
		}
		t.spare = nil
		if n, _ := t.r.ReadAt(p, 0); uint64(n) == t.fileSize {
			t.file = p
		}
	})
}

// UseBuffer lets a later scan read the whole file into buf instead of a
// new buffer, when buf is large enough: a caller that checks many tables
// one after another gives each the buffer the previous one read into
// (FileBuffer), so that the memory is not allocated and faulted in afresh
// for every table. Call it before the first scan; buf must not be in use.
func (t *Table) UseBuffer(buf []byte) { t.spare = buf }

// FileBuffer returns the buffer the whole file was read into, or nil, for
// UseBuffer on another table. Everything read from t (blocks, filters,
// entries) may alias it: the caller passes it on only when it keeps none
// of that.
func (t *Table) FileBuffer() []byte {
	if t.file != nil {
		return t.file
	}
	return t.spare
}

// allocHook is told of every allocation upstream's ReadBlock makes for
// what it is about to read (n+5 bytes before the read, a snappy block's
// decoded length before decoding); tests set it.
var allocHook = func(n uint64) {}

// maxWholeRead is the largest file loadFile reads at once.
const maxWholeRead = 1 << 30

// Block is the contents of a block as stored in a table, after the trailer
// has been checked and the contents decompressed.
type Block struct {
	Handle      BlockHandle // where the block is stored
	Compression byte        // NoCompression or SnappyCompression
	Contents    []byte      // decompressed contents
}

// ReadBlock reads the block at h, checks its trailer's checksum and
// decompresses it, as table/format.cc ReadBlock does with verify_checksums.
// what names the block in errors ("data block", ...).
func (t *Table) ReadBlock(h BlockHandle, what string) (*Block, error) {
	b := &Block{}
	if _, err := t.readBlock(b, h, what, nil); err != nil {
		return nil, err
	}
	return b, nil
}

// readBlock is ReadBlock into b; a snappy block is decoded into scratch
// when it is large enough, else into a new buffer, which readBlock returns
// for reuse. An uncompressed block aliases the file's bytes.
func (t *Table) readBlock(b *Block, h BlockHandle, what string, scratch []byte) ([]byte, error) {
	// ReadBlock allocates n+5 bytes, then reads them at the offset; the
	// mapped file refuses a read whose offset+n+5 is past its end. Where
	// those sums overflow, upstream allocates too little or reads out of
	// bounds.
	allocHook(max(h.Size, h.Size+TrailerSize)) // saturating
	if h.Size > math.MaxUint64-TrailerSize || h.Offset > math.MaxUint64-TrailerSize-h.Size {
		return scratch, &Error{File: t.name, Offset: int64(min(h.Offset, t.fileSize)), Err: ErrUndefined,
			Msg: fmt.Sprintf("%s: offset+size+%d overflows 64 bits, where LevelDB reads out of bounds", handleText(what, h), TrailerSize)}
	}
	if h.Offset > t.fileSize || h.Size+TrailerSize > t.fileSize-h.Offset {
		return scratch, t.statusErrorf(min(h.Offset, t.fileSize), t.ioStatus(),
			"%s: block and its %d-byte trailer run past the end of the %d-byte file", handleText(what, h), TrailerSize, t.fileSize)
	}
	buf, err := t.readIn(h.Offset, h.Size+TrailerSize, what)
	if err != nil {
		return scratch, err
	}
	n := h.Size
	typ := buf[n]
	stored := binary.LittleEndian.Uint32(buf[n+1:])
	if computed := BlockChecksum(buf[:n], typ); stored != computed {
		return scratch, t.statusErrorf(h.Offset, statusChecksum, "%s %s: block checksum mismatch: stored 0x%08x, computed 0x%08x", what, h, stored, computed)
	}
	*b = Block{Handle: h, Compression: typ}
	switch typ {
	case NoCompression:
		b.Contents = buf[:n:n]
	case SnappyCompression:
		src := buf[:n]
		// A snappy block cannot decode to more than 22 times its size (a
		// 3-byte copy makes at most 64 bytes): upstream fails to
		// decompress a longer claim, after allocating it.
		dst, ok, tooLong := decodeSnappy(scratch, src, maxSnappyRatio*uint64(len(src)))
		if tooLong {
			dlen, _ := getVarint32(src)
			allocHook(uint64(dlen))
			return scratch, t.statusErrorf(h.Offset, statusSnappy, "%s %s: snappy block of %d bytes claims to decode to %d bytes, more than snappy can expand it (%d)", what, h, len(src), dlen, maxSnappyRatio*len(src))
		}
		if cap(dst) > cap(scratch) {
			scratch = dst
		}
		if !ok {
			return scratch, t.statusErrorf(h.Offset, statusSnappy, "%s %s: want a valid snappy block", what, h)
		}
		b.Contents = dst[:len(dst):len(dst)]
	case 2:
		return scratch, t.statusErrorf(h.Offset+n, statusBlockType, "%s %s: compression type 2 (zstd) is not in LevelDB 1.23; want 0 (none) or 1 (snappy)", what, h)
	default:
		return scratch, t.statusErrorf(h.Offset+n, statusBlockType, "%s %s: unknown compression type %d; want 0 (none) or 1 (snappy)", what, h, typ)
	}
	return scratch, nil
}

// handleText names the handle h of the block what ("data block 3"), as
// "data block handle 0+100 (data block 3)".
func handleText(what string, h BlockHandle) string {
	kind := strings.TrimRight(what, "0123456789")
	if kind == what {
		return fmt.Sprintf("%s handle %s", what, h)
	}
	return fmt.Sprintf("%shandle %s (%s)", kind, h, what)
}

// readIndex reads the index block as Table::Open does, then decodes its
// entries as upstream's index iterator yields them.
func (t *Table) readIndex() error {
	if _, err := t.readBlock(&t.indexBlock, t.indexHandle, "index block", nil); err != nil {
		return err
	}
	it := t.newBlockIter(&t.indexBlock, "index block")
	// Upstream writes one restart point per index entry; room for that
	// many, but for no more than one per 32 bytes of the block (an entry
	// takes about that much), however many restarts a damaged block claims.
	t.index = make([]IndexEntry, 0, min(it.num, uint32(len(t.indexBlock.Contents)/32)))
	for ok := it.first(); ok; ok = it.parseNext() {
		e := IndexEntry{Separator: bytes.Clone(it.key), Value: it.value, At: it.valueAt()}
		e.Handle, e.HandleOK = decodeHandleOK(it.value)
		t.index = append(t.index, e)
	}
	t.indexErr = it.err
	return nil
}

// decodeHandleOK is DecodeBlockHandle with a flag.
func decodeHandleOK(b []byte) (BlockHandle, bool) {
	h, n := DecodeBlockHandle(b)
	return h, n > 0
}

// readMetaindex reads the metaindex block as Table::ReadMeta does, keeping
// why it cannot, and lists its entries.
func (t *Table) readMetaindex() {
	if _, err := t.readBlock(&t.metaBlock, t.metaindexHandle, "metaindex block", nil); err != nil {
		t.metaErr = err
		return
	}
	it := t.newBlockIter(&t.metaBlock, "metaindex block")
	for ok := it.first(); ok; ok = it.parseNext() {
		m := MetaEntry{Name: string(it.key), Value: it.value}
		m.Handle, m.HandleOK = decodeHandleOK(it.value)
		t.meta = append(t.meta, m)
	}
	t.metaIter = it.err
}

// FilterStatus is what upstream makes of a table's filter block for a
// filter policy name.
type FilterStatus int

// The outcomes of Table::ReadMeta and Table::ReadFilter.
const (
	// FilterUsed: the filter block is found and read; upstream consults
	// it on every Get.
	FilterUsed FilterStatus = iota + 1
	// FilterNotFound: the metaindex block was read, but seeking
	// "filter."+name in it finds no such entry (none, or none where
	// Block::Iter::Seek looks, or the seek hits a bad entry); upstream
	// reads the table without a filter.
	FilterNotFound
	// FilterNoMetaindex: the metaindex block cannot be read (Err says
	// why); upstream reads the table without a filter.
	FilterNoMetaindex
	// FilterUnreadable: the entry is found but its value does not start
	// with a block handle, or the block cannot be read (Err says why);
	// upstream silently reads the table without a filter.
	FilterUnreadable
)

// String returns "used", "not found", "no metaindex" or "unreadable".
func (s FilterStatus) String() string {
	switch s {
	case FilterUsed:
		return "used"
	case FilterNotFound:
		return "not found"
	case FilterNoMetaindex:
		return "no metaindex"
	case FilterUnreadable:
		return "unreadable"
	}
	return fmt.Sprintf("FilterStatus(%d)", int(s))
}

// Filter is upstream's filter decision for a table and a policy name.
type Filter struct {
	Policy string       // the policy name asked about
	Status FilterStatus // what upstream does
	// Handle is the filter block's handle, when the entry was found and
	// its value starts with one.
	Handle   BlockHandle
	HandleOK bool
	// Compression is the filter block's compression type and Contents
	// its contents as upstream reads them (decompressed), when Used.
	Compression byte
	Contents    []byte
	// Err says why the filter is not used when the Status is
	// FilterNoMetaindex or FilterUnreadable; for FilterNotFound it is the
	// metaindex's "bad entry in block" when the seek hit one, else nil.
	Err error
}

// Filter returns what LevelDB 1.23, given a filter policy whose Name() is
// policy, makes of the table's filter block (table/table.cc ReadMeta and
// ReadFilter, with paranoid_checks): it reads the metaindex block, seeks
// "filter."+policy in it with the bytewise comparator (Block::Iter::Seek:
// a binary search over the restart points, then a linear scan), and when
// that entry's key is exactly the name, decodes a block handle from the
// start of its value (ignoring the rest) and reads that block with its
// checksum verified, decompressing a snappy one. Any failure silently
// leaves the table without a filter.
func (t *Table) Filter(policy string) *Filter {
	f := &Filter{Policy: policy}
	if t.metaErr != nil {
		f.Status, f.Err = FilterNoMetaindex, t.metaErr
		return f
	}
	target := []byte(FilterPrefix + policy)
	it := t.newBlockIter(&t.metaBlock, "metaindex block")
	if !it.seek(target, compareBytewise) || !bytes.Equal(it.key, target) {
		f.Status, f.Err = FilterNotFound, it.err
		return f
	}
	f.Handle, f.HandleOK = decodeHandleOK(it.value)
	if !f.HandleOK {
		f.Status = FilterUnreadable
		f.Err = t.statusErrorf(it.valueAt(), statusBadHandle, "metaindex entry %q: want a block handle (two varints), got %d bytes % x", target, len(it.value), truncate(it.value))
		return f
	}
	var b Block
	if _, err := t.readBlock(&b, f.Handle, "filter block", nil); err != nil {
		f.Status, f.Err = FilterUnreadable, err
		return f
	}
	f.Status, f.Compression, f.Contents = FilterUsed, b.Compression, b.Contents
	return f
}

// truncate shortens b for an error message.
func truncate(b []byte) []byte {
	if len(b) > 24 {
		return b[:24]
	}
	return b
}
