package filtercheck_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ldbcompat/ldbcompat/internal/filtercheck"
	"github.com/ldbcompat/ldbcompat/internal/table"
	"github.com/ldbcompat/ldbcompat/internal/table/tabletest"
)

// readKeysSlowly is ReadKeys written plainly, with DataBlocks.
func readKeysSlowly(t *table.Table) ([]filtercheck.BlockKeys, error) {
	var blocks []filtercheck.BlockKeys
	err := t.DataBlocks(func(b *table.DataBlock) error {
		keys := make([][]byte, len(b.Entries))
		for i, e := range b.Entries {
			keys[i] = e.Key.UserKey
		}
		blocks = append(blocks, filtercheck.BlockKeys{Handle: b.Handle, Keys: keys})
		return nil
	})
	return blocks, err
}

// TestReadKeysPlain checks ReadKeys against readKeysSlowly on the fixture
// tables and on a table with empty user keys and an empty data block.
func TestReadKeysPlain(t *testing.T) {
	paths, err := filepath.Glob("../../testdata/tables/*/*.ldb")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		files[p] = data
	}
	// Empty user keys, an empty block and a long key; and an empty
	// block first.
	meta := tabletest.EncodeBlock(nil, 16)
	for name, blocks := range map[string][][]tabletest.KV{
		"crafted": {
			{{Key: ikey("", 2)}, {Key: ikey("", 1)}, {Key: ikey("a", 1)}},
			{},
			{{Key: ikey(string(bytes.Repeat([]byte("b"), 100000)), 1)}, {Key: ikey("c", 1)}},
		},
		"empty block first": {{}, {{Key: ikey("a", 1)}}},
	} {
		var file []byte
		var index []tabletest.KV
		for _, kvs := range blocks {
			var h table.BlockHandle
			file, h = tabletest.AppendBlock(file, tabletest.EncodeBlock(kvs, 16), table.NoCompression)
			index = append(index, tabletest.KV{Key: ikey(string(rune('a'+len(index))), 1), Value: table.AppendBlockHandle(nil, h)})
		}
		file, mh := tabletest.AppendBlock(file, meta, table.NoCompression)
		file, ih := tabletest.AppendBlock(file, tabletest.EncodeBlock(index, 1), table.NoCompression)
		files[name] = tabletest.AppendFooter(file, mh, ih)
	}
	// Keys that are most of the table (no values, no shared prefixes),
	// in 40 blocks: ReadKeys needs many chunks of memory for them.
	var file []byte
	var index []tabletest.KV
	for b := 0; b < 40; b++ {
		var kvs []tabletest.KV
		for i := 0; i < 500; i++ {
			kvs = append(kvs, tabletest.KV{Key: ikey(fmt.Sprintf("%03d-%06d-%x", b, i, i*7919), 1)})
		}
		var h table.BlockHandle
		file, h = tabletest.AppendBlock(file, tabletest.EncodeBlock(kvs, 1), table.NoCompression)
		index = append(index, tabletest.KV{Key: ikey(fmt.Sprintf("%03d~", b), 1), Value: table.AppendBlockHandle(nil, h)})
	}
	file, mh := tabletest.AppendBlock(file, meta, table.NoCompression)
	file, ih := tabletest.AppendBlock(file, tabletest.EncodeBlock(index, 1), table.NoCompression)
	files["keys only"] = tabletest.AppendFooter(file, mh, ih)
	if len(files) < 2 {
		t.Fatal("no fixture tables")
	}
	for name, data := range files {
		tb, err := table.Open(name, bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		want, werr := readKeysSlowly(tb)
		got, gerr := filtercheck.ReadKeys(tb)
		if werr != nil || gerr != nil {
			t.Fatalf("%s: errors %v, %v", name, gerr, werr)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: ReadKeys differs from reading the keys with DataBlocks (-DataBlocks +ReadKeys):\n%s", name, diff)
		}
	}

	// One KeyStore reading every table in turn, twice over, small tables
	// after large ones and the other way round, reuses memory that held
	// other keys: each result must still be the table's own keys.
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Slice(names, func(i, j int) bool { return len(files[names[i]]) > len(files[names[j]]) })
	order := append(append([]string{}, names...), names...)
	for i, j := 0, len(names)-1; i < j; i, j = i+1, j-1 {
		order[i], order[j] = order[j], order[i]
	}
	var store filtercheck.KeyStore
	for _, name := range order {
		data := files[name]
		tb, err := table.Open(name, bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		want, _ := readKeysSlowly(tb)
		got, err := store.ReadKeys(tb)
		if err != nil {
			t.Fatalf("%s: KeyStore.ReadKeys: %v", name, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: KeyStore.ReadKeys, its memory used before, differs from reading the keys with DataBlocks (-DataBlocks +ReadKeys):\n%s", name, diff)
		}
	}
}
