package filtercheck_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/internal/alloctest"
	"github.com/ldbcompat/ldbcompat/internal/filtercheck"
	"github.com/ldbcompat/ldbcompat/internal/table"
	"github.com/ldbcompat/ldbcompat/internal/table/tabletest"
)

// allocBound is the most a check may allocate for a table of size bytes:
// a small multiple of the file, as internal/table promises for reading it.
func allocBound(size int) uint64 { return 8*uint64(size) + 4<<20 }

// ikey is the internal key of user key k.
func ikey(k string, seq uint64) []byte {
	return table.AppendInternalKey(nil, table.InternalKey{UserKey: []byte(k), Seq: seq, Kind: table.KindValue})
}

// lopsidedTable writes a table whose data blocks start in three different
// 2 KiB ranges: one key in the first, one in the second and n in the third,
// with filter as its filter block (named policy).
func lopsidedTable(n int, policy string, filter []byte) []byte {
	var file []byte
	var index []tabletest.KV
	add := func(kvs []tabletest.KV) {
		var h table.BlockHandle
		file, h = tabletest.AppendBlock(file, tabletest.EncodeBlock(kvs, 16), table.NoCompression)
		index = append(index, tabletest.KV{Key: kvs[len(kvs)-1].Key, Value: table.AppendBlockHandle(nil, h)})
	}
	big := bytes.Repeat([]byte("v"), 2100) // pushes the next block into the next range
	add([]tabletest.KV{{Key: ikey("a", 1), Value: big}})
	add([]tabletest.KV{{Key: ikey("b", 1), Value: big}})
	var many []tabletest.KV
	for i := 0; i < n; i++ {
		many = append(many, tabletest.KV{Key: ikey(fmt.Sprintf("c%06d", i), 1)})
	}
	add(many)
	var fh table.BlockHandle
	file, fh = tabletest.AppendBlock(file, filter, table.NoCompression)
	meta := tabletest.EncodeBlock([]tabletest.KV{{Key: []byte(table.FilterPrefix + policy), Value: table.AppendBlockHandle(nil, fh)}}, 16)
	file, mh := tabletest.AppendBlock(file, meta, table.NoCompression)
	file, ih := tabletest.AppendBlock(file, tabletest.EncodeBlock(index, 1), table.NoCompression)
	return tabletest.AppendFooter(file, mh, ih)
}

// parseLayout returns contents' layout, failing the test if it has none.
func parseLayout(t *testing.T, contents []byte) *filtercheck.Layout {
	t.Helper()
	l, err := filtercheck.ParseLayout(contents)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// filterBlock lays out filters as a filter block with base lg 11.
func filterBlock(filters ...[]byte) []byte {
	var b []byte
	var offs []uint32
	for _, f := range filters {
		offs = append(offs, uint32(len(b)))
		b = append(b, f...)
	}
	arr := uint32(len(b))
	for _, o := range offs {
		b = binary.LittleEndian.AppendUint32(b, o)
	}
	b = binary.LittleEndian.AppendUint32(b, arr)
	return append(b, 11)
}

// TestHugeInferredBitsPerKey is a filter block that makes the inferred
// bits/key huge: two one-key filters of 16 KiB ending in k = 30 agree on
// about 131000 bits/key, outvoting the filter that holds thousands of keys.
// Rebuilding that filter at the inferred bits/key would take thousands of
// times the file's size; Check must find the mismatch without doing so.
func TestHugeInferredBitsPerKey(t *testing.T) {
	const l, n = 16 << 10, 3000
	wide := append(make([]byte, l), 30)
	for _, policy := range []string{bloom.PolicyName, bloom.LegacyPolicyName} {
		t.Run(policy, func(t *testing.T) {
			data := lopsidedTable(n, policy, filterBlock(wide, wide, []byte{0, 0, 0, 0, 0, 0, 0, 0, 1}))
			tb := openBytes(t, "huge.ldb", data)
			r, got := compareCounted(t, tb)
			if r.Match != filtercheck.MatchDiffers || r.Params.BitsPerKey < 8*l-7 || r.Diff == nil {
				t.Fatalf("result %+v, params %v, diff %v; want a mismatch at about %d bits/key", r, r.Params, r.Diff, 8*l)
			}
			// The rebuilt block would hold n keys at that many bits/key.
			if want := n * r.Params.BitsPerKey / 8; r.Diff.RebuiltLen < want {
				t.Errorf("diff %v: rebuilt length %d, want at least %d", r.Diff, r.Diff.RebuiltLen, want)
			}
			if got > allocBound(len(data)) {
				t.Errorf("Check of a %d-byte table allocated %d bytes; want at most %d", len(data), got, allocBound(len(data)))
			}
		})
	}
}

// TestFarFilterOffsets is a filter block whose offsets point far past
// its end: a layout error, a mismatch, and no allocation for what the
// offsets claim.
func TestFarFilterOffsets(t *testing.T) {
	u32 := binary.LittleEndian.AppendUint32
	for _, tc := range []struct {
		name     string
		contents []byte
	}{
		{"array offset past the end", append(u32([]byte{1, 2, 3, 4}, 0xffffffff), 11)},
		{"filter limit past the array", append(u32(u32(u32([]byte{0, 0, 0, 0}, 0), 0x7ffffff0), 4), 11)},
		{"filter start past its limit", append(u32(u32([]byte{0, 0, 0, 0}, 0xfffffff0), 4), 11)},
		{"array offset at the tail, base lg 255", append(u32(nil, 0), 255)},
		{"lone filter, base lg 0", append(u32(u32(bytes.Repeat([]byte{0xff}, 9), 0), 9), 0)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := lopsidedTable(100, bloom.PolicyName, tc.contents)
			tb := openBytes(t, "far.ldb", data)
			r, got := compareCounted(t, tb)
			if r.Match != filtercheck.MatchDiffers {
				t.Errorf("status %s, want mismatch; %+v", r.Match, r)
			}
			if got > allocBound(len(data)) {
				t.Errorf("Check of a %d-byte table allocated %d bytes; want at most %d", len(data), got, allocBound(len(data)))
			}
			// The reader treats the damage as "may match", as upstream
			// does, and allocates nothing for it.
			// The least of three runs: another goroutine's allocation
			// (the test runner's) once pushed one run over the bound.
			got = ^uint64(0)
			for run := 0; run < 3; run++ {
				got = min(got, alloctest.Allocated(func() {
					rd := bloom.NewFilterBlockReader(bloom.NewPolicy(10), tc.contents)
					for i := uint64(0); i < 64; i++ {
						rd.KeyMayMatch(i<<11, []byte("c000001"))
					}
				}))
			}
			if got > 4<<10 {
				t.Errorf("a reader and 64 queries allocated %d bytes", got)
			}
		})
	}
}

// TestBoundedRebuildManyFilters: two 64 KiB one-key filters ending in k
// 30 imply about 524000 bits/key, at which every one of the table's other
// 200 one-key ranges rebuilds to 64 KiB too, 13 MB in all. The comparison
// needs the rebuilt block's first bytes only, as many as the stored
// block's, and must not build the filters past them.
func TestBoundedRebuildManyFilters(t *testing.T) {
	const l, ranges = 64 << 10, 200
	wide := append(make([]byte, l), 30)
	var file []byte
	var index []tabletest.KV
	big := bytes.Repeat([]byte("v"), 2100) // one block per 2 KiB range
	for i := 0; i < ranges; i++ {
		kvs := []tabletest.KV{{Key: ikey(fmt.Sprintf("k%04d", i), 1), Value: big}}
		var h table.BlockHandle
		file, h = tabletest.AppendBlock(file, tabletest.EncodeBlock(kvs, 16), table.NoCompression)
		index = append(index, tabletest.KV{Key: kvs[0].Key, Value: table.AppendBlockHandle(nil, h)})
	}
	var fh table.BlockHandle
	file, fh = tabletest.AppendBlock(file, filterBlock(wide, wide), table.NoCompression)
	meta := tabletest.EncodeBlock([]tabletest.KV{{Key: []byte(table.FilterPrefix + bloom.PolicyName), Value: table.AppendBlockHandle(nil, fh)}}, 16)
	file, mh := tabletest.AppendBlock(file, meta, table.NoCompression)
	file, ih := tabletest.AppendBlock(file, tabletest.EncodeBlock(index, 1), table.NoCompression)
	data := tabletest.AppendFooter(file, mh, ih)
	tb := openBytes(t, "many.ldb", data)
	r, got := compareCounted(t, tb)
	if r.Match != filtercheck.MatchDiffers || r.Diff == nil || r.Diff.RebuiltLen < ranges*l {
		t.Fatalf("result %+v, diff %v; want a mismatch with a rebuilt block of %d filters of %d bytes", r, r.Diff, ranges, l)
	}
	if got > allocBound(len(data)) {
		t.Errorf("Check of a %d-byte table allocated %d bytes; want at most %d", len(data), got, allocBound(len(data)))
	}
}

// openBytes opens data as the table name, failing t if it cannot.
func openBytes(t testing.TB, name string, data []byte) *table.Table {
	t.Helper()
	tb, err := table.Open(name, bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

// compareCounted compares tb's filter block, failing t on an error, and
// returns the comparison and the bytes CompareTable allocated.
func compareCounted(t *testing.T, tb *table.Table) (*filtercheck.Comparison, uint64) {
	t.Helper()
	var r *filtercheck.Comparison
	var err error
	got := alloctest.Allocated(func() { r, err = filtercheck.CompareTable(tb) })
	if err != nil {
		t.Fatal(err)
	}
	return r, got
}
