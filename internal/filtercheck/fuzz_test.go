package filtercheck_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/internal/alloctest"
	"github.com/ldbcompat/ldbcompat/internal/filtercheck"
	"github.com/ldbcompat/ldbcompat/internal/table"
	"github.com/ldbcompat/ldbcompat/internal/table/tabletest"
)

// fuzzTables are the tables FuzzCompare puts arbitrary filter blocks in:
// ordinary ones of a few blocks per 2 KiB range, and lopsided ones with one
// key in each of two ranges and many in a third.
var fuzzTables = sync.OnceValue(func() [][]byte {
	var es []table.Entry
	for i := 0; i < 60; i++ {
		k := table.InternalKey{UserKey: []byte(fmt.Sprintf("k%03d\xe9", i/2)), Seq: uint64(100 - i), Kind: table.Kind(i % 2)}
		es = append(es, table.Entry{Key: k, Value: bytes.Repeat([]byte{'v'}, i*3)})
	}
	return [][]byte{
		tabletest.Build(es, tabletest.Options{BlockSize: 256, Policy: bloom.NewPolicy(10)}),
		tabletest.Build(es[:7], tabletest.Options{BlockSize: 64, Snappy: true, Policy: bloom.NewPolicy(3)}),
		lopsidedTable(200, bloom.PolicyName, nil),
	}
})

// fuzzPolicyNames are the filter policy names FuzzCompare stores filter
// blocks under.
var fuzzPolicyNames = []string{bloom.PolicyName, bloom.LegacyPolicyName, "leveldb.OtherFilter"}

// FuzzCompare stores arbitrary bytes as a table's filter block and checks
// the table as `ldbcompat verify` and `dump` do: no panic, no allocation
// beyond a small multiple of the file, and a result consistent with
// rebuilding the filter block outright.
func FuzzCompare(f *testing.F) {
	for i, data := range fuzzTables() {
		tb := openBytes(f, "seed.ldb", data)
		_, contents, _ := tb.FilterBlock()
		f.Add(contents, uint8(i))
		f.Add(contents, uint8(i+3))
	}
	wide := append(make([]byte, 300), 30)
	f.Add(filterBlock(wide, wide, []byte{0, 0, 0, 0, 0, 0, 0, 0, 1}), uint8(2))
	f.Add(filterBlock(wide, wide, []byte{0, 0, 0, 0, 0, 0, 0, 0, 1}), uint8(5))
	f.Add([]byte{0, 0, 0, 0, 11}, uint8(0))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 6, 0, 0, 0, 0, 0xff, 0xff, 0, 0, 9, 0, 0, 0, 255}, uint8(1))
	f.Fuzz(func(t *testing.T, contents []byte, sel uint8) {
		tables := fuzzTables()
		base := tables[int(sel)%len(tables)]
		name := fuzzPolicyNames[int(sel)/len(tables)%len(fuzzPolicyNames)]
		data, err := tabletest.ReplaceFilter(base, name, contents)
		if err != nil {
			t.Fatal(err)
		}
		tb := openBytes(t, "fuzz.ldb", data)
		var r *filtercheck.Comparison
		got := alloctest.Allocated(func() {
			r, err = filtercheck.CompareTable(tb)
			if err != nil {
				return
			}
			// What `ldbcompat dump` does after Check.
			if l, err := filtercheck.ParseLayout(contents); err == nil {
				filtercheck.KeysPerFilter(r.Blocks, l.BaseLg, len(l.Filters))
				if r.Params != nil {
					filtercheck.MeasureFPR(contents, l, r.Blocks, bloom.NewPolicy(r.Params.BitsPerKey), 16, 1)
				}
			}
		})
		if err != nil {
			t.Fatalf("Check: %v", err)
		}
		// What `ldbcompat verify` does: the hashes first, the keys only
		// where the comparison needs them.
		hashes, err := new(filtercheck.KeyStore).ReadHashes(tb)
		if err != nil {
			t.Fatalf("ReadHashes: %v", err)
		}
		_, stored, _ := tb.FilterBlock()
		h, _ := tb.FilterHandle()
		// The hashes come with their table, which gives the keys again
		// where the comparison needs them: every block can be compared.
		rh, ok := filtercheck.CompareHashes(hashes, name, h, stored)
		if !ok {
			t.Fatalf("CompareHashes of a %q filter block of %d bytes: not compared", name, len(stored))
		}
		if ok {
			if diff := cmp.Diff(r, rh, cmpopts.IgnoreFields(filtercheck.Comparison{}, "Blocks")); diff != "" {
				t.Fatalf("CompareHashes differs from CompareTable (-keys +hashes):\n%s", diff)
			}
		}
		if got > allocBound(len(data)) {
			t.Fatalf("checking a %d-byte table allocated %d bytes; want at most %d", len(data), got, allocBound(len(data)))
		}
		if name != bloom.PolicyName && name != bloom.LegacyPolicyName {
			if r.Match != filtercheck.MatchUnknownPolicy {
				t.Fatalf("policy %q: status %s", name, r.Match)
			}
			return
		}
		if (r.Match == filtercheck.MatchDiffers) != (r.Diff != nil) || (r.Match != filtercheck.MatchOK && r.Match != filtercheck.MatchDiffers) {
			t.Fatalf("status %s with diff %v", r.Match, r.Diff)
		}
		// Rebuild outright, when that is affordable, and compare with what
		// Check found.
		bpk := r.Params.BitsPerKey
		if filtercheck.RebuiltSize(r.Blocks, bpk) > 1<<22 {
			return
		}
		var p bloom.FilterPolicy = bloom.NewPolicy(bpk)
		if name == bloom.LegacyPolicyName && r.Legacy == filtercheck.LegacySigned {
			p = bloom.NewLegacyPolicy(bpk, true)
		}
		rebuilt := filtercheck.Build(r.Blocks, p)
		if got := filtercheck.RebuiltSize(r.Blocks, bpk); got != uint64(len(rebuilt)) {
			t.Fatalf("RebuiltSize %d, Build wrote %d bytes", got, len(rebuilt))
		}
		want := filtercheck.FirstDiff(contents, rebuilt)
		if name == bloom.LegacyPolicyName && r.Legacy == filtercheck.LegacyNeither {
			// Check reports whichever hash's difference comes later.
			if d := filtercheck.FirstDiff(contents, filtercheck.Build(r.Blocks, bloom.NewLegacyPolicy(bpk, true))); d != nil && want != nil && d.Offset > want.Offset {
				want = d
			}
		}
		if (want == nil) != (r.Diff == nil) || (want != nil && *want != *r.Diff) {
			t.Fatalf("Check found diff %v, rebuilding outright %v", r.Diff, want)
		}
	})
}

// TestWriteFuzzSeeds writes FuzzCompare's seed corpus in testdata/fuzz:
//
//	LDBCOMPAT_WRITE_SEEDS=1 go test -run TestWriteFuzzSeeds ./internal/filtercheck
func TestWriteFuzzSeeds(t *testing.T) {
	if os.Getenv("LDBCOMPAT_WRITE_SEEDS") == "" {
		t.Skip("writes testdata/fuzz; set LDBCOMPAT_WRITE_SEEDS=1 to regenerate the seed corpus")
	}
	// Real filter blocks, as C++ LevelDB wrote them, in the seed tables:
	// a real layout of many filters that does not fit their keys.
	for _, fx := range []struct {
		name, path string
		sel        uint8
	}{
		{"cxx-filter-b1", "b1-bs128-none/000009.ldb", 0},
		{"cxx-filter-b30-legacy", "b30-bs1024-none/000007.ldb", 3},
	} {
		data, err := os.ReadFile(filepath.Join("../../testdata/tables", fx.path))
		if err != nil {
			t.Fatal(err)
		}
		tb := openBytes(t, fx.path, data)
		_, contents, _ := tb.FilterBlock()
		tabletest.WriteSeed(t, "FuzzCompare", fx.name, contents, fx.sel)
	}
	// Regression: two one-key filters of 40 KB ending in k = 30 imply
	// about 320,000 bits/key; rebuilding the third range's 200 keys at
	// that rate took 8 MB before Check learnt to bound the rebuild. 'a'
	// bytes keep the file small.
	wide := append(bytes.Repeat([]byte("a"), 40<<10), 30)
	narrow := []byte("aaaaaaaa\x01")
	tabletest.WriteSeed(t, "FuzzCompare", "huge-bits-per-key", filterBlock(wide, wide, narrow), uint8(2))
	tabletest.WriteSeed(t, "FuzzCompare", "huge-bits-per-key-legacy", filterBlock(wide[30<<10:], wide[30<<10:], narrow), uint8(5))
	tabletest.WriteSeed(t, "FuzzCompare", "array-offset-past-end", []byte{1, 2, 3, 4, 0xff, 0xff, 0xff, 0xff, 11}, uint8(0))
	tabletest.WriteSeed(t, "FuzzCompare", "base-lg-255", []byte{0, 0, 0, 0, 255}, uint8(0))
	tabletest.WriteSeed(t, "FuzzCompare", "unknown-policy", []byte{0, 0, 0, 0, 11}, uint8(6))
}
