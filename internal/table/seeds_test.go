package table_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/internal/table"
	"github.com/ldbcompat/ldbcompat/internal/table/tabletest"
)

// The seed corpora of FuzzOpen and FuzzDataBlock in testdata/fuzz are
// derived from the tables C++ LevelDB wrote (testdata/tables) and written
// by this test:
//
//	LDBCOMPAT_WRITE_SEEDS=1 go test -run TestWriteFuzzSeeds ./internal/table
//
// The fixtures themselves are too large to be useful seeds (the fuzzer
// slows to a crawl on inputs of tens of KiB), so each seed keeps the first
// data block of a fixture table byte for byte, as C++ wrote it, and
// rebuilds the rest of a table around it.

// firstBlockTable returns a table holding the first data block of f as C++
// wrote it (contents and trailer), a filter block for its keys made with
// policy (none when nil), and an index keyed by C++'s first separator. It
// also returns the block's stored contents and compression type.
func firstBlockTable(t testing.TB, f fixtureTable, policy bloom.FilterPolicy) (file, stored []byte, comp byte) {
	t.Helper()
	tb := f.open(t)
	first := tb.Index()[0]
	h := first.Handle
	file = bytes.Clone(f.data[:h.End()])
	stored, comp = f.data[h.Offset:h.Offset+h.Size], f.data[h.Offset+h.Size]
	var meta []tabletest.KV
	if policy != nil {
		db, err := tb.ReadDataBlock(0)
		if err != nil {
			t.Fatal(err)
		}
		fb := bloom.NewFilterBlockBuilder(policy)
		fb.StartBlock(0)
		for _, e := range db.Entries {
			fb.AddKey(e.Key.UserKey)
		}
		fb.StartBlock(h.End())
		var fh table.BlockHandle
		file, fh = tabletest.AppendBlock(file, fb.Finish(), table.NoCompression)
		meta = append(meta, tabletest.KV{Key: []byte(table.FilterPrefix + policy.Name()), Value: table.AppendBlockHandle(nil, fh)})
	}
	file, mh := tabletest.AppendBlock(file, tabletest.EncodeBlock(meta, 16), table.NoCompression)
	idx := tabletest.EncodeBlock([]tabletest.KV{{Key: first.Separator, Value: table.AppendBlockHandle(nil, h)}}, 1)
	file, ih := tabletest.AppendBlock(file, idx, table.NoCompression)
	return tabletest.AppendFooter(file, mh, ih), stored, comp
}

func TestWriteFuzzSeeds(t *testing.T) {
	if os.Getenv("LDBCOMPAT_WRITE_SEEDS") == "" {
		t.Skip("writes testdata/fuzz; set LDBCOMPAT_WRITE_SEEDS=1 to regenerate the seed corpora")
	}
	byName := map[string]fixtureTable{}
	for _, f := range loadFixtures(t) {
		byName[f.name()] = f
	}
	for _, s := range []struct {
		seed, fixture string
		policy        bloom.FilterPolicy
	}{
		{"cxx-block-none-b1", "b1-bs128-none/000007.ldb", bloom.NewPolicy(1)},
		{"cxx-block-snappy-b16", "b16-bs128-snappy/000007.ldb", bloom.NewPolicy(16)},
		{"cxx-block-legacy-signed", "b10-bs4096-snappy/000009.ldb", bloom.NewLegacyPolicy(10, true)},
		{"cxx-block-no-filter", "b30-bs1024-none/000009.ldb", nil},
	} {
		f, ok := byName[s.fixture]
		if !ok {
			t.Fatalf("no fixture %s", s.fixture)
		}
		file, stored, comp := firstBlockTable(t, f, s.policy)
		if err := readAll(s.seed, bytes.NewReader(file), int64(len(file))); err != nil {
			t.Fatalf("%s: %v", s.seed, err)
		}
		tabletest.WriteSeed(t, "FuzzOpen", s.seed, file)
		tabletest.WriteSeed(t, "FuzzDataBlock", s.seed, stored, comp)
	}
	// A fixture's footer alone: its handles point before the file.
	f := byName["b10-bs4096-none/000007.ldb"]
	tabletest.WriteSeed(t, "FuzzOpen", "cxx-footer-only", f.data[len(f.data)-table.FooterSize:])
	// A RocksDB magic number, which gets its own message.
	rocks := bytes.Clone(f.data[len(f.data)-table.FooterSize:])
	copy(rocks[table.FooterSize-8:], []byte{0xf7, 0xcf, 0xf4, 0x85, 0xb7, 0x41, 0xe2, 0x88})
	tabletest.WriteSeed(t, "FuzzOpen", "rocksdb-magic", rocks)
	// A snappy block claiming far more than snappy can expand its size to.
	tabletest.WriteSeed(t, "FuzzDataBlock", "snappy-claims-4gib", []byte{0xff, 0xff, 0xff, 0xff, 0x0f, 0x00}, byte(table.SnappyCompression))
	// Deep prefix compression: every key repeats the previous one whole.
	tabletest.WriteSeed(t, "FuzzDataBlock", "deep-prefix", deepBlock(120), byte(table.NoCompression))
}
