package table

import (
	"os"
	"path/filepath"
	"testing"
)

// benchSnappyBlocks returns the stored contents of every snappy-compressed
// data block in the *.ldb tables of the LevelDB directory that
// LDBCOMPAT_BENCH_DB names, skipping b when it names none.
func benchSnappyBlocks(tb testing.TB) [][]byte {
	dir := os.Getenv("LDBCOMPAT_BENCH_DB")
	if dir == "" {
		tb.Skip("LDBCOMPAT_BENCH_DB names no LevelDB directory")
	}
	names, err := filepath.Glob(filepath.Join(dir, "*.ldb"))
	if err != nil || len(names) == 0 {
		tb.Fatalf("no *.ldb tables in %s (%v)", dir, err)
	}
	var blocks [][]byte
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			tb.Fatal(err)
		}
		t, err := OpenBytes(name, data, int64(len(data)))
		if err != nil {
			tb.Fatal(err)
		}
		for _, e := range t.Index() {
			h := e.Handle
			if !e.HandleOK || h.End() > uint64(len(data)) || data[h.Offset+h.Size] != SnappyCompression {
				continue
			}
			blocks = append(blocks, data[h.Offset:h.Offset+h.Size:h.Offset+h.Size])
		}
	}
	if len(blocks) == 0 {
		tb.Skipf("no snappy data blocks in %s", dir)
	}
	return blocks
}

// BenchmarkSnappyDecode decodes every snappy data block of the database
// that LDBCOMPAT_BENCH_DB names, once per iteration, with the reference
// (the validating walk, then the S2 decoder) and with decodeSnappy.
func BenchmarkSnappyDecode(b *testing.B) {
	blocks := benchSnappyBlocks(b)
	var in, out int64
	for _, src := range blocks {
		got, ok, _ := refDecodeSnappy(nil, src, maxSnappyRatio*uint64(len(src)))
		if !ok {
			b.Fatalf("a block of %d bytes does not decode", len(src))
		}
		in += int64(len(src))
		out += int64(len(got))
	}
	b.Logf("%d blocks, %d bytes stored, %d decoded", len(blocks), in, out)
	for _, bm := range []struct {
		name   string
		decode func(dst, src []byte, maxLen uint64) ([]byte, bool, bool)
	}{
		{"impl=old", refDecodeSnappy},
		{"impl=new", decodeSnappy},
	} {
		b.Run(bm.name, func(b *testing.B) {
			var scratch []byte
			b.SetBytes(out)
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				for _, src := range blocks {
					dst, ok, _ := bm.decode(scratch, src, maxSnappyRatio*uint64(len(src)))
					if !ok {
						b.Fatal("a block does not decode")
					}
					scratch = dst
				}
			}
		})
	}
}
