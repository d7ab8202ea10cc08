package table_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/klauspost/compress/snappy"

	"github.com/ldbcompat/ldbcompat/internal/alloctest"
	"github.com/ldbcompat/ldbcompat/internal/base"
	"github.com/ldbcompat/ldbcompat/internal/table"
	"github.com/ldbcompat/ldbcompat/internal/table/tabletest"
)

// Tests of snappy.go, format.go and file.go written against the mutants
// that survived the package's own tests: each expectation comes
// from upstream LevelDB 1.23 (table/format.cc, table/table.cc,
// util/env_posix.cc), from snappy's format_description.txt and snappy.cc,
// or from how the test built its input.

// fmtKey returns the internal key of user key k, for index entries.
func fmtKey(k string) []byte {
	return table.AppendInternalKey(nil, table.InternalKey{UserKey: []byte(k), Seq: 1, Kind: table.KindValue})
}

// fmtTable returns a table holding the given stored blocks, all of
// compression type comp, from offset 0, then an empty metaindex, an index
// with one entry per block, and the footer; and the blocks' handles.
func fmtTable(comp byte, blocks ...[]byte) ([]byte, []table.BlockHandle) {
	var file []byte
	var hs []table.BlockHandle
	var index []tabletest.KV
	for i, b := range blocks {
		var h table.BlockHandle
		file, h = tabletest.AppendBlock(file, b, comp)
		hs = append(hs, h)
		index = append(index, tabletest.KV{Key: fmtKey(fmt.Sprintf("k%04d", i)), Value: table.AppendBlockHandle(nil, h)})
	}
	file, mh := tabletest.AppendBlock(file, tabletest.EncodeBlock(nil, 16), table.NoCompression)
	file, ih := tabletest.AppendBlock(file, tabletest.EncodeBlock(index, 1), table.NoCompression)
	return tabletest.AppendFooter(file, mh, ih), hs
}

// fmtOpen opens file as the table name, failing the test on an error.
func fmtOpen(t *testing.T, name string, file []byte) *table.Table {
	t.Helper()
	tb, err := table.Open(name, bytes.NewReader(file), int64(len(file)))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return tb
}

// asError returns err as a *base.Error, failing the test if it is not one.
func asError(t *testing.T, err error) *base.Error {
	t.Helper()
	var e *base.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T), want a *base.Error", err, err)
	}
	return e
}

const statusSnappy = "Corruption: corrupted compressed block contents"

// readSnappy reads stored as a snappy-compressed block through ReadBlock.
func readSnappy(t *testing.T, stored []byte) (*table.Block, error) {
	t.Helper()
	file, hs := fmtTable(table.SnappyCompression, stored)
	return fmtOpen(t, "s.ldb", file).ReadBlock(hs[0], "data block")
}

// TestMutantsSnappyTags: C++ snappy (snappy.cc SnappyDecompressor, as
// table/format.cc ReadBlock calls it) decodes each element kind of
// format_description.txt when it is the stream's last element, taking
// exactly its bytes: a literal with a 1-byte length, and copies with 1-,
// 2- and 4-byte offsets whose length fills the output exactly. The
// expected contents follow from the elements written by hand.
func TestMutantsSnappyTags(t *testing.T) {
	lit128 := bytes.Repeat([]byte("0123456789abcdef"), 8)
	abcd := []byte{0x08, 3 << 2, 'a', 'b', 'c', 'd'} // length 8, literal "abcd"
	for _, tc := range []struct {
		name   string
		stored []byte
		want   []byte
	}{
		// The length 128 as the varint 0x80 0x01 (its first byte is
		// exactly 0x80, which continues the varint), then a literal of
		// 128 bytes: tag 60<<2, then length-1 in one byte.
		{"length 0x80 0x01, literal of 128", append([]byte{0x80, 0x01, 60 << 2, 127}, lit128...), lit128},
		// Copy with a 1-byte offset: tag (len-4)<<2 | offset>>8<<5 | 1.
		{"copy-1 at the end", append(bytes.Clone(abcd), 0<<2|1, 4), []byte("abcdabcd")},
		// Copy with a 2-byte offset: tag (len-1)<<2 | 2, offset LE16.
		{"copy-2 at the end", append(bytes.Clone(abcd), 3<<2|2, 4, 0), []byte("abcdabcd")},
		// Copy with a 4-byte offset: tag (len-1)<<2 | 3, offset LE32.
		{"copy-4 at the end", append(bytes.Clone(abcd), 3<<2|3, 4, 0, 0, 0), []byte("abcdabcd")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := readSnappy(t, tc.stored)
			if err != nil {
				t.Fatalf("ReadBlock: %v", err)
			}
			if diff := cmp.Diff(tc.want, b.Contents); diff != "" {
				t.Errorf("contents (-upstream +got):\n%s", diff)
			}
		})
	}
}

// TestMutantsSnappyCorrupt: inputs C++ snappy refuses, which ReadBlock
// reports as "Corruption: corrupted compressed block contents" at the
// block's offset: a length varint cut short, and an element running past
// the decoded length.
func TestMutantsSnappyCorrupt(t *testing.T) {
	for _, tc := range []struct {
		name   string
		stored []byte
	}{
		{"length varint cut short", []byte{0x80}},
		{"copy-4 cut short", []byte{0x08, 3 << 2, 'a', 'b', 'c', 'd', 3<<2 | 3, 4, 0, 0}},
		{"copy-1 one byte too long", []byte{0x07, 3 << 2, 'a', 'b', 'c', 'd', 0<<2 | 1, 4}},
		{"copy-2 reaching before the start", []byte{0x08, 3 << 2, 'a', 'b', 'c', 'd', 3<<2 | 2, 5, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readSnappy(t, tc.stored)
			if e := asError(t, err); e.Status != statusSnappy || e.Offset != 0 {
				t.Errorf("%v (status %q, offset %d); want %q at 0", err, e.Status, e.Offset, statusSnappy)
			}
		})
	}
}

// TestMutantsSnappyClaimBound: no snappy block decodes to more than 64/3
// times its size (a 3-byte copy makes at most 64 bytes), so the reader
// refuses a longer claim before decoding, naming the bound, 22 times the
// stored size; a claim of exactly 22 times is not "more" than the bound and
// fails as any invalid block does. Upstream (table/format.cc ReadBlock)
// allocates the claimed length before snappy refuses the block.
func TestMutantsSnappyClaimBound(t *testing.T) {
	// Two stored bytes: the length, then a literal tag without its byte.
	_, err := readSnappy(t, []byte{44, 0x00})
	if e := asError(t, err); e.Status != statusSnappy || strings.Contains(e.Msg, "claims") {
		t.Errorf("claim of 44 = 22*2: %v; want %q, an invalid block", err, statusSnappy)
	}
	var allocs []uint64
	defer table.SetAllocHook(func(n uint64) { allocs = append(allocs, n) })()
	_, err = readSnappy(t, []byte{45, 0x00})
	want := "snappy block of 2 bytes claims to decode to 45 bytes, more than snappy can expand it (44)"
	if e := asError(t, err); e.Status != statusSnappy || !strings.Contains(e.Msg, want) {
		t.Errorf("claim of 45: %v; want %q saying %q", err, statusSnappy, want)
	}
	if len(allocs) == 0 || allocs[len(allocs)-1] != 45 {
		t.Errorf("allocations %v; want the claimed 45 bytes last", allocs)
	}
}

// TestMutantsReadBlock: ReadBlock returns the block it read, and tells the
// allocation hook of the n+5 bytes table/format.cc ReadBlock allocates
// (new char[n + kBlockTrailerSize]) before reading.
func TestMutantsReadBlock(t *testing.T) {
	stored := []byte("ten bytes!")
	file, hs := fmtTable(table.NoCompression, stored)
	tb := fmtOpen(t, "r.ldb", file)
	var allocs []uint64
	defer table.SetAllocHook(func(n uint64) { allocs = append(allocs, n) })()
	b, err := tb.ReadBlock(hs[0], "data block")
	if err != nil || b == nil {
		t.Fatalf("ReadBlock: %v, %v", b, err)
	}
	want := table.Block{Handle: table.BlockHandle{Offset: 0, Size: 10}, Compression: table.NoCompression, Contents: stored}
	if diff := cmp.Diff(want, *b); diff != "" {
		t.Errorf("block (-upstream +got):\n%s", diff)
	}
	if diff := cmp.Diff([]uint64{15}, allocs); diff != "" {
		t.Errorf("allocations (-upstream +got):\n%s", diff)
	}
}

// TestMutantsHandleSums: a handle whose offset+size+5 is exactly 2^64-1
// does not overflow, so the memory-mapped file refuses the read as any
// read past its end (util/env_posix.cc PosixMmapReadableFile::Read:
// offset + n > length_, EINVAL); one more byte overflows, which upstream
// never checks (undefined). A block that ends exactly at the end of the
// file is read. The error is at the handle's offset, or at the end of the
// file when the offset is past it.
func TestMutantsHandleSums(t *testing.T) {
	file, _ := fmtTable(table.NoCompression)
	tb := fmtOpen(t, "h.ldb", file)
	inval := "IO error: h.ldb: Invalid argument"
	for _, tc := range []struct {
		h         table.BlockHandle
		undefined bool
	}{
		{table.BlockHandle{Offset: 0, Size: math.MaxUint64 - 5}, false},
		{table.BlockHandle{Offset: math.MaxUint64 - 5, Size: 0}, false},
		{table.BlockHandle{Offset: 1, Size: math.MaxUint64 - 5}, true},
		{table.BlockHandle{Offset: 0, Size: math.MaxUint64 - 4}, true},
		{table.BlockHandle{Offset: math.MaxUint64 - 4, Size: 0}, true},
	} {
		_, err := tb.ReadBlock(tc.h, "data block")
		e := asError(t, err)
		if tc.undefined {
			if !errors.Is(err, base.ErrUndefined) {
				t.Errorf("%v: %v; want undefined", tc.h, err)
			}
		} else if at := int64(min(tc.h.Offset, uint64(len(file)))); errors.Is(err, base.ErrUndefined) || e.Status != inval || e.Offset != at {
			t.Errorf("%v: %v (status %q, offset %d); want %q at %d", tc.h, err, e.Status, e.Offset, inval, at)
		}
	}

	// A table whose recorded size ends before the file does, with a
	// block after it that ends the file.
	stored := []byte("last block")
	grown, h := tabletest.AppendBlock(bytes.Clone(file), stored, table.NoCompression)
	tb, err := table.OpenSized("g.ldb", bytes.NewReader(grown), int64(len(grown)), int64(len(file)))
	if err != nil {
		t.Fatal(err)
	}
	if h.End() != uint64(len(grown)) {
		t.Fatalf("block ends at %d, file at %d", h.End(), len(grown))
	}
	if b, err := tb.ReadBlock(h, "data block"); err != nil || !bytes.Equal(b.Contents, stored) {
		t.Errorf("block ending the file: %v, %v; want %q", b, err, stored)
	}
}

// TestMutantsHandleOK: an index or metaindex value that does not start
// with two varints is no block handle (BlockHandle::DecodeFrom fails), and
// upstream's index iterator reports "Corruption: bad block handle" for it.
func TestMutantsHandleOK(t *testing.T) {
	var file []byte
	file, mh := tabletest.AppendBlock(file, tabletest.EncodeBlock([]tabletest.KV{{Key: []byte("filter.x"), Value: []byte{0x80}}}, 16), 0)
	file, ih := tabletest.AppendBlock(file, tabletest.EncodeBlock([]tabletest.KV{
		{Key: fmtKey("a"), Value: nil},
		{Key: fmtKey("b"), Value: []byte{0x05, 0x80}},
	}, 1), 0)
	file = tabletest.AppendFooter(file, mh, ih)
	tb := fmtOpen(t, "b.ldb", file)
	if len(tb.Index()) != 2 {
		t.Fatalf("%d index entries, want 2", len(tb.Index()))
	}
	for i, e := range tb.Index() {
		if e.HandleOK {
			t.Errorf("index entry %d (value % x): HandleOK, want not", i, e.Value)
		}
	}
	if m := tb.Metaindex(); len(m) != 1 || m[0].HandleOK {
		t.Errorf("metaindex %+v, want one entry without a handle", m)
	}
	err := tb.Scan(func(table.ScanEntry) error { return nil })
	if s := base.StatusOf(err); s != "Corruption: bad block handle" {
		t.Errorf("scan: %v (status %q), want bad block handle", err, s)
	}
}

// TestMutantsFooter: Table::Open refuses a size under 48 bytes as too
// short, then reads the 48-byte footer, whose magic number it checks
// before the handles (Footer::DecodeFrom); the index handle that does not
// decode is reported where it starts, after the metaindex handle.
func TestMutantsFooter(t *testing.T) {
	const badMagic = "Corruption: not an sstable (bad magic number)"
	_, err := table.Open("z.ldb", bytes.NewReader(make([]byte, 48)), 48)
	if e := asError(t, err); e.Status != badMagic || e.Offset != 40 {
		t.Errorf("48 zero bytes: %v (status %q, offset %d); want %q at 40", err, e.Status, e.Offset, badMagic)
	}
	_, err = table.Open("y.ldb", bytes.NewReader(make([]byte, 47)), 47)
	if e := asError(t, err); e.Status != "Corruption: file is too short to be an sstable" {
		t.Errorf("47 bytes: %v (status %q)", err, e.Status)
	}

	// Pebble's magic number: the bytes f0 9f aa b3 twice.
	pebble := append(make([]byte, 40), 0xf0, 0x9f, 0xaa, 0xb3, 0xf0, 0x9f, 0xaa, 0xb3)
	_, err = table.Open("p.ldb", bytes.NewReader(pebble), 48)
	if e := asError(t, err); e.Status != badMagic || !strings.Contains(e.Msg, "a Pebble table") {
		t.Errorf("Pebble magic: %v; want %q naming a Pebble table", err, badMagic)
	}
	_, err = table.Open("z.ldb", bytes.NewReader(make([]byte, 48)), 48)
	if e := asError(t, err); strings.Contains(e.Msg, "(") {
		t.Errorf("magic 0: %v; want no other format named", err)
	}

	// 10 bytes, then a footer: metaindex handle 0+0 (2 bytes), then 38
	// bytes of 0xff, no varint64 (at most 10 bytes).
	var footer []byte
	footer = append(make([]byte, 10), 0, 0)
	footer = append(footer, bytes.Repeat([]byte{0xff}, 38)...)
	footer = binary.LittleEndian.AppendUint64(footer, table.Magic)
	_, err = table.Open("f.ldb", bytes.NewReader(footer), int64(len(footer)))
	if e := asError(t, err); e.Status != "Corruption: bad block handle" || e.Offset != 12 {
		t.Errorf("bad index handle: %v (status %q, offset %d); want bad block handle at 12", err, e.Status, e.Offset)
	}
}

// shrinkReader reads data, of which only the first limit bytes remain
// once shrunk: a read past them returns what it got and err.
type shrinkReader struct {
	data  []byte
	limit int
	err   error
}

func (r *shrinkReader) ReadAt(p []byte, off int64) (int, error) {
	if off >= int64(r.limit) {
		return 0, r.err
	}
	n := copy(p, r.data[off:r.limit])
	if n < len(p) {
		return n, r.err
	}
	return n, nil
}

// TestMutantsShortReads: table/format.cc ReadBlock calls a read that
// returns fewer bytes than asked "Corruption: truncated block read";
// Table::Open decodes a short footer without checking its length
// (undefined); a failed read is an I/O error naming the file, in
// util/env_posix.cc PosixError's words when it carries an errno.
func TestMutantsShortReads(t *testing.T) {
	file, hs := fmtTable(table.NoCompression, []byte("some block"))

	// The footer: the file is 10 bytes shorter than the size given.
	size := int64(len(file) + 10)
	_, err := table.OpenSized("f.ldb", &shrinkReader{data: file, limit: len(file)}, size, size)
	e := asError(t, err)
	want := "reading footer (48 bytes): the read returned 38 bytes, and upstream decodes the 10 it did not get"
	if !errors.Is(err, base.ErrUndefined) || e.Msg != want || e.Offset != size-48 {
		t.Errorf("short footer: %v (offset %d); want undefined at %d: %q", err, e.Offset, size-48, want)
	}

	for _, tc := range []struct {
		name   string
		err    error
		status string
	}{
		{"short read", nil, "Corruption: truncated block read"},
		{"short read at EOF", io.EOF, "Corruption: truncated block read"},
		{"errno", syscall.EIO, "IO error: b.ldb: Input/output error"},
		{"other error", errors.New("device gone"), "IO error: b.ldb: device gone"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &shrinkReader{data: file, limit: len(file)}
			tb, err := table.Open("b.ldb", r, int64(len(file)))
			if err != nil {
				t.Fatal(err)
			}
			r.limit, r.err = 4, tc.err // the block is 10 bytes at 0
			_, err = tb.ReadBlock(hs[0], "data block")
			e := asError(t, err)
			if e.Status != tc.status || e.Offset != 0 || errors.Is(err, base.ErrUndefined) {
				t.Errorf("%v (status %q, offset %d); want %q at 0", err, e.Status, e.Offset, tc.status)
			}
		})
	}
}

// zeroTail reads data followed by zeros, up to size bytes, without
// writing the zeros (a buffer it is given is zero already).
type zeroTail struct {
	data []byte
	size int64
}

func (r zeroTail) ReadAt(p []byte, off int64) (int, error) {
	if off < int64(len(r.data)) {
		copy(p, r.data[off:])
	} else {
		clear(p)
	}
	n := min(int64(len(p)), max(r.size-off, 0))
	if n < int64(len(p)) {
		return int(n), io.EOF
	}
	return int(n), nil
}

// TestMutantsFileBuffer: a scan reads the whole file into memory, as
// upstream reads it from its memory map (util/env_posix.cc maps tables),
// for files up to 1 GiB; into the buffer given by UseBuffer when its
// capacity holds the file, else into a new one; FileBuffer returns that
// buffer, or the one given when no scan has run.
func TestMutantsFileBuffer(t *testing.T) {
	file, _ := fmtTable(table.NoCompression, tabletest.EncodeBlock([]tabletest.KV{{Key: fmtKey("a"), Value: []byte("v")}}, 16))
	scan := func(tb *table.Table) {
		t.Helper()
		if err := tb.Scan(func(table.ScanEntry) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}

	tb := fmtOpen(t, "w.ldb", file)
	scan(tb)
	if !bytes.Equal(tb.FileBuffer(), file) {
		t.Errorf("after a scan, FileBuffer holds %d bytes, want the file's %d", len(tb.FileBuffer()), len(file))
	}

	buf := make([]byte, 1, len(file))
	tb = fmtOpen(t, "u.ldb", file)
	tb.UseBuffer(buf)
	if got := tb.FileBuffer(); len(got) != 1 || &got[0] != &buf[0] {
		t.Errorf("before a scan, FileBuffer is not the buffer given")
	}
	scan(tb)
	if got := tb.FileBuffer(); !bytes.Equal(got, file) || &got[0] != &buf[0] {
		t.Errorf("a buffer of the file's capacity is not read into")
	}

	// A file of exactly 1 GiB is read whole: its memory is allocated but
	// only the table's bytes at its start are written. Once per process:
	// 1 GiB from memory the process never used is never touched, but the
	// runtime zeroes what it reuses (at most what earlier tests used; all
	// of it on a second run). The collection after it brings the heap's
	// goal back down for the tests that follow.
	defer runtime.GC()
	gibOnce.Do(func() {
		const gib = 1 << 30
		tb, err := table.OpenSized("g.ldb", zeroTail{data: file, size: gib}, gib, int64(len(file)))
		if err != nil {
			t.Fatal(err)
		}
		scan(tb)
		if got := tb.FileBuffer(); len(got) != gib || !bytes.Equal(got[:len(file)], file) {
			t.Errorf("file of 1 GiB: FileBuffer of %d bytes, want it read whole", len(got))
		}
	})
}

// gibOnce runs TestMutantsFileBuffer's 1 GiB case once per process.
var gibOnce sync.Once

// TestMutantsSnappyScratch: a scan decodes its snappy data blocks into one
// buffer, reused while it is large enough (readBlock's scratch), where
// upstream allocates each block's decoded length anew (table/format.cc
// ReadBlock): blocks of the same decoded length allocate it once.
func TestMutantsSnappyScratch(t *testing.T) {
	const n, value = 64, 4000
	var blocks [][]byte
	for i := range n {
		b := tabletest.EncodeBlock([]tabletest.KV{{Key: fmtKey(fmt.Sprintf("k%04d", i)), Value: bytes.Repeat([]byte("ab"), value/2)}}, 16)
		blocks = append(blocks, snappy.Encode(nil, b))
	}
	file, _ := fmtTable(table.SnappyCompression, blocks...)
	tb := fmtOpen(t, "s.ldb", file)
	entries := 0
	var err error
	got := alloctest.Allocated(func() {
		err = tb.Scan(func(table.ScanEntry) error { entries++; return nil })
	})
	if err != nil || entries != n {
		t.Fatalf("scan: %d entries, %v; want %d", entries, err, n)
	}
	// The file, one decoded block and small change; decoding each block
	// anew would take n*value bytes.
	if bound := uint64(len(file) + 4*value + 16<<10); got > bound {
		t.Errorf("scan of %d snappy blocks of %d bytes allocated %d bytes, want at most %d", n, value, got, bound)
	}
}
