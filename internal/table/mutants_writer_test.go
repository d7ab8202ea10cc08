package table_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/klauspost/compress/snappy"

	"github.com/ldbcompat/ldbcompat/internal/table"
	"github.com/ldbcompat/ldbcompat/internal/table/tabletest"
)

// Cases for the mutants of writer.go, file.go's InMemory and scan.go's
// BlockKeys that the vectors (TestWriterMatchesUpstreamVectors) leave.

// TestMutWriterSnappyThreshold checks table_builder.cc's rule at its
// edge: a block is stored compressed only when the encoder's output is
// shorter than raw - raw/8 (`compressed->size() < raw.size() -
// (raw.size() / 8u)`), so a block whose output is exactly that long is
// stored raw, and one a byte shorter is stored compressed. The values
// are random bytes then a run of zeros, tried until the encoder this
// module uses lands on each length.
func TestMutWriterSnappyThreshold(t *testing.T) {
	key := ms3IKey("k", 1)
	rng := rand.New(rand.NewPCG(7, 8))
	random := make([]byte, 400)
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	for _, c := range []struct {
		short int  // how much shorter than raw - raw/8 the encoder's output is
		want  byte // the compression the block is stored with
	}{{0, table.NoCompression}, {1, table.SnappyCompression}} {
		var value []byte
	search:
		for m := 1; m < len(random); m++ {
			for z := 0; z < 400; z++ {
				v := append(append([]byte(nil), random[:m]...), make([]byte, z)...)
				raw := tabletest.EncodeBlock([]tabletest.KV{{Key: key, Value: v}}, 16)
				if len(snappy.Encode(nil, raw)) == len(raw)-len(raw)/8-c.short {
					value = v
					break search
				}
			}
		}
		if value == nil {
			t.Fatalf("no value whose block compresses to raw - raw/8 - %d bytes", c.short)
		}
		w, err := table.NewWriter(table.WriterOptions{BlockSize: 1 << 20, RestartInterval: 16, Snappy: true})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Add(key, value); err != nil {
			t.Fatal(err)
		}
		data := w.Finish()
		tb, err := table.OpenBytes("edge.ldb", data, int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		b, err := tb.ReadBlock(tb.Index()[0].Handle, "data block")
		if err != nil {
			t.Fatal(err)
		}
		if b.Compression != c.want || !bytes.Equal(b.Contents, tabletest.EncodeBlock([]tabletest.KV{{Key: key, Value: value}}, 16)) {
			t.Errorf("output %d bytes under raw - raw/8: stored with compression %d; want %d", c.short, b.Compression, c.want)
		}
	}
}

// TestMutInMemory checks InMemory: a table opened from bytes reads from
// memory at once; one opened from a reader only once a scan has read the
// whole file.
func TestMutInMemory(t *testing.T) {
	data := tabletest.Build([]table.Entry{{Key: table.InternalKey{UserKey: []byte("a"), Seq: 1, Kind: table.KindValue}, Value: []byte("v")}}, tabletest.Options{})
	tb, err := table.OpenBytes("mem.ldb", data, int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if !tb.InMemory() {
		t.Error("a table opened from bytes: InMemory false")
	}
	tb = fmtOpen(t, "file.ldb", data)
	if tb.InMemory() {
		t.Error("a table opened from a reader: InMemory true before any scan")
	}
	if err := tb.Scan(func(table.ScanEntry) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if !tb.InMemory() {
		t.Error("InMemory false after a scan read the whole file")
	}
}

// TestMutBlockKeys checks BlockKeys: the keys of the i-th data block, in
// order, for each i in [0, blocks), an error naming the range outside it,
// and DBIter's check of each key (db/db_iter.cc ParseKey): keys up to the
// first that is no internal key are passed on, none after it, and the
// error is "corrupted internal key" at that entry, as a scan reports it.
func TestMutBlockKeys(t *testing.T) {
	var entries []table.Entry
	for i, u := range []string{"a", "b", "c"} {
		entries = append(entries, table.Entry{Key: table.InternalKey{UserKey: []byte(u), Seq: uint64(10 - i), Kind: table.KindValue}, Value: []byte("v")})
	}
	data := tabletest.Build(entries, tabletest.Options{BlockSize: 1})
	tb := fmtOpen(t, "keys.ldb", data)
	if tb.NumDataBlocks() != len(entries) {
		t.Fatalf("%d data blocks; want %d", tb.NumDataBlocks(), len(entries))
	}
	for i, e := range entries {
		var got [][]byte
		if err := tb.BlockKeys(i, func(k []byte) { got = append(got, append([]byte(nil), k...)) }); err != nil {
			t.Fatalf("BlockKeys(%d): %v", i, err)
		}
		if want := table.AppendInternalKey(nil, e.Key); len(got) != 1 || !bytes.Equal(got[0], want) {
			t.Errorf("BlockKeys(%d) = %x; want [%x]", i, got, want)
		}
	}
	for _, i := range []int{-1, len(entries)} {
		err := tb.BlockKeys(i, func([]byte) { t.Errorf("BlockKeys(%d) called fn", i) })
		want := fmt.Sprintf("table keys.ldb: data block %d out of range [0, %d)", i, len(entries))
		if err == nil || err.Error() != want {
			t.Errorf("BlockKeys(%d) = %v; want %q", i, err, want)
		}
	}

	kv := []tabletest.KV{
		{Key: ms3IKey("a", 1), Value: []byte("v0")},
		{Key: []byte("short"), Value: []byte("v1")},
		{Key: ms3IKey("b", 1), Value: []byte("v2")},
		{Key: []byte("tiny"), Value: []byte("v3")},
	}
	bad, dh := ms3Table(tabletest.EncodeBlock(kv, 1), table.NoCompression, ms3IKey("b", 1))
	tb = fmtOpen(t, "badkey.ldb", bad)
	var got [][]byte
	err := tb.BlockKeys(0, func(k []byte) { got = append(got, append([]byte(nil), k...)) })
	if len(got) != 1 || !bytes.Equal(got[0], kv[0].Key) {
		t.Errorf("BlockKeys on a bad key: keys %x; want only %x, the one before it", got, kv[0].Key)
	}
	cur := 3 + 9 + 2 // entry 0: three one-byte lengths, its key and value
	ms3Want(t, "BlockKeys on a bad key", err, "badkey.ldb", dh.Offset+uint64(cur),
		fmt.Sprintf("data block 0 %s: entry 1: internal key of 5 bytes is shorter than its 8-byte tag", dh),
		"Corruption: corrupted internal key in DBIter")
}
