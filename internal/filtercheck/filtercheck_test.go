package filtercheck_test

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/internal/filtercheck"
	"github.com/ldbcompat/ldbcompat/internal/table"
	"github.com/ldbcompat/ldbcompat/internal/table/tabletest"
)

func TestCompare(t *testing.T) {
	for _, tc := range []struct {
		stored, rebuilt string
		want            string // "" for equal
	}{
		{"", "", ""},
		{"abc", "abc", ""},
		{"abc", "abd", "byte 2: stored 0x63, rebuilt 0x64"},
		{"abc", "ab", "byte 2: stored 0x63, rebuilt end of block (stored 3 bytes, rebuilt 2)"},
		{"", "x", "byte 0: stored end of block, rebuilt 0x78 (stored 0 bytes, rebuilt 1)"},
	} {
		d := filtercheck.Compare([]byte(tc.stored), []byte(tc.rebuilt))
		got := ""
		if d != nil {
			got = d.String()
		}
		if got != tc.want {
			t.Errorf("Compare(%q, %q) = %q, want %q", tc.stored, tc.rebuilt, got, tc.want)
		}
	}
}

// synthBlocks returns data blocks at the offsets a table of blocks of
// blockSize bytes would have, holding n distinct keys in total.
func synthBlocks(n, perBlock, blockSize int) []filtercheck.Block {
	var blocks []filtercheck.Block
	off := uint64(0)
	for i := 0; i < n; i += perBlock {
		b := filtercheck.Block{Handle: table.BlockHandle{Offset: off, Size: uint64(blockSize)}}
		for j := i; j < min(i+perBlock, n); j++ {
			b.Keys = append(b.Keys, []byte(fmt.Sprintf("key\x80%06d", j)))
		}
		blocks = append(blocks, b)
		off = b.Handle.End()
	}
	return blocks
}

func TestParseLayout(t *testing.T) {
	blocks := synthBlocks(100, 10, 3000)
	fb := filtercheck.Build(blocks, bloom.NewPolicy(10))
	l, err := filtercheck.ParseLayout(fb)
	if err != nil {
		t.Fatal(err)
	}
	// The last StartBlock, at 30050, closes filters 0..13 (30050>>11 = 14).
	if l.BaseLg != 11 || len(l.Filters) != 14 {
		t.Fatalf("layout: base lg %d, %d filters", l.BaseLg, len(l.Filters))
	}
	keys := filtercheck.KeysPerFilter(blocks, l.BaseLg, len(l.Filters))
	total := 0
	for i, f := range l.Filters {
		total += keys[i]
		if (keys[i] == 0) != (f.Len == 0) {
			t.Errorf("filter %d: %d keys, %d bytes", i, keys[i], f.Len)
		}
		if f.Len > 0 && f.K(fb) != 6 {
			t.Errorf("filter %d: k %d", i, f.K(fb))
		}
	}
	if total != 100 {
		t.Errorf("KeysPerFilter counts %d keys, want 100", total)
	}
	for _, tc := range []struct {
		contents []byte
		want     string
	}{
		{[]byte{1, 2, 3, 4}, "shorter than its 5-byte tail"},
		{[]byte{9, 0, 0, 0, 11}, "offset array at 9 starts past its tail at 0"},
		{[]byte{0, 0, 0, 0, 0, 0, 0, 11}, "offset array from 0 to 3 is not a whole number of uint32s"},
		{[]byte{0, 0, 0, 0, 5, 0, 0, 0, 4, 0, 0, 0, 11}, "filter 0 spans bytes 5 to 4, outside 0..4"},
	} {
		if _, err := filtercheck.ParseLayout(tc.contents); err == nil || !bytes.Contains([]byte(err.Error()), []byte(tc.want)) {
			t.Errorf("ParseLayout(% x) = %v, want error with %q", tc.contents, err, tc.want)
		}
	}
}

// TestInferParams builds filter blocks at many bits/key values and key
// counts and requires the inferred range to contain the value used, to
// give its k, and to rebuild the same block.
func TestInferParams(t *testing.T) {
	for b := 0; b <= 60; b++ {
		for _, perBlock := range []int{1, 3, 7, 50, 400} {
			blocks := synthBlocks(4*perBlock, perBlock, 2500)
			fb := filtercheck.Build(blocks, bloom.NewPolicy(b))
			l, err := filtercheck.ParseLayout(fb)
			if err != nil {
				t.Fatal(err)
			}
			p := filtercheck.InferParams(fb, l, filtercheck.KeysPerFilter(blocks, l.BaseLg, len(l.Filters)))
			wantK := int(bloom.NewPolicy(b).CreateFilter(nil, nil)[8])
			if !p.Consistent() || p.MinBitsPerKey > b || p.MaxBitsPerKey < b || p.K != wantK || p.BitsPerKey != p.MinBitsPerKey {
				t.Errorf("b %d, %d keys per filter: inferred %+v (%v), want a range holding %d with k %d", b, perBlock, p, p, b, wantK)
				continue
			}
			for _, bb := range []int{p.MinBitsPerKey, p.MaxBitsPerKey} {
				if !bytes.Equal(filtercheck.Build(blocks, bloom.NewPolicy(bb)), fb) {
					t.Errorf("b %d, %d keys per filter: inferred %v, but bits/key %d builds another block", b, perBlock, p, bb)
				}
			}
		}
	}
	// Small filters are all 64 bits: bits/key is then ambiguous.
	blocks := synthBlocks(10, 10, 100)
	fb := filtercheck.Build(blocks, bloom.NewPolicy(1))
	l, _ := filtercheck.ParseLayout(fb)
	p := filtercheck.InferParams(fb, l, filtercheck.KeysPerFilter(blocks, l.BaseLg, len(l.Filters)))
	if got := p.String(); got != "bits/key 0..2, k 1" {
		t.Errorf("10 keys at 1 bit/key: %q", got)
	}
	// A filter whose k byte was damaged is not explained.
	fb[len(fb)-5-4-1] = 9
	p = filtercheck.InferParams(fb, l, filtercheck.KeysPerFilter(blocks, l.BaseLg, len(l.Filters)))
	if p.Consistent() || p.String() != "bits/key 14, k 9 (explains 0 of 1 filters)" {
		t.Errorf("damaged k: %v", p)
	}
	// No keys at all.
	if p := filtercheck.InferParams([]byte{0, 0, 0, 0, 11}, &filtercheck.Layout{BaseLg: 11}, nil); p.Known || p.String() != "bits/key unknown (no keys)" {
		t.Errorf("no keys: %+v", p)
	}
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
	tb, err := table.Open("t.ldb", bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		policy bloom.FilterPolicy
		status filtercheck.Status
		legacy string
	}{
		{nil, filtercheck.StatusNoFilter, ""},
		{bloom.NewPolicy(12), filtercheck.StatusOK, ""},
		{bloom.NewLegacyPolicy(12, false), filtercheck.StatusOK, filtercheck.LegacyUnsigned},
		{bloom.NewLegacyPolicy(12, true), filtercheck.StatusOK, filtercheck.LegacySigned},
		{renamed{bloom.NewPolicy(12), "my.Filter"}, filtercheck.StatusUnknownPolicy, ""},
		// The current hash under the legacy name is what old releases
		// wrote on ARM; the signed hash under the current name is wrong.
		{renamed{bloom.NewPolicy(12), bloom.LegacyPolicyName}, filtercheck.StatusOK, filtercheck.LegacyUnsigned},
		{renamed{bloom.NewLegacyPolicy(12, true), bloom.PolicyName}, filtercheck.StatusMismatch, ""},
	} {
		tb := buildTable(t, 500, tabletest.Options{BlockSize: 700, Policy: tc.policy})
		r, err := filtercheck.Check(tb)
		if err != nil {
			t.Fatal(err)
		}
		name := "none"
		if tc.policy != nil {
			name = tc.policy.Name()
		}
		if r.Status != tc.status || r.Legacy != tc.legacy || r.Keys != 500 || r.DataBlocks != tb.NumDataBlocks() {
			t.Errorf("%s: %+v; want status %s, legacy %q", name, r, tc.status, tc.legacy)
		}
		if tc.status == filtercheck.StatusOK && (r.Params.MinBitsPerKey > 12 || r.Params.MaxBitsPerKey < 12) {
			t.Errorf("%s: inferred %v, built with 12", name, r.Params)
		}
		if (tc.status == filtercheck.StatusMismatch) != (r.Diff != nil) {
			t.Errorf("%s: status %s with diff %v", name, r.Status, r.Diff)
		}
	}
}

// renamed is a policy under another name.
type renamed struct {
	bloom.FilterPolicy
	name string
}

func (r renamed) Name() string { return r.name }

func TestTheoreticalFPR(t *testing.T) {
	// 10 bits per key, k = 6: about 0.84%.
	if got := filtercheck.TheoreticalFPR(10000, 1000, 6); math.Abs(got-0.00843) > 0.0001 {
		t.Errorf("TheoreticalFPR(10000, 1000, 6) = %v", got)
	}
	if got := filtercheck.TheoreticalFPR(0, 1, 1); got != 1 {
		t.Errorf("no bits: %v", got)
	}
}

func TestMeasureFPR(t *testing.T) {
	for _, b := range []int{2, 5, 10} {
		tb := buildTable(t, 20000, tabletest.Options{BlockSize: 1500, Policy: bloom.NewPolicy(b)})
		blocks, err := filtercheck.ReadKeys(tb)
		if err != nil {
			t.Fatal(err)
		}
		_, contents, _ := tb.FilterBlock()
		l, err := filtercheck.ParseLayout(contents)
		if err != nil {
			t.Fatal(err)
		}
		f := filtercheck.MeasureFPR(contents, l, blocks, bloom.NewPolicy(b), 40000, 1)
		if f.Samples != 40000 || f.Theoretical <= 0 || f.Measured < f.Theoretical/2 || f.Measured > f.Theoretical*2 {
			t.Errorf("bits/key %d: %+v", b, f)
		}
		if g := filtercheck.MeasureFPR(contents, l, blocks, bloom.NewPolicy(b), 40000, 1); g != f {
			t.Errorf("same seed, different result: %+v, %+v", f, g)
		}
	}
}

// ExampleCheck checks a table written by C++ LevelDB 1.23.
func ExampleCheck() {
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
	r, err := filtercheck.Check(t)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Status, r.Policy)
	fmt.Println(r.Params)
	// Output:
	// ok leveldb.BuiltinBloomFilter2
	// bits/key 10, k 6
}
