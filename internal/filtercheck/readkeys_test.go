package filtercheck_test

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/internal/filterblock"
	"github.com/ldbcompat/ldbcompat/internal/filtercheck"
	"github.com/ldbcompat/ldbcompat/internal/table"
	"github.com/ldbcompat/ldbcompat/internal/table/tabletest"
)

// readKeysSlowly is ReadKeys written plainly, with DataBlocks: each key
// with its hash as BlockKeys defines it.
func readKeysSlowly(t *table.Table) ([]filtercheck.BlockKeys, error) {
	var blocks []filtercheck.BlockKeys
	err := t.DataBlocks(func(b *table.DataBlock) error {
		keys := make([][]byte, len(b.Entries))
		hashes := make([]uint32, len(b.Entries))
		for i, e := range b.Entries {
			keys[i] = e.Key.UserKey
			hashes[i] = bloom.Hash(e.Key.UserKey, filterblock.Seed)
		}
		blocks = append(blocks, filtercheck.BlockKeys{Handle: b.Handle, Keys: keys, Hashes: hashes})
		return nil
	})
	return blocks, err
}

// diffBlocks is cmp.Diff of the blocks' exported fields, compared plainly
// first: cmp's reflection over the fixtures' keys took 98% of the test's
// time (minutes under qemu-user), and it is needed only to show a difference.
func diffBlocks(want, got []filtercheck.BlockKeys) string {
	same := len(want) == len(got) && (want == nil) == (got == nil)
	for i := 0; same && i < len(want); i++ {
		w, g := want[i], got[i]
		same = w.Handle == g.Handle && len(w.Keys) == len(g.Keys) && (w.Keys == nil) == (g.Keys == nil) &&
			slices.Equal(w.Hashes, g.Hashes) && (w.Hashes == nil) == (g.Hashes == nil)
		for j := 0; same && j < len(w.Keys); j++ {
			same = bytes.Equal(w.Keys[j], g.Keys[j]) && (w.Keys[j] == nil) == (g.Keys[j] == nil)
		}
	}
	if same {
		return ""
	}
	return cmp.Diff(want, got, cmpopts.IgnoreUnexported(filtercheck.BlockKeys{}))
}

// TestReadKeysPlain checks ReadKeys against readKeysSlowly on the fixture
// tables and on a table with empty user keys and an empty data block.
func TestReadKeysPlain(t *testing.T) {
	files := tabletest.ReadFiles(t, "../../testdata/tables/*/*.ldb")
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
		tb := openBytes(t, name, data)
		want, werr := readKeysSlowly(tb)
		got, gerr := filtercheck.ReadKeys(tb)
		if werr != nil || gerr != nil {
			t.Fatalf("%s: errors %v, %v", name, gerr, werr)
		}
		if diff := diffBlocks(want, got); diff != "" {
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
	// ReadHashes, in turn with ReadKeys, reads the same but the keys.
	var store filtercheck.KeyStore
	for i, name := range order {
		data := files[name]
		tb := openBytes(t, name, data)
		want, _ := readKeysSlowly(tb)
		got, err := store.ReadKeys(tb)
		if err != nil {
			t.Fatalf("%s: KeyStore.ReadKeys: %v", name, err)
		}
		if diff := diffBlocks(want, got); diff != "" {
			t.Errorf("%s: KeyStore.ReadKeys, its memory used before, differs from reading the keys with DataBlocks (-DataBlocks +ReadKeys):\n%s", name, diff)
		}
		if i%2 == 1 {
			continue // the next ReadKeys reuses what ReadKeys used
		}
		for j := range want {
			if n := want[j].Len(); n != len(want[j].Keys) {
				t.Fatalf("%s: block %d: Len %d with %d keys", name, j, n, len(want[j].Keys))
			}
			want[j].Keys = nil
		}
		got, err = store.ReadHashes(tb)
		if err != nil {
			t.Fatalf("%s: KeyStore.ReadHashes: %v", name, err)
		}
		if diff := diffBlocks(want, got); diff != "" {
			t.Errorf("%s: KeyStore.ReadHashes differs from reading the keys' hashes with DataBlocks (-DataBlocks +ReadHashes):\n%s", name, diff)
		}
		for j := range got {
			if got[j].Len() != len(got[j].Hashes) {
				t.Fatalf("%s: block %d: Len %d with %d hashes and no keys", name, j, got[j].Len(), len(got[j].Hashes))
			}
		}
	}
}

// TestBuildFromHashes: Build makes a bloom filter's block of the hashes
// ReadKeys keeps (the same block as from the keys alone), unless they
// cannot be the keys' (a count that differs) or the policy hashes
// otherwise (the legacy hash of signed tail bytes), when it hashes the
// keys. A wrong hash where the hashes are used changes the block: that is
// how the test tells which were used.
func TestBuildFromHashes(t *testing.T) {
	var blocks []filtercheck.BlockKeys
	for _, f := range tabletest.Fixtures(t, "../../testdata/tables") {
		bs, err := filtercheck.ReadKeys(f.Open(t))
		if err != nil {
			t.Fatal(err)
		}
		if len(bs) > 1 && len(bs[0].Keys) > 1 {
			blocks = bs
			break
		}
	}
	if blocks == nil {
		t.Fatal("no fixture table with two data blocks")
	}
	keysOnly := make([]filtercheck.BlockKeys, len(blocks))
	for i, b := range blocks {
		keysOnly[i] = filtercheck.BlockKeys{Handle: b.Handle, Keys: b.Keys}
	}
	withHashes := func(edit func(h []uint32) []uint32) []filtercheck.BlockKeys {
		bs := make([]filtercheck.BlockKeys, len(blocks))
		copy(bs, blocks)
		bs[0].Hashes = edit(append([]uint32(nil), blocks[0].Hashes...))
		return bs
	}
	wrong := withHashes(func(h []uint32) []uint32 { h[0] = ^h[0]; return h })
	short := withHashes(func(h []uint32) []uint32 { h[0] = ^h[0]; return h[1:] })
	for _, tc := range []struct {
		name       string
		p          bloom.FilterPolicy
		usesHashes bool
	}{
		{"current", bloom.NewPolicy(10), true},
		{"legacy unsigned", bloom.NewLegacyPolicy(10, false), true},
		{"legacy signed", bloom.NewLegacyPolicy(10, true), false},
	} {
		want := filtercheck.Build(keysOnly, tc.p)
		if got := filtercheck.Build(blocks, tc.p); !bytes.Equal(got, want) {
			t.Errorf("%s: the block of ReadKeys' hashes differs from the keys'", tc.name)
		}
		if got := filtercheck.Build(short, tc.p); !bytes.Equal(got, want) {
			t.Errorf("%s: hashes fewer than the keys were used", tc.name)
		}
		if got := filtercheck.Build(wrong, tc.p); bytes.Equal(got, want) == tc.usesHashes {
			t.Errorf("%s: a wrong hash changed the block: %v, want %v", tc.name, !bytes.Equal(got, want), tc.usesHashes)
		}
	}
}

// TestCompareHashes: the comparison verify makes from ReadHashes' blocks
// is CompareTable's, where it is made at all; it is not made where it
// takes keys (a legacy filter, which may hash tail bytes signed), but is
// for a table without keys, where nothing takes them.
func TestCompareHashes(t *testing.T) {
	// Data blocks without entries, and one with keys.
	meta := tabletest.EncodeBlock(nil, 16)
	table2 := func(withKeys bool) []byte {
		var file []byte
		var index []tabletest.KV
		for b := 0; b < 3; b++ {
			var kvs []tabletest.KV
			if withKeys && b == 1 {
				kvs = []tabletest.KV{{Key: ikey("a\x80", 1)}, {Key: ikey("b", 1)}}
			}
			var h table.BlockHandle
			file, h = tabletest.AppendBlock(file, tabletest.EncodeBlock(kvs, 16), table.NoCompression)
			index = append(index, tabletest.KV{Key: ikey(string(rune('a'+b)), 1), Value: table.AppendBlockHandle(nil, h)})
		}
		file, mh := tabletest.AppendBlock(file, meta, table.NoCompression)
		file, ih := tabletest.AppendBlock(file, tabletest.EncodeBlock(index, 1), table.NoCompression)
		return tabletest.AppendFooter(file, mh, ih)
	}
	for _, tc := range []struct {
		name     string
		withKeys bool
		policy   string
		want     bool // compared from the hashes
	}{
		{"no keys, current", false, bloom.PolicyName, true},
		{"no keys, legacy", false, bloom.LegacyPolicyName, true},
		{"no keys, other", false, "leveldb.OtherFilter", true},
		{"keys, current", true, bloom.PolicyName, true},
		// The keys read again from the table (BlockKeys.EachKey).
		{"keys, legacy", true, bloom.LegacyPolicyName, true},
		{"keys, other", true, "leveldb.OtherFilter", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plain, err := tabletest.ReplaceFilter(table2(tc.withKeys), "", nil)
			if err != nil {
				t.Fatal(err)
			}
			tb := openBytes(t, "t.ldb", plain)
			blocks := readKeys(t, tb)
			p := bloom.NewPolicy(10)
			if tc.policy == bloom.LegacyPolicyName {
				p = bloom.NewLegacyPolicy(10, true)
			}
			data, err := tabletest.ReplaceFilter(plain, tc.policy, filtercheck.Build(blocks, p))
			if err != nil {
				t.Fatal(err)
			}
			if tb, err = table.Open("t.ldb", bytes.NewReader(data), int64(len(data))); err != nil {
				t.Fatal(err)
			}
			want := compareTable(t, tb)
			hashes := readHashes(t, tb)
			_, stored, _ := tb.FilterBlock()
			h, _ := tb.FilterHandle()
			got, ok := filtercheck.CompareHashes(hashes, tc.policy, h, stored)
			if ok != tc.want {
				t.Fatalf("CompareHashes compared: %v, want %v", ok, tc.want)
			}
			if !ok {
				return
			}
			if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(filtercheck.Comparison{}, "Blocks")); diff != "" {
				t.Errorf("CompareHashes differs from CompareTable (-keys +hashes):\n%s", diff)
			}
		})
	}
}

// TestEachKey: a block's keys, kept (ReadKeys) or read again from the
// table (ReadHashes), are the keys DataBlocks reads, and EachKey reports
// that it gave them all; blocks of hashes made by hand have no keys to
// give, unless they have no hashes either. Hashes fewer than the block's
// entries (the table reads otherwise than when they were read) stand for
// as many keys: only those are given, and EachKey reports false.
func TestEachKey(t *testing.T) {
	tb := buildTable(t, 300, tabletest.Options{BlockSize: 400, Policy: bloom.NewPolicy(10)})
	want, err := readKeysSlowly(tb)
	if err != nil {
		t.Fatal(err)
	}
	if len(want) < 2 {
		t.Fatalf("%d data blocks; want several", len(want))
	}
	kept := readKeys(t, tb)
	hashed := readHashes(t, tb)
	each := func(b *filtercheck.BlockKeys) ([][]byte, bool) {
		var keys [][]byte
		ok := b.EachKey(func(k []byte) { keys = append(keys, bytes.Clone(k)) })
		return keys, ok
	}
	for name, blocks := range map[string][]filtercheck.BlockKeys{"ReadKeys": kept, "ReadHashes": hashed} {
		if len(blocks) != len(want) {
			t.Fatalf("%s: %d blocks, want %d", name, len(blocks), len(want))
		}
		for i := range blocks {
			keys, ok := each(&blocks[i])
			if !ok || !slices.EqualFunc(keys, want[i].Keys, bytes.Equal) {
				t.Fatalf("%s: block %d: EachKey gave %q, %v; want %q, true", name, i, keys, ok, want[i].Keys)
			}
		}
	}

	b := hashed[1]
	n := len(b.Hashes)
	b.Hashes = b.Hashes[:n-1]
	if keys, ok := each(&b); ok || !slices.EqualFunc(keys, want[1].Keys[:n-1], bytes.Equal) {
		t.Errorf("hashes for all but the last of %d keys: EachKey gave %q, %v; want the first %d keys, false", n, keys, ok, n-1)
	}

	for _, tc := range []struct {
		name string
		b    filtercheck.BlockKeys
		want bool
	}{
		{"hashes alone", filtercheck.BlockKeys{Hashes: []uint32{1, 2}}, false},
		{"nothing", filtercheck.BlockKeys{}, true},
		{"keys and hashes", filtercheck.BlockKeys{Keys: [][]byte{[]byte("a")}, Hashes: []uint32{bloom.Hash([]byte("a"), filterblock.Seed)}}, true},
	} {
		keys, ok := each(&tc.b)
		if ok != tc.want || !slices.EqualFunc(keys, tc.b.Keys, bytes.Equal) {
			t.Errorf("%s: EachKey gave %q, %v; want %q, %v", tc.name, keys, ok, tc.b.Keys, tc.want)
		}
	}
}

// TestCompareHashesAlone: blocks of hashes without their table (made by
// hand) rebuild a filter block of the policy named bloom.PolicyName,
// which is made of the keys' hashes: the comparison is made, and the
// block built from the keys matches. A legacy or another policy's block
// takes the keys, which such blocks cannot give: nothing is compared.
func TestCompareHashesAlone(t *testing.T) {
	var keyed, hashed []filtercheck.BlockKeys
	off := uint64(0)
	for b := 0; b < 4; b++ {
		h := table.BlockHandle{Offset: off, Size: 1500}
		off = h.End()
		var keys [][]byte
		var hashes []uint32
		for i := 0; i < 30; i++ {
			k := []byte(fmt.Sprintf("key%d-%d", b, i))
			keys = append(keys, k)
			hashes = append(hashes, bloom.Hash(k, filterblock.Seed))
		}
		keyed = append(keyed, filtercheck.BlockKeys{Handle: h, Keys: keys})
		hashed = append(hashed, filtercheck.BlockKeys{Handle: h, Hashes: hashes})
	}
	fh := table.BlockHandle{Offset: off, Size: 0}
	stored := filtercheck.Build(keyed, bloom.NewPolicy(10))
	r, ok := filtercheck.CompareHashes(hashed, bloom.PolicyName, fh, stored)
	if !ok || r.Match != filtercheck.MatchOK || r.Keys != 120 || r.DataBlocks != 4 {
		t.Errorf("%s: compared %v, %+v; want a match of 120 keys in 4 blocks", bloom.PolicyName, ok, r)
	}
	damaged := bytes.Clone(stored)
	damaged[5] ^= 0x10
	if r, ok := filtercheck.CompareHashes(hashed, bloom.PolicyName, fh, damaged); !ok || r.Match != filtercheck.MatchDiffers || r.Diff == nil || r.Diff.Offset != 5 {
		t.Errorf("%s, byte 5 flipped: compared %v, %+v; want a mismatch at byte 5", bloom.PolicyName, ok, r)
	}
	for _, name := range []string{bloom.LegacyPolicyName, "leveldb.OtherFilter"} {
		if r, ok := filtercheck.CompareHashes(hashed, name, fh, stored); ok || r != nil {
			t.Errorf("%s: compared %v, %+v; want nothing compared", name, ok, r)
		}
	}
}
