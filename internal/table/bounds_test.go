package table_test

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/klauspost/compress/snappy"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/internal/alloctest"
	"github.com/ldbcompat/ldbcompat/internal/filtercheck"
	"github.com/ldbcompat/ldbcompat/internal/table"
	"github.com/ldbcompat/ldbcompat/internal/table/tabletest"
)

// Memory bounds: sizes a table claims (block handles, snappy lengths,
// filter block offsets) are checked against the file before anything is
// allocated for them.

// checkAll reads the table in data as `ldbcompat verify` does and returns
// the error, if any.
func checkAll(name string, data []byte) error {
	tb, err := table.Open(name, bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return err
	}
	_, err = filtercheck.CompareTable(tb)
	return err
}

// oneBlockTable writes a table whose only data block is stored as given,
// with the given compression type, behind a valid checksum.
func oneBlockTable(stored []byte, comp byte) []byte {
	data, _ := ms3Table(stored, comp, []byte("zzzzzzzz"))
	return data
}

func TestHugeClaimsAllocation(t *testing.T) {
	f := smallest(t, "none")
	tb := f.open(t)
	mh, ih := tb.MetaindexHandle(), tb.IndexHandle()
	fh, _ := tb.FilterHandle()
	const gb = 1 << 30
	// A metaindex whose filter entry claims a huge filter block.
	hugeFilter := func(h table.BlockHandle) []byte {
		meta := tabletest.EncodeBlock([]tabletest.KV{{Key: []byte(table.FilterPrefix + bloom.PolicyName), Value: table.AppendBlockHandle(nil, h)}}, 16)
		data, mh2 := tabletest.AppendBlock(bytes.Clone(f.data[:mh.Offset]), meta, 0)
		data = append(data, f.data[ih.Offset:ih.End()]...)
		return tabletest.AppendFooter(data, mh2, table.BlockHandle{Offset: mh2.End(), Size: ih.Size})
	}
	// An index whose only entry claims a huge data block.
	hugeData := func(h table.BlockHandle) []byte {
		idx := tabletest.EncodeBlock([]tabletest.KV{{Key: []byte("k\x01\x00\x00\x00\x00\x00\x00\x00"), Value: table.AppendBlockHandle(nil, h)}}, 1)
		data, ih2 := tabletest.AppendBlock(bytes.Clone(f.data[:mh.End()]), idx, 0)
		return tabletest.AppendFooter(data, mh, ih2)
	}
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"index block of 1 GiB", tabletest.ReplaceFooter(f.data, mh, table.BlockHandle{Offset: ih.Offset, Size: gb}), "index block handle"},
		{"index block of 2^64-1 bytes", tabletest.ReplaceFooter(f.data, mh, table.BlockHandle{Offset: ih.Offset, Size: 1<<64 - 1}), "index block handle"},
		{"metaindex block at 2^63", tabletest.ReplaceFooter(f.data, table.BlockHandle{Offset: 1 << 63, Size: gb}, ih), ""},
		{"filter block of 4 GiB", hugeFilter(table.BlockHandle{Offset: fh.Offset, Size: 4 * gb}), ""},
		{"filter block far past the end", hugeFilter(table.BlockHandle{Offset: 1 << 40, Size: 100}), ""},
		{"data block of 1 GiB", hugeData(table.BlockHandle{Offset: 0, Size: gb}), "data block handle"},
		{"snappy block claiming 4 GiB", oneBlockTable([]byte{0xff, 0xff, 0xff, 0xff, 0x0f, 0x00}, table.SnappyCompression), "more than snappy can expand"},
		{"snappy block claiming 2^63", oneBlockTable(binary.AppendUvarint(nil, 1<<63), table.SnappyCompression), "snappy"},
		{"snappy block claiming 23 times its size", oneBlockTable(append(binary.AppendUvarint(nil, 23*12), bytes.Repeat([]byte{0}, 10)...), table.SnappyCompression), "more than snappy can expand"},
		{"restart count of 2^32-1", oneBlockTable([]byte{0xff, 0xff, 0xff, 0xff}, 0), "restart count"},
		{"key of 2^32-1 bytes", oneBlockTable([]byte{0, 0xff, 0xff, 0xff, 0xff, 0x0f, 0, 0, 0, 0, 0, 1, 0, 0, 0}, 0), "run past the entries' end"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			got := alloctest.Allocated(func() { err = checkAll("big.ldb", tc.data) })
			if tc.want == "" {
				// Upstream reads the table without a filter
				// (table/table.cc ReadMeta, ReadFilter).
				if err != nil {
					t.Fatal(err)
				}
			} else {
				checkTableError(t, err, "big.ldb", len(tc.data), tc.want)
			}
			if bound := 4*uint64(len(tc.data)) + 64<<10; got > bound {
				t.Errorf("allocated %d bytes reading a %d-byte table; want at most %d", got, len(tc.data), bound)
			}
		})
	}
}

// deepBlock returns block contents whose n entries each repeat the whole
// previous key and add one byte: keys grow by a byte an entry, so that
// their total grows with the square of the block's size.
func deepBlock(n int) []byte {
	c := []byte{0, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0} // a deletion of "" at sequence 0
	for i := 8; i < 8+n; i++ {
		c = binary.AppendUvarint(c, uint64(i))
		c = append(c, 1, 0, 0)
	}
	c = binary.LittleEndian.AppendUint32(c, 0)
	return binary.LittleEndian.AppendUint32(c, 1)
}

// TestDeepPrefixManyBlocks repeats deep prefix compression in many blocks:
// each block is refused once its keys outgrow a multiple of its size, so
// the whole table cannot make the reader, or a check keeping every key,
// allocate more than a bounded multiple of the file.
func TestDeepPrefixManyBlocks(t *testing.T) {
	for _, n := range []int{50, 300, 610, 1000} {
		var data []byte
		var index []tabletest.KV
		for b := 0; b < 40; b++ {
			var h table.BlockHandle
			data, h = tabletest.AppendBlock(data, deepBlock(n), 0)
			k := table.AppendInternalKey(nil, table.InternalKey{UserKey: []byte{byte(b)}, Seq: 1, Kind: table.KindValue})
			index = append(index, tabletest.KV{Key: k, Value: table.AppendBlockHandle(nil, h)})
		}
		data, mh := tabletest.AppendBlock(data, tabletest.EncodeBlock(nil, 16), 0)
		data, ih := tabletest.AppendBlock(data, tabletest.EncodeBlock(index, 1), 0)
		data = tabletest.AppendFooter(data, mh, ih)
		var err error
		got := alloctest.Allocated(func() { err = checkAll("deep.ldb", data) })
		if err != nil {
			checkTableError(t, err, "deep.ldb", len(data), "times the block's size")
		}
		t.Logf("%d entries a block: %d-byte table, allocated %d bytes (%.0f times), error %v", n, len(data), got, float64(got)/float64(len(data)), err)
		if bound := 128*uint64(len(data)) + 1<<20; got > bound {
			t.Errorf("%d entries a block: allocated %d bytes (%.0f times) checking a %d-byte table; want at most %d", n, got, float64(got)/float64(len(data)), len(data), bound)
		}
	}
}

// snappyDeepBlock returns the snappy-compressed contents of a block whose
// first key is l bytes and whose n further entries each share all but the
// last byte of it: 5 bytes an entry, identical, which snappy compresses
// about twentyfold, each decoding to an l-byte key.
func snappyDeepBlock(l, n int) []byte {
	first := append(bytes.Repeat([]byte("a"), l-8), 1, 0, 0, 0, 0, 0, 0, 0)
	c := binary.AppendUvarint([]byte{0}, uint64(l))
	c = append(append(c, 0), first...)
	for i := 0; i < n; i++ {
		c = binary.AppendUvarint(c, uint64(l-1))
		c = append(c, 1, 0, 7)
	}
	c = binary.LittleEndian.AppendUint32(c, 0)
	c = binary.LittleEndian.AppendUint32(c, 1)
	return snappy.Encode(nil, c)
}

// TestSnappyDeepPrefix compounds the two expansions a block allows:
// snappy's (about 20 times) and prefix compression's. Keys may decode to
// many times the decompressed block's size, but not to more than a bounded
// multiple of the bytes stored in the file.
func TestSnappyDeepPrefix(t *testing.T) {
	stored := snappyDeepBlock(2000, 100000)
	data := oneBlockTable(stored, table.SnappyCompression)
	var err error
	got := alloctest.Allocated(func() { err = checkAll("snappydeep.ldb", data) })
	t.Logf("%d-byte table: allocated %d bytes (%.0f times), error %v", len(data), got, float64(got)/float64(len(data)), err)
	checkTableError(t, err, "snappydeep.ldb", len(data), "keys decode to more than 256 times the block's stored size")
	// Keys up to 256 times the stored block, the decompressed block (up to
	// 22 times) and each entry's bookkeeping.
	if bound := 400*uint64(len(data)) + 1<<20; got > bound {
		t.Errorf("allocated %d bytes (%.0f times) checking a %d-byte table; want at most %d", got, float64(got)/float64(len(data)), len(data), bound)
	}
}
