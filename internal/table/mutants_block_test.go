package table_test

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/klauspost/compress/snappy"

	"github.com/ldbcompat/ldbcompat/internal/alloctest"
	"github.com/ldbcompat/ldbcompat/internal/base"
	"github.com/ldbcompat/ldbcompat/internal/table"
	"github.com/ldbcompat/ldbcompat/internal/table/tabletest"
)

// Block contents at their edges (table/block.cc's Block constructor,
// DecodeEntry, Block::Iter's ParseNextKey and Seek), the error each edge
// reports (its file offset, status and numbers, computed from how the test
// built the block), and FilterUse's names. Every block here sits behind a
// valid checksum, after mbPad, so that no block starts at offset 0.

// mbPad is junk that starts every table built here: upstream never reads
// bytes no handle points to.
var mbPad = []byte("padding")

// mbIKey returns the internal key of user key s at sequence seq, a value.
func mbIKey(s string, seq uint64) []byte {
	return table.AppendInternalKey(nil, table.InternalKey{UserKey: []byte(s), Seq: seq, Kind: table.KindValue})
}

// mbOneBlock returns a table whose only data block is stored as given with
// compression comp, and the block's handle; its metaindex is empty.
func mbOneBlock(stored []byte, comp byte) ([]byte, table.BlockHandle) {
	data, dh := tabletest.AppendBlock(bytes.Clone(mbPad), stored, comp)
	data, mh := tabletest.AppendBlock(data, tabletest.EncodeBlock(nil, 16), table.NoCompression)
	idx := tabletest.EncodeBlock([]tabletest.KV{{Key: mbIKey("z", 0), Value: table.AppendBlockHandle(nil, dh)}}, 1)
	data, ih := tabletest.AppendBlock(data, idx, table.NoCompression)
	return tabletest.AppendFooter(data, mh, ih), dh
}

// mbOpen opens the table in file as "m.ldb".
func mbOpen(t *testing.T, file []byte) *table.Table {
	t.Helper()
	tb, err := table.Open("m.ldb", bytes.NewReader(file), int64(len(file)))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return tb
}

// mbScan runs Scan on the table in file and returns the keys and values
// it yields and its status.
func mbScan(t *testing.T, file []byte) (keys, values []string, err error) {
	t.Helper()
	err = mbOpen(t, file).Scan(func(e table.ScanEntry) error {
		keys, values = append(keys, string(e.Key)), append(values, string(e.Value))
		return nil
	})
	return keys, values, err
}

// mbWantErr requires err to be a *base.Error of file "m.ldb" at offset
// off, with status and message msg; undefined tells whether it must wrap
// base.ErrUndefined (with no status) or nothing.
func mbWantErr(t *testing.T, err error, off uint64, status, msg string, undefined bool) {
	t.Helper()
	var e *base.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T); want a *base.Error", err, err)
	}
	var wantErr error
	if undefined {
		wantErr = base.ErrUndefined
	}
	if e.File != "m.ldb" || e.Offset != int64(off) || e.Status != status || e.Msg != msg || e.Err != wantErr {
		t.Fatalf("error: file %q offset %d status %q msg %q err %v\nwant: file %q offset %d status %q msg %q err %v",
			e.File, e.Offset, e.Status, e.Msg, e.Err, "m.ldb", off, status, msg, wantErr)
	}
}

const (
	mbBadContents = "Corruption: bad block contents"
	mbBadEntry    = "Corruption: bad entry in block"
)

// TestMutBlockRestartCount checks the Block constructor (table/block.cc):
// a block of under 4 bytes, or whose restart count n exceeds
// (size-4)/4, is "bad block contents"; a 4-byte block of 0 restarts is
// an empty block (Block::NewIterator's NewEmptyIterator), and so is an
// 8-byte block of one restart point and no entries (the restart array
// starts at 0, where the entries end). The error's offset and numbers
// follow from the block's size and count.
func TestMutBlockRestartCount(t *testing.T) {
	junk8 := []byte("01234567")
	for _, tc := range []struct {
		name   string
		stored []byte
		comp   byte
		off    uint64 // the error's offset past the block's start
		msg    string // after "data block 0 OFF+SIZE: "
	}{
		{name: "4 zero bytes", stored: []byte{0, 0, 0, 0}},
		{name: "one restart, no entries", stored: []byte{0, 0, 0, 0, 1, 0, 0, 0}},
		{name: "2 bytes", stored: []byte{1, 2}, msg: "block of 2 bytes is too short for its restart count (4 bytes)"},
		{name: "count 1 in 4 bytes", stored: []byte{1, 0, 0, 0}, msg: "restart count 1 needs 4 bytes; the block has 0 before the count"},
		{name: "count 3 in 12 bytes", stored: append(bytes.Clone(junk8), 3, 0, 0, 0), off: 8, msg: "restart count 3 needs 12 bytes; the block has 8 before the count"},
		{name: "count 3 in 12 bytes, snappy", stored: snappy.Encode(nil, append(bytes.Clone(junk8), 3, 0, 0, 0)), comp: table.SnappyCompression,
			msg: "at byte 8 of 12 decompressed: restart count 3 needs 12 bytes; the block has 8 before the count"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file, dh := mbOneBlock(tc.stored, tc.comp)
			keys, _, err := mbScan(t, file)
			if len(keys) != 0 {
				t.Errorf("Scan yields %q; want nothing", keys)
			}
			_, rerr := mbOpen(t, file).ReadDataBlock(0)
			if tc.msg == "" {
				if err != nil || rerr != nil {
					t.Fatalf("an empty block: Scan %v, ReadDataBlock %v; want no error", err, rerr)
				}
				return
			}
			msg := fmt.Sprintf("data block 0 %d+%d: %s", dh.Offset, dh.Size, tc.msg)
			mbWantErr(t, err, dh.Offset+tc.off, mbBadContents, msg, false)
			mbWantErr(t, rerr, dh.Offset+tc.off, mbBadContents, msg, false)
		})
	}
}

// TestMutBlockEntryBounds checks DecodeEntry and ParseNextKey
// (table/block.cc) at their limits: an entry of exactly 3 bytes (empty
// key and value) decodes; fewer than 3 bytes before the restart array, or
// a key suffix and value running 1 byte into it, are "bad entry in block"
// at the entry's offset, after the entries before it; an entry sharing as
// many bytes as the whole previous key (key_.size() < shared is the test)
// decodes.
func TestMutBlockEntryBounds(t *testing.T) {
	restarts := []byte{0, 0, 0, 0, 1, 0, 0, 0} // restart point 0, count 1
	for _, tc := range []struct {
		name    string
		entries []byte // before the restart array
		keys    []string
		values  []string
		off     uint64 // the error's offset past the block's start
		msg     string // after "data block 0 OFF+SIZE: "
	}{
		{name: "3-byte entry", entries: []byte{0, 0, 0}, keys: []string{""}, values: []string{""}},
		{name: "2 bytes left", entries: []byte{0, 0, 0, 0, 0}, keys: []string{""}, values: []string{""},
			off: 3, msg: "entry 1: want three varint32 lengths: fewer than 3 bytes before the entries' end at byte 5"},
		{name: "value 1 byte too long", entries: []byte{0, 0, 0, 0, 1, 2, 'k', 'v'}, keys: []string{""}, values: []string{""},
			off: 3, msg: "entry 1: key suffix (1 bytes) and value (2 bytes) run past the entries' end at byte 8"},
		{name: "third entry short", entries: []byte{0, 1, 1, 'a', '1', 1, 1, 1, 'b', '2', 0, 0}, keys: []string{"a", "ab"}, values: []string{"1", "2"},
			off: 10, msg: "entry 2: want three varint32 lengths: fewer than 3 bytes before the entries' end at byte 12"},
		{name: "shares the whole previous key", entries: []byte{0, 2, 1, 'a', 'b', '1', 2, 1, 1, 'c', '2'}, keys: []string{"ab", "abc"}, values: []string{"1", "2"}},
		// Lengths in varints longer than they need be, which
		// DecodeEntry's one-byte fast path must leave to the varint
		// decoder: 0 as 0x80 0x00, whose first byte alone would read
		// as 128, and 1 as 0x81 0x00.
		{name: "shared length 0 in two bytes", entries: []byte{0x80, 0, 0, 1, 'v'}, keys: []string{""}, values: []string{"v"}},
		{name: "key length 1 in two bytes", entries: []byte{0, 0x81, 0, 1, 'k', 'v'}, keys: []string{"k"}, values: []string{"v"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stored := append(bytes.Clone(tc.entries), restarts...)
			file, dh := mbOneBlock(stored, table.NoCompression)
			keys, values, err := mbScan(t, file)
			if fmt.Sprint(keys) != fmt.Sprint(tc.keys) || fmt.Sprint(values) != fmt.Sprint(tc.values) {
				t.Errorf("Scan yields keys %q values %q; want %q %q", keys, values, tc.keys, tc.values)
			}
			if tc.msg == "" {
				if err != nil {
					t.Fatalf("Scan: %v", err)
				}
				return
			}
			mbWantErr(t, err, dh.Offset+tc.off, mbBadEntry, fmt.Sprintf("data block 0 %d+%d: %s", dh.Offset, dh.Size, tc.msg), false)
		})
	}
}

// mbMetaTable returns a table whose metaindex block holds meta (block
// contents), and that has a filter block of contents filter (which
// mbFilterEntry's value points to), with the filter's and metaindex's
// handles.
func mbMetaTable(meta func(fh table.BlockHandle) []byte, filter []byte) (file []byte, fh, mh table.BlockHandle) {
	data, dh := tabletest.AppendBlock(bytes.Clone(mbPad), tabletest.EncodeBlock([]tabletest.KV{{Key: mbIKey("a", 1), Value: []byte("v")}}, 16), table.NoCompression)
	data, fh = tabletest.AppendBlock(data, filter, table.NoCompression)
	data, mh = tabletest.AppendBlock(data, meta(fh), table.NoCompression)
	idx := tabletest.EncodeBlock([]tabletest.KV{{Key: mbIKey("z", 0), Value: table.AppendBlockHandle(nil, dh)}}, 1)
	data, ih := tabletest.AppendBlock(data, idx, table.NoCompression)
	return tabletest.AppendFooter(data, mh, ih), fh, mh
}

// TestMutSeekRestartSearch checks Block::Iter::Seek (table/block.cc), as
// Table::ReadMeta uses it on the metaindex: a binary search for the last
// restart point whose key is < the target (right = mid-1 when it is
// not), then a linear scan for the first key >= the target. With keys out
// of order, or repeated, the entry it stops on is not what a linear scan
// from the start finds, and ReadMeta uses the filter only when that
// entry's key is the name and its value a handle.
func TestMutSeekRestartSearch(t *testing.T) {
	filter := []byte("filter contents")
	name := func(s string) []byte { return []byte(table.FilterPrefix + s) }
	for _, tc := range []struct {
		name string
		kvs  func(h []byte) []tabletest.KV
		want table.FilterUse
	}{
		// Restarts "z", "a", "b": mid 1 ("a" < "b") sets left 1, mid 2
		// ("b" is not < "b") sets right 1; the scan from restart 1
		// passes "a" and stops on "b". From restart 0 it would stop on
		// "z".
		{"out of order", func(h []byte) []tabletest.KV {
			return []tabletest.KV{{Key: name("z"), Value: []byte("x")}, {Key: name("a"), Value: []byte("x")}, {Key: name("b"), Value: h}}
		}, table.FilterUsed},
		// Restarts "a", "b" (the filter), "b" (no handle): mid 1 is not
		// < "b", so right is 0 and the scan from restart 0 stops on the
		// first "b".
		{"repeated name", func(h []byte) []tabletest.KV {
			return []tabletest.KV{{Key: name("a"), Value: []byte("x")}, {Key: name("b"), Value: h}, {Key: name("b"), Value: []byte("x")}}
		}, table.FilterUsed},
		// The same with the values swapped: the first "b" has no handle.
		{"repeated name, first without a handle", func(h []byte) []tabletest.KV {
			return []tabletest.KV{{Key: name("a"), Value: []byte("x")}, {Key: name("b"), Value: []byte("x")}, {Key: name("b"), Value: h}}
		}, table.FilterUnreadable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file, fh, _ := mbMetaTable(func(fh table.BlockHandle) []byte {
				return tabletest.EncodeBlock(tc.kvs(table.AppendBlockHandle(nil, fh)), 1)
			}, filter)
			f := mbOpen(t, file).LookupFilter("b")
			if f.Use != tc.want {
				t.Fatalf("LookupFilter: %v (%v); want %v", f.Use, f.Err, tc.want)
			}
			if tc.want == table.FilterUsed && (f.Handle != fh || !bytes.Equal(f.Contents, filter)) {
				t.Fatalf("LookupFilter: handle %v contents %q; want %v %q", f.Handle, f.Contents, fh, filter)
			}
		})
	}
}

// TestMutSeekBadRestartPoint checks Seek's test of each restart point it
// probes (table/block.cc): an entry that DecodeEntry rejects, or that
// shares key bytes, is "bad entry in block", and ReadMeta then finds no
// filter. The error names the restart point and its offset.
func TestMutSeekBadRestartPoint(t *testing.T) {
	for _, tc := range []struct {
		name  string
		block []byte
		off   uint64
		msg   string // after "metaindex block OFF+SIZE: "
	}{
		// Entry "a"="v" at 0; at 5, an entry sharing 1 byte; restarts
		// 0 and 5.
		{"shares key bytes", []byte{0, 1, 1, 'a', 'v', 1, 1, 0, 'b', 0, 0, 0, 0, 5, 0, 0, 0, 2, 0, 0, 0}, 5,
			"restart point 1 (byte 5): want an entry storing its whole key: shares 1 key bytes; want 0"},
		// Entry "a" at 0; 2 bytes at 4; restarts 0 and 4.
		{"2 bytes", []byte{0, 1, 0, 'a', 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 2, 0, 0, 0}, 4,
			"restart point 1 (byte 4): want an entry storing its whole key: want three varint32 lengths: fewer than 3 bytes before the entries' end at byte 6"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file, _, mh := mbMetaTable(func(table.BlockHandle) []byte { return tc.block }, []byte("f"))
			f := mbOpen(t, file).LookupFilter("x")
			if f.Use != table.FilterNotFound {
				t.Fatalf("LookupFilter: %v; want %v", f.Use, table.FilterNotFound)
			}
			mbWantErr(t, f.Err, mh.Offset+tc.off, mbBadEntry, fmt.Sprintf("metaindex block %d+%d: %s", mh.Offset, mh.Size, tc.msg), false)
		})
	}
}

// TestMutSeekShortKey checks Seek's linear scan with the internal key
// comparator (table/table.cc InternalGet): a key of 2 bytes reached in
// the data block is compared with ExtractUserKey's size-8, which wraps:
// undefined, reported at that entry.
func TestMutSeekShortKey(t *testing.T) {
	k0 := mbIKey("a", 5)
	stored := tabletest.EncodeBlock([]tabletest.KV{{Key: k0, Value: []byte("1")}, {Key: []byte("xy"), Value: []byte("2")}}, 16)
	file, dh := mbOneBlock(stored, table.NoCompression)
	_, err := mbOpen(t, file).Get(mbIKey("c", 9), nil, nil)
	at := uint64(3 + len(k0) + 1) // entry 1 follows entry 0's 3 lengths, key and value
	mbWantErr(t, err, dh.Offset+at, "", fmt.Sprintf("data block %d+%d: entry 1: key of 2 bytes is shorter than an internal key's tag; LevelDB's comparator reads out of bounds", dh.Offset, dh.Size), true)
}

// TestMutIndexValueAt checks IndexEntry.At: the file offset of the
// entry's value in an uncompressed index block (the block's offset, its
// entries before, the 3 one-byte lengths and the key), and the block's
// offset in a snappy one.
func TestMutIndexValueAt(t *testing.T) {
	for _, comp := range []byte{table.NoCompression, table.SnappyCompression} {
		t.Run(fmt.Sprint("compression ", comp), func(t *testing.T) {
			data, dh := tabletest.AppendBlock(bytes.Clone(mbPad), tabletest.EncodeBlock([]tabletest.KV{{Key: mbIKey("a", 1), Value: []byte("v")}}, 16), table.NoCompression)
			data, mh := tabletest.AppendBlock(data, tabletest.EncodeBlock(nil, 16), table.NoCompression)
			h := table.AppendBlockHandle(nil, dh)
			k0, k1 := mbIKey("m", 0), mbIKey("z", 0)
			idx := tabletest.EncodeBlock([]tabletest.KV{{Key: k0, Value: h}, {Key: k1, Value: h}}, 1)
			want := []uint64{uint64(3 + len(k0)), uint64(3 + len(k0) + len(h) + 3 + len(k1))}
			if comp == table.SnappyCompression {
				idx, want = snappy.Encode(nil, idx), []uint64{0, 0}
			}
			data, ih := tabletest.AppendBlock(data, idx, comp)
			tb := mbOpen(t, tabletest.AppendFooter(data, mh, ih))
			if len(tb.Index()) != 2 {
				t.Fatalf("%d index entries; want 2 (%v)", len(tb.Index()), tb.IndexError())
			}
			for i, e := range tb.Index() {
				if e.At != ih.Offset+want[i] {
					t.Errorf("entry %d: At %d; want %d", i, e.At, ih.Offset+want[i])
				}
			}
		})
	}
}

// TestMutIndexRestartClaimAlloc checks that an index block claiming
// 2^32-1 restart points (bad block contents, upstream's Block constructor)
// costs no more memory than the project's bound for a table's size.
func TestMutIndexRestartClaimAlloc(t *testing.T) {
	idx := append(make([]byte, 4092), 0xff, 0xff, 0xff, 0xff)
	data, mh := tabletest.AppendBlock(bytes.Clone(mbPad), tabletest.EncodeBlock(nil, 16), table.NoCompression)
	data, ih := tabletest.AppendBlock(data, idx, table.NoCompression)
	data = tabletest.AppendFooter(data, mh, ih)
	var tb *table.Table
	var err error
	got := alloctest.Allocated(func() { tb, err = table.Open("m.ldb", bytes.NewReader(data), int64(len(data))) })
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	mbWantErr(t, tb.IndexError(), ih.Offset+4092, mbBadContents, fmt.Sprintf("index block %d+4096: restart count 4294967295 needs %d bytes; the block has 4092 before the count", ih.Offset, 4*uint64(1<<32-1)), false)
	if bound := 4*uint64(len(data)) + 64<<10; got > bound {
		t.Errorf("Open allocated %d bytes for a %d-byte table; want at most %d", got, len(data), bound)
	}
}

// TestMutFilterUseString checks FilterUse's documented names, and that
// values outside the four outcomes (0, the zero value, is none) print as
// numbers.
func TestMutFilterUseString(t *testing.T) {
	for u, want := range map[table.FilterUse]string{
		table.FilterUsed:        "used",
		table.FilterNotFound:    "not found",
		table.FilterNoMetaindex: "no metaindex",
		table.FilterUnreadable:  "unreadable",
		0:                       "FilterUse(0)",
		-1:                      "FilterUse(-1)",
		5:                       "FilterUse(5)",
	} {
		if got := u.String(); got != want {
			t.Errorf("FilterUse(%d).String() = %q; want %q", int(u), got, want)
		}
	}
}
