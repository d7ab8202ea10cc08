package table

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/klauspost/compress/snappy"

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

	maxHandleLen = 20 // two varints of at most 10 bytes
	// rocksDBMagic ends tables in RocksDB's newer block-based format; it is
	// recognised only to give a better error.
	rocksDBMagic = 0x88e241b785f4cff7
	// maxSnappyRatio bounds a snappy block's decoded length by its encoded
	// length: the densest snappy element is a 3-byte copy of 64 bytes, so no
	// valid block decodes to more than 64/3 times its size.
	maxSnappyRatio = 22
)

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

// decodeBlockHandle decodes a handle from the start of b and returns it and
// the number of bytes it used; n <= 0 means b does not start with a valid
// handle.
func decodeBlockHandle(b []byte) (h BlockHandle, n int) {
	off, n1 := binary.Uvarint(b)
	if n1 <= 0 {
		return h, 0
	}
	size, n2 := binary.Uvarint(b[n1:])
	if n2 <= 0 {
		return h, 0
	}
	return BlockHandle{Offset: off, Size: size}, n1 + n2
}

// MetaEntry is one entry of a table's metaindex block.
type MetaEntry struct {
	Name   string      // the entry's key, such as "filter.leveldb.BuiltinBloomFilter2"
	Handle BlockHandle // the block it names
}

// IndexEntry is one entry of a table's index block: a data block's handle
// and the separator key that bounds it.
type IndexEntry struct {
	Separator []byte      // an internal key >= the block's last key
	Handle    BlockHandle // the data block
}

// Table is an open table. Open reads and checks its footer, index,
// metaindex and filter blocks; data blocks are read on demand. A Table is
// safe for concurrent use if its io.ReaderAt is.
type Table struct {
	name string
	r    io.ReaderAt
	size uint64

	metaindexHandle BlockHandle
	indexHandle     BlockHandle
	index           []IndexEntry
	meta            []MetaEntry

	filterName     string
	filterHandle   BlockHandle
	filterContents []byte
	hasFilter      bool
}

// Open reads the table of size bytes in r. name identifies the table in
// errors (a path or a base name such as "000005.ldb").
//
// Open checks the footer, reads the index and metaindex blocks and, when the
// metaindex names one, the filter block, verifying every checksum. It
// returns an *Error when any of them is malformed or cannot be read.
func Open(name string, r io.ReaderAt, size int64) (*Table, error) {
	t := &Table{name: name, r: r}
	if size < 0 {
		return nil, t.errorf(0, "negative file size %d", size)
	}
	t.size = uint64(size)
	if err := t.readFooter(); err != nil {
		return nil, err
	}
	if err := t.readIndex(); err != nil {
		return nil, err
	}
	if err := t.readMetaindex(); err != nil {
		return nil, err
	}
	return t, nil
}

// Name returns the name given to Open.
func (t *Table) Name() string { return t.name }

// Size returns the size of the table's file.
func (t *Table) Size() int64 { return int64(t.size) }

// IndexHandle returns the handle of the index block, from the footer.
func (t *Table) IndexHandle() BlockHandle { return t.indexHandle }

// MetaindexHandle returns the handle of the metaindex block, from the footer.
func (t *Table) MetaindexHandle() BlockHandle { return t.metaindexHandle }

// Index returns the index block's entries, one per data block, in table
// order. The caller must not modify them.
func (t *Table) Index() []IndexEntry { return t.index }

// Metaindex returns the metaindex block's entries. The caller must not
// modify them.
func (t *Table) Metaindex() []MetaEntry { return t.meta }

// NumDataBlocks returns the number of data blocks, as listed by the index.
func (t *Table) NumDataBlocks() int { return len(t.index) }

// FilterBlock returns the filter policy name and the contents of the table's
// filter block, the first metaindex entry whose name starts with
// FilterPrefix. ok is false when the table has no filter block. The caller
// must not modify contents.
func (t *Table) FilterBlock() (name string, contents []byte, ok bool) {
	return t.filterName, t.filterContents, t.hasFilter
}

// FilterHandle returns the filter block's handle; ok is false when the table
// has no filter block.
func (t *Table) FilterHandle() (h BlockHandle, ok bool) {
	return t.filterHandle, t.hasFilter
}

func (t *Table) readFooter() error {
	if t.size < FooterSize {
		return t.errorf(0, "file is %d bytes, too short for a table (footer is %d bytes)", t.size, FooterSize)
	}
	off := t.size - FooterSize
	var footer [FooterSize]byte
	if err := t.readAt(footer[:], off, "footer"); err != nil {
		return err
	}
	magic := binary.LittleEndian.Uint64(footer[FooterSize-8:])
	if magic != Magic {
		msg := "not a LevelDB table: bad magic number: want 0x%016x, got 0x%016x"
		if magic == rocksDBMagic {
			msg += " (a RocksDB table)"
		}
		return t.errorf(t.size-8, msg, uint64(Magic), magic)
	}
	var n int
	t.metaindexHandle, n = decodeBlockHandle(footer[:maxHandleLen])
	if n <= 0 {
		return t.errorf(off, "footer: want the metaindex block handle (two varints)")
	}
	var n2 int
	t.indexHandle, n2 = decodeBlockHandle(footer[n : n+maxHandleLen])
	if n2 <= 0 {
		return t.errorf(off+uint64(n), "footer: want the index block handle (two varints)")
	}
	if err := t.checkHandle(t.metaindexHandle, off, "metaindex block"); err != nil {
		return err
	}
	return t.checkHandle(t.indexHandle, off+uint64(n), "index block")
}

// checkHandle reports whether block h and its trailer lie before the footer.
// at is where the handle is stored, for the error.
func (t *Table) checkHandle(h BlockHandle, at uint64, what string) error {
	limit := t.size - FooterSize
	if h.Offset > limit || h.Size > limit-h.Offset || TrailerSize > limit-h.Offset-h.Size {
		return t.errorf(at, "%s handle %s: block and its %d-byte trailer run past the end of the blocks at %d", what, h, TrailerSize, limit)
	}
	return nil
}

// readAt reads len(p) bytes at off, which the caller has checked lie in the
// file.
func (t *Table) readAt(p []byte, off uint64, what string) error {
	n, err := t.r.ReadAt(p, int64(off))
	if n == len(p) {
		return nil
	}
	if err == nil || errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return &Error{File: t.name, Offset: int64(off), Msg: fmt.Sprintf("reading %s (%d bytes)", what, len(p)), Err: err}
}

// Block is the contents of a block as stored in a table, after the trailer
// has been checked and the contents decompressed.
type Block struct {
	Handle      BlockHandle // where the block is stored
	Compression byte        // NoCompression or SnappyCompression
	Contents    []byte      // decompressed contents
}

// ReadBlock reads the block at h, checks its trailer's checksum and
// decompresses it. what names the block in errors ("data block", ...).
func (t *Table) ReadBlock(h BlockHandle, what string) (*Block, error) {
	if err := t.checkHandle(h, min(h.Offset, t.size), what); err != nil {
		return nil, err
	}
	buf := make([]byte, h.Size+TrailerSize)
	if err := t.readAt(buf, h.Offset, what); err != nil {
		return nil, err
	}
	b := &Block{}
	if _, err := t.decodeBlock(b, h, what, buf, nil); err != nil {
		return nil, err
	}
	return b, nil
}

// decodeBlock checks the trailer of the stored block buf (h.Size bytes and
// the trailer) and sets b to the block, decompressed. A snappy block is
// decoded into scratch when it is large enough, else into a new buffer,
// which decodeBlock returns for reuse; an uncompressed block aliases buf.
func (t *Table) decodeBlock(b *Block, h BlockHandle, what string, buf, scratch []byte) ([]byte, error) {
	n := h.Size
	typ := buf[n]
	stored := binary.LittleEndian.Uint32(buf[n+1:])
	computed := BlockChecksum(buf[:n], typ)
	if stored != computed {
		return scratch, t.errorf(h.Offset, "%s %s: block checksum mismatch: stored 0x%08x, computed 0x%08x", what, h, stored, computed)
	}
	*b = Block{Handle: h, Compression: typ}
	switch typ {
	case NoCompression:
		b.Contents = buf[:n:n]
	case SnappyCompression:
		src := buf[:n]
		dlen, err := snappy.DecodedLen(src)
		if err != nil {
			return scratch, &Error{File: t.name, Offset: int64(h.Offset), Msg: fmt.Sprintf("%s %s: want a snappy block length", what, h), Err: err}
		}
		if uint64(dlen) > maxSnappyRatio*uint64(len(src)) {
			return scratch, t.errorf(h.Offset, "%s %s: snappy block of %d bytes claims to decode to %d bytes, more than snappy can expand it (%d)", what, h, len(src), dlen, maxSnappyRatio*len(src))
		}
		if cap(scratch) < dlen {
			scratch = make([]byte, dlen)
		}
		dst, err := snappy.Decode(scratch[:dlen], src)
		if err != nil {
			return scratch, &Error{File: t.name, Offset: int64(h.Offset), Msg: fmt.Sprintf("%s %s: want a valid snappy block", what, h), Err: err}
		}
		if len(dst) != dlen {
			return scratch, t.errorf(h.Offset, "%s %s: snappy block decoded to %d bytes, its header says %d", what, h, len(dst), dlen)
		}
		b.Contents = dst[:dlen:dlen]
	case 2:
		return scratch, t.errorf(h.Offset+n, "%s %s: compression type 2 (zstd) is not in LevelDB 1.23; want 0 (none) or 1 (snappy)", what, h)
	default:
		return scratch, t.errorf(h.Offset+n, "%s %s: unknown compression type %d; want 0 (none) or 1 (snappy)", what, h, typ)
	}
	return scratch, nil
}

func (t *Table) readIndex() error {
	b, err := t.ReadBlock(t.indexHandle, "index block")
	if err != nil {
		return err
	}
	return t.forEachEntry(b, "index block", nil, func(e rawEntry) error {
		h, n := decodeBlockHandle(e.value)
		if n <= 0 || n != len(e.value) {
			return e.errorf("index entry value: want a data block handle (two varints), got %d bytes % x", len(e.value), truncate(e.value))
		}
		if err := t.checkHandle(h, e.valueAt(), "data block"); err != nil {
			return err
		}
		if len(t.index) > 0 {
			prev := t.index[len(t.index)-1].Handle
			if h.Offset < prev.End() {
				return e.errorf("index entry value: data block %s starts before the previous one (%s) ends", h, prev)
			}
		}
		t.index = append(t.index, IndexEntry{Separator: e.key, Handle: h})
		return nil
	})
}

func (t *Table) readMetaindex() error {
	b, err := t.ReadBlock(t.metaindexHandle, "metaindex block")
	if err != nil {
		return err
	}
	err = t.forEachEntry(b, "metaindex block", nil, func(e rawEntry) error {
		h, n := decodeBlockHandle(e.value)
		if n <= 0 || n != len(e.value) {
			return e.errorf("metaindex entry %q: want a block handle (two varints), got %d bytes % x", e.key, len(e.value), truncate(e.value))
		}
		if err := t.checkHandle(h, e.valueAt(), fmt.Sprintf("metaindex entry %q", e.key)); err != nil {
			return err
		}
		t.meta = append(t.meta, MetaEntry{Name: string(e.key), Handle: h})
		return nil
	})
	if err != nil {
		return err
	}
	for _, m := range t.meta {
		if name, ok := strings.CutPrefix(m.Name, FilterPrefix); ok {
			fb, err := t.ReadBlock(m.Handle, "filter block")
			if err != nil {
				return err
			}
			t.filterName, t.filterHandle, t.filterContents, t.hasFilter = name, m.Handle, fb.Contents, true
			break
		}
	}
	return nil
}

// truncate shortens b for an error message.
func truncate(b []byte) []byte {
	if len(b) > 24 {
		return b[:24]
	}
	return b
}
