package table

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/ldbcompat/ldbcompat/internal/base"
	"github.com/ldbcompat/ldbcompat/internal/crc"
)

// A table's physical format: table/format.h and table/format.cc.

// Format constants of table/format.h.
const (
	// FooterSize is the size of a table's footer.
	FooterSize = 48
	// Magic ends every LevelDB table (LE, the footer's last 8 bytes).
	Magic = 0xdb4775248b80fb57
	// TrailerSize is a block trailer's size: type byte and masked CRC-32C.
	TrailerSize = 5

	// maxSnappyRatio bounds snappy's expansion: at most a 64-byte copy for
	// 3 bytes.
	maxSnappyRatio = 22
)

// Magic numbers of other formats (LE, as LevelDB reads its own): RocksDB's
// and Pebble's. RocksDB's oldest block-based format and Pebble's
// TableFormatLevelDB end in LevelDB's own Magic.
var foreignMagics = map[uint64]string{
	0x88e241b785f4cff7: "a RocksDB table (block-based format, which Pebble writes too)",
	0x8242229663bf9564: "a RocksDB plain table",
	0x4f3418eb7a8f13b8: "a RocksDB plain table (legacy format)",
	0x926789d0c5f17873: "a RocksDB cuckoo table",
	0xb3aa9ff0b3aa9ff0: "a Pebble table",
}

// ForeignTable names another store's format of this magic ("a Pebble table"), or "".
func ForeignTable(magic uint64) string { return foreignMagics[magic] }

// Compression types stored in block trailers.
const (
	NoCompression     = 0 // contents stored as is
	SnappyCompression = 1 // contents stored as a snappy block
)

// BlockChecksum returns the masked CRC-32C a block's trailer holds.
func BlockChecksum(contents []byte, compression byte) uint32 {
	return crc.Mask(crc.Extend(crc.Value(contents), byteValues[compression:int(compression)+1]))
}

// byteValues lets a byte be checksummed as a slice without allocating.
var byteValues = func() (b [256]byte) {
	for i := range b {
		b[i] = byte(i)
	}
	return b
}()

// BlockHandle locates a block's stored contents, before its trailer.
type BlockHandle struct {
	Offset uint64 // where the stored contents start
	Size   uint64 // stored (compressed) size, trailer excluded
}

// End returns the offset past the block's trailer, which TableBuilder
// passes to the filter block builder.
func (h BlockHandle) End() uint64 { return h.Offset + h.Size + TrailerSize }

// String formats h as "offset+size".
func (h BlockHandle) String() string { return fmt.Sprintf("%d+%d", h.Offset, h.Size) }

// AppendBlockHandle appends the encoding of h to dst.
func AppendBlockHandle(dst []byte, h BlockHandle) []byte {
	dst = binary.AppendUvarint(dst, h.Offset)
	return binary.AppendUvarint(dst, h.Size)
}

// DecodeBlockHandle decodes a handle from b's start as
// BlockHandle::DecodeFrom does: two util/coding.cc varint64s of at most 10
// bytes (a 10th byte's bits past 64 dropped). n is 0 when b does not start
// with one. Bytes after it are ignored, as Table::BlockReader and
// ReadFilter do.
func DecodeBlockHandle(b []byte) (h BlockHandle, n int) {
	off, n1 := base.DecodeVarint64(b)
	if n1 == 0 {
		return h, 0
	}
	size, n2 := base.DecodeVarint64(b[n1:])
	if n2 == 0 {
		return h, 0
	}
	return BlockHandle{Offset: off, Size: size}, n1 + n2
}

// decodeHandleOK is DecodeBlockHandle with a flag.
func decodeHandleOK(b []byte) (BlockHandle, bool) {
	h, n := DecodeBlockHandle(b)
	return h, n > 0
}

// readFooter is Table::Open's Footer::DecodeFrom (table/format.cc).
func (t *Table) readFooter() error {
	if t.size < FooterSize {
		return t.statusErrorf(0, "Corruption: file is too short to be an sstable",
			"file is %d bytes, too short for a table (footer is %d bytes)", t.size, FooterSize)
	}
	off := t.size - FooterSize
	footer, err := t.read(off, FooterSize, named("footer"))
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
	// Handles may run into padding and magic, but end within 40 bytes.
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

// Upstream's status messages (table/format.cc).
const (
	statusBadHandle = "Corruption: bad block handle"
	statusChecksum  = "Corruption: block checksum mismatch"
	statusSnappy    = "Corruption: corrupted compressed block contents"
	statusBlockType = "Corruption: bad block type"
)

// Block is a block's contents, trailer checked and decompressed.
type Block struct {
	Handle      BlockHandle // where the block is stored
	Compression byte        // NoCompression or SnappyCompression
	Contents    []byte      // decompressed contents
}

// ReadBlock reads the block at h as table/format.cc ReadBlock does (checksum
// unless Options skip it, then decompression); what names it in errors.
func (t *Table) ReadBlock(h BlockHandle, what string) (*Block, error) {
	b := &Block{}
	if _, err := t.readBlock(b, h, named(what), nil); err != nil {
		return nil, err
	}
	return b, nil
}

// allocHook, set by tests, is told of each allocation upstream's ReadBlock
// makes (n+5 before the read, a snappy block's decoded length).
var allocHook = func(n uint64) {}

// readBlock is ReadBlock into b, decoding snappy into scratch if large
// enough, else a new buffer returned for reuse; uncompressed blocks alias
// the file.
func (t *Table) readBlock(b *Block, h BlockHandle, what blockName, scratch []byte) ([]byte, error) {
	// Upstream allocates n+5 bytes and the mmap refuses offset+n+5 past the
	// end; where those sums overflow, upstream is undefined.
	allocHook(max(h.Size, h.Size+TrailerSize)) // saturating
	if h.Size > math.MaxUint64-TrailerSize || h.Offset > math.MaxUint64-TrailerSize-h.Size {
		return scratch, &base.Error{Type: base.TableFile, File: t.name, Offset: int64(min(h.Offset, t.fileSize)), Err: base.ErrUndefined,
			Msg: fmt.Sprintf("%s: offset+size+%d overflows 64 bits, where LevelDB reads out of bounds", handleText(what.String(), h), TrailerSize)}
	}
	if h.Offset > t.fileSize || h.Size+TrailerSize > t.fileSize-h.Offset {
		return scratch, t.statusErrorf(min(h.Offset, t.fileSize), t.ioStatus(),
			"%s: block and its %d-byte trailer run past the end of the %d-byte file", handleText(what.String(), h), TrailerSize, t.fileSize)
	}
	buf, err := t.readIn(h.Offset, h.Size+TrailerSize, what)
	if err != nil {
		return scratch, err
	}
	n := h.Size
	typ := buf[n]
	stored := binary.LittleEndian.Uint32(buf[n+1:])
	if computed := BlockChecksum(buf[:n], typ); stored != computed {
		t.noteChecksumFailure(what, h, buf[:n+1], stored, computed)
		if !t.opts.SkipChecksums {
			return scratch, t.statusErrorf(h.Offset, statusChecksum, "%s %s: block checksum mismatch: stored 0x%08x, computed 0x%08x", what, h, stored, computed)
		}
	}
	*b = Block{Handle: h, Compression: typ}
	switch typ {
	case NoCompression:
		b.Contents = buf[:n:n]
	case SnappyCompression:
		src := buf[:n]
		// Upstream fails a longer claim, after allocating it.
		dst, ok, tooLong := decodeSnappy(scratch, src, maxSnappyRatio*uint64(len(src)))
		if tooLong {
			dlen, _ := base.DecodeVarint32(src)
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

// blockName names a block in errors, formatted only when one is.
type blockName struct {
	kind string
	n    int
}

// named is the blockName of a table's one block of its kind.
func named(kind string) blockName { return blockName{kind: kind, n: -1} }

// String returns the name: kind and, unless negative, n.
func (b blockName) String() string {
	if b.n < 0 {
		return b.kind
	}
	return b.kind + " " + strconv.Itoa(b.n)
}

// handleText gives "data block handle 0+100 (data block 3)".
func handleText(what string, h BlockHandle) string {
	kind := strings.TrimRight(what, "0123456789")
	if kind == what {
		return fmt.Sprintf("%s handle %s", what, h)
	}
	return fmt.Sprintf("%shandle %s (%s)", kind, h, what)
}
