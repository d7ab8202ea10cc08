package table_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/klauspost/compress/snappy"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/internal/base"
	"github.com/ldbcompat/ldbcompat/internal/table"
	"github.com/ldbcompat/ldbcompat/internal/table/tabletest"
)

// The rules of upstream's reader where this package's used to be
// stricter, each on a table built around the first data block of a table
// upstream wrote. FuzzUpstreamTable (tag leveldb) checks these against
// upstream itself, with the seeds in testdata/fuzz/FuzzUpstreamTable.

// rulesTable returns a table of the given data block, filter block and
// metaindex and index entries.
type rulesTable struct {
	data         []byte // data blocks, from offset 0
	filter       []byte // nil: none
	filterComp   byte
	meta, index  []tabletest.KV
	metaRestarts int
}

func (r rulesTable) bytes(filterValue func(h table.BlockHandle) []byte) []byte {
	file := bytes.Clone(r.data)
	var meta []tabletest.KV
	if r.filter != nil {
		stored := r.filter
		if r.filterComp == table.SnappyCompression {
			stored = snappy.Encode(nil, r.filter)
		}
		var fh table.BlockHandle
		file, fh = tabletest.AppendBlock(file, stored, r.filterComp)
		meta = append(meta, tabletest.KV{Key: []byte(table.FilterPrefix + bloom.PolicyName), Value: filterValue(fh)})
	}
	meta = append(meta, r.meta...)
	file, mh := tabletest.AppendBlock(file, tabletest.EncodeBlock(meta, max(r.metaRestarts, 1)), 0)
	file, ih := tabletest.AppendBlock(file, tabletest.EncodeBlock(r.index, 1), 0)
	return tabletest.AppendFooter(file, mh, ih)
}

func baseRules(t *testing.T) (rulesTable, int) {
	f := smallest(t, "none")
	file, _, _ := firstBlockTable(t, f, bloom.NewPolicy(f.db.BitsPerKey))
	tb, err := table.Open("r.ldb", bytes.NewReader(file), int64(len(file)))
	if err != nil {
		t.Fatal(err)
	}
	e := tb.Index()[0]
	n := 0
	if err := tb.Scan(func(table.ScanEntry) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	return rulesTable{
		data:   file[:e.Handle.End()],
		filter: tb.LookupFilter(bloom.PolicyName).Contents,
		index:  []tabletest.KV{{Key: e.Separator, Value: e.Value}},
	}, n
}

func handleValue(extra ...byte) func(table.BlockHandle) []byte {
	return func(h table.BlockHandle) []byte { return append(table.AppendBlockHandle(nil, h), extra...) }
}

func scanCount(t *testing.T, data []byte) (int, error) {
	t.Helper()
	tb, err := table.Open("r.ldb", bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	n := 0
	err = tb.Scan(func(table.ScanEntry) error { n++; return nil })
	return n, err
}

func TestRulesExtraBytesAfterHandles(t *testing.T) {
	r, n := baseRules(t)
	// Table::BlockReader: "We intentionally allow extra stuff in
	// index_value", as the iq80 Java port writes.
	r.index[0].Value = append(bytes.Clone(r.index[0].Value), 0x00, 0x9b, 0x21, 0x00)
	// Table::ReadFilter decodes the handle from the value's start too.
	data := r.bytes(handleValue(1, 2, 3))
	if got, err := scanCount(t, data); got != n || err != nil {
		t.Fatalf("scan: %d entries, %v; want %d", got, err, n)
	}
	tb, _ := table.Open("r.ldb", bytes.NewReader(data), int64(len(data)))
	if f := tb.LookupFilter(bloom.PolicyName); f.Use != table.FilterUsed {
		t.Errorf("filter %s (%v), want used", f.Use, f.Err)
	}
}

func TestRulesMetaindex(t *testing.T) {
	r, _ := baseRules(t)
	for _, tc := range []struct {
		name   string
		meta   []tabletest.KV
		value  func(table.BlockHandle) []byte
		want   table.FilterUse
		policy string
	}{
		{"garbage entry after the filter", []tabletest.KV{{Key: []byte("zzz"), Value: []byte{0xff}}}, handleValue(), table.FilterUsed, bloom.PolicyName},
		{"handle cut short", nil, func(h table.BlockHandle) []byte { return table.AppendBlockHandle(nil, h)[:2] }, table.FilterUnreadable, bloom.PolicyName},
		{"handle one byte long", nil, func(h table.BlockHandle) []byte {
			return table.AppendBlockHandle(nil, table.BlockHandle{Offset: h.Offset, Size: h.Size + 1})
		}, table.FilterUnreadable, bloom.PolicyName},
		{"other name", nil, handleValue(), table.FilterNotFound, bloom.LegacyPolicyName},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r.meta = tc.meta
			data := r.bytes(tc.value)
			if _, err := scanCount(t, data); err != nil {
				t.Fatalf("scan: %v", err)
			}
			tb, _ := table.Open("r.ldb", bytes.NewReader(data), int64(len(data)))
			if f := tb.LookupFilter(tc.policy); f.Use != tc.want {
				t.Errorf("filter %s (%v), want %s", f.Use, f.Err, tc.want)
			}
		})
	}
	// A snappy filter block is decompressed (format.cc ReadBlock).
	r.meta, r.filterComp = nil, table.SnappyCompression
	data := r.bytes(handleValue())
	tb, _ := table.Open("r.ldb", bytes.NewReader(data), int64(len(data)))
	if f := tb.LookupFilter(bloom.PolicyName); f.Use != table.FilterUsed || !bytes.Equal(f.Contents, r.filter) || f.Compression != table.SnappyCompression {
		t.Errorf("snappy filter: %s, %d bytes (%v)", f.Use, len(f.Contents), f.Err)
	}
}

// TestRulesBlockIter: Block::Iter decodes entries from restart point 0's
// offset to the restart array, and never checks the other restarts.
func TestRulesBlockIter(t *testing.T) {
	key := func(s string) []byte {
		return table.AppendInternalKey(nil, table.InternalKey{UserKey: []byte(s), Seq: 1, Kind: table.KindValue})
	}
	good := tabletest.EncodeBlock([]tabletest.KV{{Key: key("apple"), Value: []byte("v1")}, {Key: key("apricot"), Value: []byte("v2")}}, 16)
	for _, tc := range []struct {
		name     string
		contents []byte
		entries  int
		status   string
	}{
		{"no restarts: empty", append(bytes.Clone(good[:len(good)-8]), 0, 0, 0, 0), 0, ""},
		{"restart not at an entry", append(bytes.Clone(good[:len(good)-4]), 3, 0, 0, 0, 2, 0, 0, 0), 2, ""},
		{"restart 0 past the entries", append(bytes.Clone(good[:len(good)-8]), 0xff, 0, 0, 0, 1, 0, 0, 0), 0, ""},
		{"restart 0 mid-entry", append(bytes.Clone(good[:len(good)-8]), 1, 0, 0, 0, 1, 0, 0, 0), 0, "Corruption: bad entry in block"},
		{"3 bytes", []byte{0, 0, 0}, 0, "Corruption: bad block contents"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data, dh := tabletest.AppendBlock(nil, tc.contents, 0)
			data, mh := tabletest.AppendBlock(data, tabletest.EncodeBlock(nil, 16), 0)
			idx := tabletest.EncodeBlock([]tabletest.KV{{Key: key("z"), Value: table.AppendBlockHandle(nil, dh)}}, 1)
			data, ih := tabletest.AppendBlock(data, idx, 0)
			data = tabletest.AppendFooter(data, mh, ih)
			n, err := scanCount(t, data)
			if n != tc.entries || base.StatusOf(err) != tc.status || (err == nil) != (tc.status == "") {
				t.Fatalf("%d entries, %v; want %d, %q", n, err, tc.entries, tc.status)
			}
		})
	}
}

// TestRulesVarints: util/coding.cc keeps the low bits of a last varint
// byte (the 5th of a varint32, the 10th of a varint64) instead of
// refusing it.
func TestRulesVarints(t *testing.T) {
	h, n := table.DecodeBlockHandle([]byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x7f, 5})
	if n != 11 || h.Offset != 1<<63 || h.Size != 5 {
		t.Errorf("10-byte varint64: %v, %d", h, n)
	}
	if _, n := table.DecodeBlockHandle(bytes.Repeat([]byte{0x80}, 10)); n != 0 {
		t.Errorf("11-byte varint64 accepted")
	}
}

// TestRulesSnappy: C++ snappy refuses what the S2 decoder accepts as a
// repeat (a 1-byte-offset copy of offset 0), and an overlong length
// header.
func TestRulesSnappy(t *testing.T) {
	key := table.AppendInternalKey(nil, table.InternalKey{UserKey: []byte("k"), Seq: 1, Kind: table.KindValue})
	block := tabletest.EncodeBlock([]tabletest.KV{{Key: key, Value: bytes.Repeat([]byte("ab"), 20)}}, 16)
	for _, tc := range []struct {
		name   string
		stored []byte
		status string
	}{
		{"valid", snappy.Encode(nil, block), ""},
		{"overlong length header", append([]byte{0x80 | byte(len(block)), 0x80, 0x80, 0x80, 0x80, 0}, snappy.Encode(nil, block)[1:]...), "Corruption: corrupted compressed block contents"},
		{"repeat offset", func() []byte {
			// A literal of the block's first 4 bytes, then an S2
			// repeat (copy-1, offset 0) of the rest.
			s := binary.AppendUvarint(nil, uint64(len(block)))
			return append(s, 3<<2, block[0], block[1], block[2], block[3], 0x01, 0x00)
		}(), "Corruption: corrupted compressed block contents"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data, dh := tabletest.AppendBlock(nil, tc.stored, table.SnappyCompression)
			data, mh := tabletest.AppendBlock(data, tabletest.EncodeBlock(nil, 16), 0)
			idx := tabletest.EncodeBlock([]tabletest.KV{{Key: key, Value: table.AppendBlockHandle(nil, dh)}}, 1)
			data, ih := tabletest.AppendBlock(data, idx, 0)
			data = tabletest.AppendFooter(data, mh, ih)
			_, err := scanCount(t, data)
			if base.StatusOf(err) != tc.status || (err == nil) != (tc.status == "") {
				t.Fatalf("%v; want %q", err, tc.status)
			}
		})
	}
}

// TestRulesSizes: the MANIFEST's size locates the footer; blocks are read
// from the file whatever that size says (OpenSized).
func TestRulesSizes(t *testing.T) {
	f := smallest(t, "none")
	grown := append(bytes.Clone(f.data), "trailing"...)
	// The recorded size is the table's; the file has grown: upstream reads
	// the table as written.
	if _, err := table.OpenSized("g.ldb", bytes.NewReader(grown), int64(len(grown)), int64(len(f.data))); err != nil {
		t.Errorf("file grown past the recorded size: %v", err)
	}
	// A recorded size past the end of the file: the footer read fails.
	_, err := table.OpenSized("s.ldb", bytes.NewReader(f.data), int64(len(f.data)), int64(len(f.data))+1)
	if base.StatusOf(err) != "IO error: s.ldb: Invalid argument" {
		t.Errorf("size past the end: %v (status %q)", err, base.StatusOf(err))
	}
	// A handle whose offset plus size overflows: undefined upstream.
	data := tabletest.ReplaceFooter(f.data, table.BlockHandle{}, table.BlockHandle{Offset: 1<<64 - 3, Size: 1})
	if _, err := table.Open("o.ldb", bytes.NewReader(data), int64(len(data))); !errors.Is(err, base.ErrUndefined) {
		t.Errorf("overflowing index handle: %v, want ErrUndefined", err)
	}
}
