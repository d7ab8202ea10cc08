package filtercheck_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/internal/filtercheck"
	"github.com/ldbcompat/ldbcompat/internal/table"
	"github.com/ldbcompat/ldbcompat/internal/table/tabletest"
)

// TestCompare covers each way two blocks can differ: a byte, a length,
// both, at the start, in the middle and at the end.
func TestCompare(t *testing.T) {
	long := bytes.Repeat([]byte{0xa5}, 300)
	at := func(i int, v byte) string {
		b := bytes.Clone(long)
		b[i] = v
		return string(b)
	}
	for _, tc := range []struct {
		stored, rebuilt string
		want            string // "" for equal
	}{
		{"", "", ""},
		{"abc", "abc", ""},
		{string(long), string(long), ""},
		{"abc", "abd", "byte 2: stored 0x63, rebuilt 0x64"},
		{"abc", "xbc", "byte 0: stored 0x61, rebuilt 0x78"},
		{"abc", "ab", "byte 2: stored 0x63, rebuilt end of block (stored 3 bytes, rebuilt 2)"},
		{"ab", "abc", "byte 2: stored end of block, rebuilt 0x63 (stored 2 bytes, rebuilt 3)"},
		{"", "x", "byte 0: stored end of block, rebuilt 0x78 (stored 0 bytes, rebuilt 1)"},
		{"x", "", "byte 0: stored 0x78, rebuilt end of block (stored 1 bytes, rebuilt 0)"},
		// The first difference wins over a later one and over the lengths.
		{"abcdef", "abXdeY", "byte 2: stored 0x63, rebuilt 0x58"},
		{"abcdef", "aXc", "byte 1: stored 0x62, rebuilt 0x58 (stored 6 bytes, rebuilt 3)"},
		// Long blocks differing in their middle and in their last byte.
		{at(150, 0x00), string(long), "byte 150: stored 0x00, rebuilt 0xa5"},
		{string(long), at(299, 0xff), "byte 299: stored 0xa5, rebuilt 0xff"},
	} {
		d := filtercheck.FirstDiff([]byte(tc.stored), []byte(tc.rebuilt))
		got := ""
		if d != nil {
			got = d.String()
		}
		if got != tc.want {
			t.Errorf("Compare(%q, %q) = %q, want %q", tc.stored, tc.rebuilt, got, tc.want)
		}
	}
}

// TestCompareRandom checks Compare's Diff against its definition on
// random pairs of blocks that share a random prefix: the blocks agree
// before Offset and differ at it (a byte or an end), Stored and Rebuilt
// are the bytes there or -1, and the lengths are the blocks'.
func TestCompareRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 2000; i++ {
		stored := make([]byte, rng.IntN(40))
		for j := range stored {
			stored[j] = byte(rng.IntN(3)) // few values, so that bytes often agree
		}
		rebuilt := bytes.Clone(stored[:rng.IntN(len(stored)+1)])
		for n := rng.IntN(40); len(rebuilt) < n; {
			rebuilt = append(rebuilt, byte(rng.IntN(3)))
		}
		d := filtercheck.FirstDiff(stored, rebuilt)
		if bytes.Equal(stored, rebuilt) {
			if d != nil {
				t.Fatalf("Compare(% x, % x) = %v for equal blocks", stored, rebuilt, d)
			}
			continue
		}
		if d == nil {
			t.Fatalf("Compare(% x, % x) = nil for different blocks", stored, rebuilt)
		}
		o := d.Offset
		byteAt := func(b []byte) int {
			if o < len(b) {
				return int(b[o])
			}
			return -1
		}
		if o > min(len(stored), len(rebuilt)) || !bytes.Equal(stored[:o], rebuilt[:o]) ||
			byteAt(stored) == byteAt(rebuilt) || d.Stored != byteAt(stored) || d.Rebuilt != byteAt(rebuilt) ||
			d.StoredLen != len(stored) || d.RebuiltLen != len(rebuilt) {
			t.Fatalf("Compare(% x, % x) = %+v", stored, rebuilt, d)
		}
	}
}

// readKeys returns tb's keys as ReadKeys reads them, failing the test on
// an error; readHashes and compareTable do the same for ReadHashes and
// CompareTable.
func readKeys(t *testing.T, tb *table.Table) []filtercheck.BlockKeys {
	t.Helper()
	b, err := filtercheck.ReadKeys(tb)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func readHashes(t *testing.T, tb *table.Table) []filtercheck.BlockKeys {
	t.Helper()
	b, err := new(filtercheck.KeyStore).ReadHashes(tb)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func compareTable(t *testing.T, tb *table.Table) *filtercheck.Comparison {
	t.Helper()
	r, err := filtercheck.CompareTable(tb)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// buildTable writes a table of n entries whose user keys end in bytes >=
// 0x80 and returns it opened.
func buildTable(t *testing.T, n int, o tabletest.Options) *table.Table {
	t.Helper()
	var es []table.Entry
	for i := 0; i < n; i++ {
		k := table.InternalKey{UserKey: []byte(fmt.Sprintf("user%05d\xe9", i)), Seq: uint64(n - i), Kind: table.KindValue}
		es = append(es, table.Entry{Key: k, Value: []byte("some value")})
	}
	data := tabletest.Build(es, o)
	tb := openBytes(t, "t.ldb", data)
	return tb
}

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		policy bloom.FilterPolicy
		status filtercheck.Match
		legacy string
	}{
		{nil, filtercheck.MatchNoFilter, ""},
		{bloom.NewPolicy(12), filtercheck.MatchOK, ""},
		{bloom.NewLegacyPolicy(12, false), filtercheck.MatchOK, filtercheck.LegacyUnsigned},
		{bloom.NewLegacyPolicy(12, true), filtercheck.MatchOK, filtercheck.LegacySigned},
		{renamed{bloom.NewPolicy(12), "my.Filter"}, filtercheck.MatchUnknownPolicy, ""},
		// The current hash under the legacy name is what old releases
		// wrote on ARM; the signed hash under the current name is wrong.
		{renamed{bloom.NewPolicy(12), bloom.LegacyPolicyName}, filtercheck.MatchOK, filtercheck.LegacyUnsigned},
		{renamed{bloom.NewLegacyPolicy(12, true), bloom.PolicyName}, filtercheck.MatchDiffers, ""},
	} {
		tb := buildTable(t, 500, tabletest.Options{BlockSize: 700, Policy: tc.policy})
		r := compareTable(t, tb)
		name := "none"
		if tc.policy != nil {
			name = tc.policy.Name()
		}
		if r.Match != tc.status || r.Legacy != tc.legacy || r.Keys != 500 || r.DataBlocks != tb.NumDataBlocks() {
			t.Errorf("%s: %+v; want status %s, legacy %q", name, r, tc.status, tc.legacy)
		}
		if tc.status == filtercheck.MatchOK && (r.Params.MinBitsPerKey > 12 || r.Params.MaxBitsPerKey < 12) {
			t.Errorf("%s: inferred %v, built with 12", name, r.Params)
		}
		if (tc.status == filtercheck.MatchDiffers) != (r.Diff != nil) {
			t.Errorf("%s: status %s with diff %v", name, r.Match, r.Diff)
		}
	}
}

// renamed is a policy under another name.
type renamed struct {
	bloom.FilterPolicy
	name string
}

func (r renamed) Name() string { return r.name }

// ExampleCheck checks a table written by C++ LevelDB 1.23.
func ExampleCompareTable() {
	path := filepath.Join("..", "..", "testdata", "tables", "b10-bs4096-snappy", "000007.ldb")
	data, err := os.ReadFile(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	t, err := table.Open("000007.ldb", bytes.NewReader(data), int64(len(data)))
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := filtercheck.CompareTable(t)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Match, r.Policy)
	fmt.Println(r.Params)
	// Output:
	// ok leveldb.BuiltinBloomFilter2
	// bits/key 10, k 6
}

// TestHashesDiffer: the two hashes of LevelDB's history differ on a key
// exactly when HashesDiffer says so (sign-extending a tail byte changes
// the sum, and every later step of the hash is a bijection), on random
// keys of every length mod 4 with bytes drawn mostly below 0x80.
func TestHashesDiffer(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	differ := 0
	for i := 0; i < 5000; i++ {
		k := make([]byte, rng.IntN(12))
		for j := range k {
			k[j] = byte(rng.IntN(0x84))
		}
		want := bloom.Hash(k, 0xbc9f1d34) != bloom.HashSignedTail(k, 0xbc9f1d34)
		if got := filtercheck.HashesDiffer([]filtercheck.BlockKeys{{Keys: [][]byte{k}}}); got != want {
			t.Fatalf("HashesDiffer(%x) = %v; the hashes differ: %v", k, got, want)
		}
		if want {
			differ++
		}
	}
	if differ == 0 || differ == 5000 {
		t.Fatalf("%d of 5000 keys hash differently: the test tells nothing", differ)
	}
	// Legacy filters of keys that end in ASCII are either hash's.
	var es []table.Entry
	for i := 0; i < 300; i++ {
		es = append(es, table.Entry{Key: table.InternalKey{UserKey: []byte(fmt.Sprintf("key%05d\xe9tail", i)), Seq: 1, Kind: table.KindValue}})
	}
	data := tabletest.Build(es, tabletest.Options{BlockSize: 500, Policy: bloom.NewLegacyPolicy(10, true)})
	tb := openBytes(t, "t.ldb", data)
	r, err := filtercheck.CompareTable(tb)
	if err != nil || r.Match != filtercheck.MatchOK || r.Legacy != filtercheck.LegacyEither {
		t.Errorf("ASCII tails: %v, %+v", err, r)
	}
}

// TestCountFalseNegatives: the filters upstream writes reject none of a
// table's keys; with the bit array of the first filter zeroed (its k kept),
// every probe of its keys fails, so exactly the keys of the data blocks
// that start in the first 2 KiB are rejected, the first of them first.
func TestCountFalseNegatives(t *testing.T) {
	tb := buildTable(t, 400, tabletest.Options{BlockSize: 300, Policy: bloom.NewPolicy(10)})
	blocks := readKeys(t, tb)
	_, stored, ok := tb.FilterBlock()
	if !ok {
		t.Fatal("no filter block")
	}
	p := bloom.NewPolicy(3) // any bits/key: the filters store their k
	if fn := filtercheck.CountFalseNegatives(p, stored, blocks); fn.Keys != 400 || fn.Rejected != 0 || fn.FirstKey != nil {
		t.Fatalf("undamaged: %+v", fn)
	}
	l := parseLayout(t, stored)
	damaged := bytes.Clone(stored)
	f := l.Filters[0]
	clear(damaged[f.Offset : f.Offset+f.Len-1]) // the last byte is k
	want := 0
	for _, b := range blocks {
		if b.Handle.Offset < 2048 {
			want += len(b.Keys)
		}
	}
	fn := filtercheck.CountFalseNegatives(p, damaged, blocks)
	if want == 0 || want == 400 || fn.Rejected != want || fn.Keys != 400 ||
		!bytes.Equal(fn.FirstKey, blocks[0].Keys[0]) || fn.FirstBlock != blocks[0].Handle {
		t.Errorf("first filter zeroed: %+v; want %d of 400 rejected, first %q in block %v", fn, want, blocks[0].Keys[0], blocks[0].Handle)
	}
	// The same with the keys read again from the table (ReadHashes): the
	// first rejected key must still be that key once the count is done,
	// though the reads after it reuse the memory it was read into.
	hashed := readHashes(t, tb)
	fn = filtercheck.CountFalseNegatives(p, damaged, hashed)
	if fn.Rejected != want || fn.Keys != 400 || !bytes.Equal(fn.FirstKey, blocks[0].Keys[0]) || fn.FirstBlock != blocks[0].Handle {
		t.Errorf("first filter zeroed, keys read again: %+v; want %d of 400 rejected, first %q in block %v", fn, want, blocks[0].Keys[0], blocks[0].Handle)
	}
}

// TestCompareLegacy: a block under the legacy name is rebuilt with both
// hashes of LevelDB v1.4 to v1.17 when a key hashes differently under
// them: the one that gives the stored block names the hash, either when
// no key tells them apart; when neither does, the later of the two first
// differences is reported (the hash that agrees longer).
func TestCompareLegacy(t *testing.T) {
	plain := synthBlocks(100, 10, 3000) // tails of ASCII digits: no key tells the hashes apart
	high := synthBlocks(100, 10, 3000)
	for _, b := range high {
		for i := range b.Keys {
			b.Keys[i] = append(b.Keys[i], 0x80|byte(i)) // one tail byte, of 0x80 or more
		}
	}
	if filtercheck.HashesDiffer(plain) || !filtercheck.HashesDiffer(high) {
		t.Fatal("setup: the keys do not tell the hashes apart as they should")
	}
	unsigned := func(blocks []filtercheck.BlockKeys) []byte {
		return filtercheck.Build(blocks, bloom.NewLegacyPolicy(10, false))
	}
	signed := func(blocks []filtercheck.BlockKeys) []byte {
		return filtercheck.Build(blocks, bloom.NewLegacyPolicy(10, true))
	}
	damaged := func(b []byte, at int) []byte { b = bytes.Clone(b); b[at] ^= 0xff; return b }
	for _, tc := range []struct {
		name   string
		blocks []filtercheck.BlockKeys
		stored []byte
		legacy string
		diffAt int // -1 for no difference
	}{
		{"either", plain, unsigned(plain), filtercheck.LegacyEither, -1},
		{"unsigned", high, unsigned(high), filtercheck.LegacyUnsigned, -1},
		{"signed", high, signed(high), filtercheck.LegacySigned, -1},
		{"neither, the same everywhere else", plain, damaged(unsigned(plain), 3), filtercheck.LegacyNeither, 3},
		{"neither, signed agrees longer", high, damaged(signed(high), 40), filtercheck.LegacyNeither, 40},
	} {
		r := filtercheck.Compare(tc.blocks, bloom.LegacyPolicyName, table.BlockHandle{Offset: 7, Size: uint64(len(tc.stored))}, tc.stored)
		if r.Legacy != tc.legacy || r.Policy != bloom.LegacyPolicyName || r.FilterBlockOffset != 7 || r.FilterBlockSize != len(tc.stored) {
			t.Errorf("%s: %+v; want legacy %q", tc.name, r, tc.legacy)
			continue
		}
		switch {
		case tc.diffAt < 0 && (r.Match != filtercheck.MatchOK || r.Diff != nil):
			t.Errorf("%s: match %s, diff %v; want ok", tc.name, r.Match, r.Diff)
		case tc.diffAt >= 0 && (r.Match != filtercheck.MatchDiffers || r.Diff == nil || r.Diff.Offset != tc.diffAt):
			t.Errorf("%s: match %s, diff %v; want a mismatch at byte %d", tc.name, r.Match, r.Diff, tc.diffAt)
		}
	}
}
