package table_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/internal/alloctest"
	"github.com/ldbcompat/ldbcompat/internal/base"
	"github.com/ldbcompat/ldbcompat/internal/filtercheck"
	"github.com/ldbcompat/ldbcompat/internal/table"
	"github.com/ldbcompat/ldbcompat/internal/table/tabletest"
)

// readAll opens the table in data and reads every data block; it returns
// the first error.
func readAll(name string, r io.ReaderAt, size int64) error {
	tb, err := table.Open(name, r, size)
	if err != nil {
		return err
	}
	return tb.DataBlocks(func(*table.DataBlock) error { return nil })
}

// checkTableError requires err to be a *base.Error naming file, at an
// offset inside the file, whose message contains every string in want.
func checkTableError(t *testing.T, err error, file string, size int, want ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error; want one containing %q", want)
	}
	var te *base.Error
	if !errors.As(err, &te) {
		t.Fatalf("error %v (%T) is not a *base.Error", err, err)
	}
	if te.File != file || te.Offset < 0 || te.Offset > int64(size) {
		t.Fatalf("error %v: file %q offset %d; want file %q, offset in 0..%d", err, te.File, te.Offset, file, size)
	}
	prefix := fmt.Sprintf("table %s: offset %d: ", file, te.Offset)
	if !strings.HasPrefix(err.Error(), prefix) {
		t.Fatalf("error %q does not start with %q", err, prefix)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Fatalf("error %q does not contain %q", err, w)
		}
	}
}

// smallest returns the smallest committed table with the given
// compression.
func smallest(t *testing.T, compression string) fixtureTable {
	t.Helper()
	var best fixtureTable
	for _, f := range loadFixtures(t) {
		if f.db.Compression == compression && (best.data == nil || len(f.data) < len(best.data)) {
			best = f
		}
	}
	if best.data == nil {
		t.Fatalf("no %s fixture", compression)
	}
	return best
}

func TestTruncated(t *testing.T) {
	for _, comp := range []string{"none", "snappy"} {
		f := smallest(t, comp)
		var lengths []int
		for n := 0; n < len(f.data); n++ {
			if n < 256 || n > len(f.data)-256 || n%97 == 0 {
				lengths = append(lengths, n)
			}
		}
		for _, n := range lengths {
			// The file really is shorter: the footer is read from the
			// wrong place.
			err := readAll("000005.ldb", bytes.NewReader(f.data[:n]), int64(n))
			switch {
			case n == 0:
				// LevelDB memory-maps the file, and mmap refuses 0 bytes.
				checkTableError(t, err, "000005.ldb", n, "empty file")
			case n < table.FooterSize:
				checkTableError(t, err, "000005.ldb", n, "too short")
			default:
				checkTableError(t, err, "000005.ldb", n)
			}
			// The file was truncated after its size was taken: reads
			// past the end fail.
			err = readAll("000005.ldb", bytes.NewReader(f.data[:n]), int64(len(f.data)))
			checkTableError(t, err, "000005.ldb", len(f.data))
		}
	}
}

func TestBadMagic(t *testing.T) {
	f := smallest(t, "none")
	for i := len(f.data) - 8; i < len(f.data); i++ {
		data := bytes.Clone(f.data)
		data[i] ^= 0x01
		err := readAll("x.ldb", bytes.NewReader(data), int64(len(data)))
		checkTableError(t, err, "x.ldb", len(data), "bad magic number", "0xdb4775248b80fb57")
	}
}

// TestFlippedBytes flips every bit position of a sample of bytes in each
// block and its trailer: the checksum must catch each one. A damaged data
// or index block makes the table unreadable; a damaged filter or
// metaindex block only makes upstream read the table without a filter
// (table/table.cc ReadMeta and ReadFilter drop their errors).
func TestFlippedBytes(t *testing.T) {
	for _, comp := range []string{"none", "snappy"} {
		f := smallest(t, comp)
		tb := f.open(t)
		var handles []table.BlockHandle
		for _, e := range tb.Index() {
			handles = append(handles, e.Handle)
		}
		fh, _ := tb.FilterHandle()
		mh := tb.MetaindexHandle()
		handles = append(handles, fh, mh, tb.IndexHandle())
		for _, h := range handles {
			for off := h.Offset; off < h.End(); off++ {
				if off-h.Offset > 16 && h.End()-off > 16 && (off-h.Offset)%13 != 0 {
					continue
				}
				data := bytes.Clone(f.data)
				data[off] ^= 1 << (off % 8)
				err := readAll("f.ldb", bytes.NewReader(data), int64(len(data)))
				if h == fh || h == mh {
					if err != nil {
						t.Fatalf("flip at %d in block %s: %v; want the table read without its filter", off, h, err)
					}
					damaged, _ := table.Open("f.ldb", bytes.NewReader(data), int64(len(data)))
					want := table.FilterUnreadable
					if h == mh {
						want = table.FilterNoMetaindex
					}
					fl := damaged.LookupFilter(bloom.PolicyName)
					if fl.Use != want {
						t.Fatalf("flip at %d in block %s: filter %s (%v), want %s", off, h, fl.Use, fl.Err, want)
					}
					err = fl.Err
				}
				checkTableError(t, err, "f.ldb", len(data), "checksum mismatch: stored 0x", ", computed 0x")
				var te *base.Error
				errors.As(err, &te)
				if te.Offset != int64(h.Offset) || te.Status != "Corruption: block checksum mismatch" {
					t.Fatalf("flip at %d in block %s: error at offset %d, status %q; want the block's offset and upstream's status", off, h, te.Offset, te.Status)
				}
			}
		}
	}
}

func TestHandlePastEOF(t *testing.T) {
	f := smallest(t, "none")
	tb := f.open(t)
	size := uint64(len(f.data))
	mh, ih := tb.MetaindexHandle(), tb.IndexHandle()
	for _, tc := range []struct {
		name        string
		meta, index table.BlockHandle
		want        string
	}{
		{"index offset at EOF", mh, table.BlockHandle{Offset: size, Size: ih.Size}, "index block handle"},
		{"index size past EOF", mh, table.BlockHandle{Offset: ih.Offset, Size: size}, "index block handle"},
		// Upstream reads a block wherever it lies in the file, footer
		// included: the checksum then fails.
		{"index trailer in footer", mh, table.BlockHandle{Offset: ih.Offset, Size: ih.Size + 1}, "index block 27514+176: block checksum mismatch"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := tabletest.ReplaceFooter(f.data, tc.meta, tc.index)
			err := readAll("h.ldb", bytes.NewReader(data), int64(len(data)))
			if strings.HasPrefix(tc.want, "index block handle") {
				checkTableError(t, err, "h.ldb", len(data), tc.want, "run past the end")
			} else {
				checkTableError(t, err, "h.ldb", len(data), tc.want)
			}
		})
	}
	// A metaindex block that cannot be read leaves the table readable,
	// without a filter (table/table.cc ReadMeta).
	for _, tc := range []struct {
		name string
		meta table.BlockHandle
		want string
	}{
		{"metaindex huge", table.BlockHandle{Offset: mh.Offset, Size: 1 << 62}, "run past the end"},
		{"metaindex offset overflow", table.BlockHandle{Offset: 1<<64 - 2, Size: 10}, "overflows 64 bits"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := tabletest.ReplaceFooter(f.data, tc.meta, ih)
			if err := readAll("h.ldb", bytes.NewReader(data), int64(len(data))); err != nil {
				t.Fatalf("%v; want the table read without a filter", err)
			}
			tb, _ := table.Open("h.ldb", bytes.NewReader(data), int64(len(data)))
			if fl := tb.LookupFilter(bloom.PolicyName); fl.Use != table.FilterNoMetaindex {
				t.Fatalf("filter %s, want %s", fl.Use, table.FilterNoMetaindex)
			}
			checkTableError(t, tb.MetaindexError(), "h.ldb", len(data), "metaindex block handle", tc.want)
		})
	}
	t.Run("data block handle past EOF", func(t *testing.T) {
		entries := []tabletest.KV{{Key: []byte("k\x01\x00\x00\x00\x00\x00\x00\x00"), Value: table.AppendBlockHandle(nil, table.BlockHandle{Offset: 0, Size: size})}}
		data, ih := tabletest.AppendBlock(bytes.Clone(f.data[:mh.End()]), tabletest.EncodeBlock(entries, 1), 0)
		data = tabletest.AppendFooter(data, mh, ih)
		err := readAll("d.ldb", bytes.NewReader(data), int64(len(data)))
		checkTableError(t, err, "d.ldb", len(data), "data block handle", "run past the end")
	})
}

// TestBadBlockContents alters block contents behind valid checksums, so
// that the entry and restart checks are what catch the damage.
func TestBadBlockContents(t *testing.T) {
	key := func(s string, seq uint64) []byte {
		return table.AppendInternalKey(nil, table.InternalKey{UserKey: []byte(s), Seq: seq, Kind: table.KindValue})
	}
	good := tabletest.EncodeBlock([]tabletest.KV{{Key: key("apple", 3), Value: []byte("v1")}, {Key: key("apricot", 2), Value: []byte("v2")}}, 16)
	for _, tc := range []struct {
		name     string
		contents []byte
		comp     byte
		want     string
	}{
		{"empty block", nil, 0, "too short for its restart count"},
		{"restart count too big", binary.LittleEndian.AppendUint32(nil, 5), 0, "restart count 5"},

		{"shared past previous key", func() []byte {
			b := bytes.Clone(good)
			b[0] = 1
			return b
		}(), 0, "shares 1 key bytes with a previous key of 0 bytes"},
		{"value past end", func() []byte {
			b := bytes.Clone(good)
			b[2] = 100
			return b
		}(), 0, "run past the entries' end"},
		// A 5-byte varint32 keeps the low 32 bits (GetVarint32Ptr): the
		// lengths that follow are then read from the key bytes.
		{"five-byte varint", func() []byte {
			b := bytes.Clone(good)
			b[0], b[1], b[2], b[3], b[4] = 0xff, 0xff, 0xff, 0xff, 0x7f
			return b
		}(), 0, "run past the entries' end"},
		{"six-byte varint", func() []byte {
			b := bytes.Clone(good)
			b[0], b[1], b[2], b[3], b[4] = 0xff, 0xff, 0xff, 0xff, 0x8f
			return b
		}(), 0, "want the shared key length"},
		{"short internal key", tabletest.EncodeBlock([]tabletest.KV{{Key: []byte("abc")}}, 16), 0, "shorter than its 8-byte tag"},
		{"bad kind", tabletest.EncodeBlock([]tabletest.KV{{Key: append([]byte("abc"), 7, 0, 0, 0, 0, 0, 0, 0)}}, 16), 0, "type 7"},
		{"unknown compression", good, 9, "unknown compression type 9"},
		{"zstd", good, 2, "zstd"},
		{"snappy bomb", []byte{0xff, 0xff, 0xff, 0x7f, 0x00, 0x00}, 1, "more than snappy can expand"},
		{"snappy garbage", []byte{0x10, 0xfe, 0xfe, 0xfe}, 1, "want a valid snappy block"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// A table whose only data block is the altered one.
			data, _ := ms3Table(tc.contents, tc.comp, key("z", 0))
			tbl, err := table.Open("b.ldb", bytes.NewReader(data), int64(len(data)))
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			if _, _, ok := tbl.FilterBlock(); ok {
				t.Fatal("FilterBlock ok without a filter")
			}
			_, err = tbl.ReadDataBlock(0)
			checkTableError(t, err, "b.ldb", len(data), tc.want)
		})
	}
}

// TestMutations flips random bytes inside blocks of an uncompressed table
// and repairs the checksum, many times: reading must end in a *base.Error
// or succeed, never panic.
func TestMutations(t *testing.T) {
	f := smallest(t, "none")
	tb := f.open(t)
	handles := []table.BlockHandle{tb.MetaindexHandle(), tb.IndexHandle()}
	for _, e := range tb.Index() {
		handles = append(handles, e.Handle)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	iters := 3000
	if testing.Short() {
		iters = 300
	}
	failures := 0
	for i := 0; i < iters; i++ {
		data := bytes.Clone(f.data)
		h := handles[rng.IntN(len(handles))]
		for j := 0; j < 1+rng.IntN(3); j++ {
			data[h.Offset+rng.Uint64N(h.Size)] = byte(rng.Uint32())
		}
		tabletest.FixChecksum(data, h)
		err := readAll("m.ldb", bytes.NewReader(data), int64(len(data)))
		if err != nil {
			failures++
			checkTableError(t, err, "m.ldb", len(data))
		}
	}
	if failures == 0 {
		t.Error("no mutation was detected")
	}
}

// FuzzOpen reads arbitrary bytes as a table: no panic, and every failure is
// a *base.Error inside the file.
func FuzzOpen(f *testing.F) {
	// Small seeds: the fuzzer slows to a crawl on inputs of tens of KiB.
	for _, o := range []tabletest.Options{{BlockSize: 64}, {BlockSize: 64, Snappy: true, Policy: bloom.NewPolicy(10)}} {
		f.Add(tabletest.Build(smallEntries(12), o))
	}
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		var err error
		got := alloctest.Allocated(func() { err = readAll("z.ldb", bytes.NewReader(data), int64(len(data))) })
		if bound := fuzzAllocBound(len(data)); got > bound {
			t.Fatalf("reading a %d-byte table allocated %d bytes; want at most %d", len(data), got, bound)
		}
		if err != nil {
			checkTableError(t, err, "z.ldb", len(data))
			return
		}
		// What the CLI does with a readable table must not panic either.
		tb, _ := table.Open("z.ldb", bytes.NewReader(data), int64(len(data)))
		r, err := filtercheck.CompareTable(tb)
		if err != nil {
			t.Fatalf("Check after a clean read: %v", err)
		}
		if _, contents, ok := tb.FilterBlock(); ok {
			if l, err := filtercheck.ParseLayout(contents); err == nil {
				filtercheck.MeasureFPR(contents, l, r.Blocks, bloom.NewPolicy(10), 20, 1)
			}
		}
	})
}

// smallEntries returns n sorted entries with compressible values.
func smallEntries(n int) []table.Entry {
	var es []table.Entry
	for i := 0; i < n; i++ {
		k := table.InternalKey{UserKey: []byte(fmt.Sprintf("key\xf0%03d", i)), Seq: uint64(1000 - i), Kind: table.Kind(i % 2)}
		es = append(es, table.Entry{Key: k, Value: bytes.Repeat([]byte{'v', byte(i)}, 8)})
	}
	return es
}

// TestBuildRoundTrip reads back tables written by tabletest.Build.
func TestBuildRoundTrip(t *testing.T) {
	want := smallEntries(200)
	for _, o := range []tabletest.Options{{}, {BlockSize: 64}, {BlockSize: 100, Snappy: true, Policy: bloom.NewPolicy(7)}, {RestartInterval: 1, Snappy: true}} {
		data := tabletest.Build(want, o)
		tb, err := table.Open("rt.ldb", bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		var got []table.Entry
		snappyBlocks := 0
		err = tb.DataBlocks(func(b *table.DataBlock) error {
			got = append(got, b.Entries...)
			if b.Compression == table.SnappyCompression {
				snappyBlocks++
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("%+v: read %d entries, wrote %d", o, len(got), len(want))
		}
		for i := range got {
			if compareInternal(got[i].Key, want[i].Key) != 0 || got[i].Key.Kind != want[i].Key.Kind || !bytes.Equal(got[i].Value, want[i].Value) {
				t.Fatalf("%+v: entry %d: read %v=%x, wrote %v=%x", o, i, got[i].Key, got[i].Value, want[i].Key, want[i].Value)
			}
		}
		if o.Snappy && snappyBlocks == 0 {
			t.Errorf("%+v: no snappy block", o)
		}
		if _, _, ok := tb.FilterBlock(); ok != (o.Policy != nil) {
			t.Errorf("%+v: FilterBlock ok = %v", o, ok)
		}
	}
}

// TestDeepPrefixCompression feeds a block whose every entry repeats the
// whole previous key and adds a byte: the keys' total size grows with the
// square of the block's, and the reader must refuse before allocating it.
func TestDeepPrefixCompression(t *testing.T) {
	c := tabletest.DeepPrefixBlock(300000)
	data := oneBlockTable(c, 0)
	tb, err := table.Open("deep.ldb", bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	_, err = tb.ReadDataBlock(0)
	checkTableError(t, err, "deep.ldb", len(data), "times the block's size")
}

// FuzzDataBlock wraps arbitrary bytes as the stored contents of a table's
// only data block, behind a valid checksum, so that the fuzzer reaches the
// decompression and entry decoding the checksum otherwise guards.
func FuzzDataBlock(f *testing.F) {
	for _, es := range [][]table.Entry{nil, smallEntries(3), smallEntries(40)} {
		var kvs []tabletest.KV
		for _, e := range es {
			kvs = append(kvs, tabletest.KV{Key: table.AppendInternalKey(nil, e.Key), Value: e.Value})
		}
		f.Add(tabletest.EncodeBlock(kvs, 4), byte(0))
	}
	f.Add([]byte{0x10, 0x3c, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f}, byte(1))
	f.Fuzz(func(t *testing.T, contents []byte, comp byte) {
		data := oneBlockTable(contents, comp)
		tb, err := table.Open("fz.ldb", bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		var b *table.DataBlock
		got := alloctest.Allocated(func() { b, err = tb.ReadDataBlock(0) })
		if bound := fuzzAllocBound(len(data)); got > bound {
			t.Fatalf("reading a %d-byte block allocated %d bytes; want at most %d", len(contents), got, bound)
		}
		if err != nil {
			checkTableError(t, err, "fz.ldb", len(data))
			return
		}
		if comp != table.NoCompression && comp != table.SnappyCompression {
			t.Fatalf("compression %d accepted", comp)
		}
		for _, e := range b.Entries {
			if e.Key.Kind > table.KindValue {
				t.Fatalf("entry with kind %d accepted", e.Key.Kind)
			}
		}
	})
}

// fuzzAllocBound is the most reading an arbitrary table of size bytes may
// allocate: the decompressed blocks (up to 22 times their stored size),
// their keys (up to 256 times), each entry's bookkeeping, and a constant.
func fuzzAllocBound(size int) uint64 { return 400*uint64(size) + 1<<20 }
