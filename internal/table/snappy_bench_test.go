package table

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/s2"
)

// benchSnappyBlocks returns the stored contents of every snappy-compressed
// data block in the *.ldb tables of the LevelDB directory that
// LDBCOMPAT_BENCH_DB names, and every data block's contents (decompressed
// when stored compressed) encoded again by klauspost's snappy encoder: a
// database whose writer stored its blocks uncompressed (snappy saving too
// little) has none of the first. It skips tb when the variable names no
// directory.
func benchSnappyBlocks(tb testing.TB) (stored, reencoded [][]byte) {
	dir := os.Getenv("LDBCOMPAT_BENCH_DB")
	if dir == "" {
		tb.Skip("LDBCOMPAT_BENCH_DB names no LevelDB directory")
	}
	names, err := filepath.Glob(filepath.Join(dir, "*.ldb"))
	if err != nil || len(names) == 0 {
		tb.Fatalf("no *.ldb tables in %s (%v)", dir, err)
	}
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
			if !e.HandleOK || h.End() > uint64(len(data)) {
				continue
			}
			contents := data[h.Offset : h.Offset+h.Size : h.Offset+h.Size]
			switch data[h.Offset+h.Size] {
			case SnappyCompression:
				stored = append(stored, contents)
				raw, ok, _ := refDecodeSnappy(nil, contents, maxSnappyRatio*uint64(len(contents)))
				if !ok {
					tb.Fatalf("%s: data block %s does not decode", name, h)
				}
				contents = raw
			case NoCompression:
			default:
				continue
			}
			reencoded = append(reencoded, s2.EncodeSnappy(nil, contents))
		}
	}
	return stored, reencoded
}

// BenchmarkSnappyDecode decodes every snappy data block of the database
// that LDBCOMPAT_BENCH_DB names (blocks=stored), or every data block
// encoded again by klauspost's encoder (blocks=reencoded), once per
// iteration, with the reference (the validating walk, then the S2
// decoder: impl=old) and with decodeSnappy (impl=new).
func BenchmarkSnappyDecode(b *testing.B) {
	stored, reencoded := benchSnappyBlocks(b)
	for _, set := range []struct {
		name   string
		blocks [][]byte
	}{{"stored", stored}, {"reencoded", reencoded}} {
		b.Run("blocks="+set.name, func(b *testing.B) {
			if len(set.blocks) == 0 {
				b.Skip("no such blocks")
			}
			var in, out int64
			for _, src := range set.blocks {
				got, ok, _ := refDecodeSnappy(nil, src, maxSnappyRatio*uint64(len(src)))
				if !ok {
					b.Fatalf("a block of %d bytes does not decode", len(src))
				}
				in += int64(len(src))
				out += int64(len(got))
			}
			b.Logf("%d blocks, %d bytes stored, %d decoded", len(set.blocks), in, out)
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
					for i := 0; i < b.N; i++ {
						for _, src := range set.blocks {
							dst, ok, _ := bm.decode(scratch, src, maxSnappyRatio*uint64(len(src)))
							if !ok {
								b.Fatal("a block does not decode")
							}
							scratch = dst
						}
					}
				})
			}
		})
	}
}
