package bloom

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/ldbcompat/ldbcompat/internal/filterblock"
)

// testHashPolicy is upstream's TestHashFilter from
// table/filter_block_test.cc: a filter is the list of Hash(key, 1) values,
// each a little-endian uint32.
type testHashPolicy struct{ calls int }

func (*testHashPolicy) Name() string { return "TestHashFilter" }

func (p *testHashPolicy) CreateFilter(keys [][]byte, dst []byte) []byte {
	p.calls++
	for _, k := range keys {
		dst = binary.LittleEndian.AppendUint32(dst, Hash(k, 1))
	}
	return dst
}

func (*testHashPolicy) KeyMayMatch(key, filter []byte) bool {
	h := Hash(key, 1)
	for i := 0; i+4 <= len(filter); i += 4 {
		if binary.LittleEndian.Uint32(filter[i:]) == h {
			return true
		}
	}
	return false
}

func hashWord(s string) []byte { return binary.LittleEndian.AppendUint32(nil, Hash([]byte(s), 1)) }

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func u32(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }

type query struct {
	offset uint64
	key    string
	want   bool
}

func checkQueries(t *testing.T, r *FilterBlockReader, qs []query) {
	t.Helper()
	for _, q := range qs {
		if got := r.KeyMayMatch(q.offset, []byte(q.key)); got != q.want {
			t.Errorf("KeyMayMatch(%d, %q) = %v, want %v", q.offset, q.key, got, q.want)
		}
	}
}

// step is one call on a FilterBlockBuilder; a Finish step's result is
// the block the case compares.
type step func(b *FilterBlockBuilder, block *[]byte)

func start(offset uint64) step {
	return func(b *FilterBlockBuilder, _ *[]byte) { b.StartBlock(offset) }
}

func add(key string) step {
	return func(b *FilterBlockBuilder, _ *[]byte) { b.AddKey([]byte(key)) }
}

func finish() step {
	return func(b *FilterBlockBuilder, block *[]byte) { *block = bytes.Clone(b.Finish()) }
}

// TestFilterBlockBuilder builds filter blocks with upstream's
// TestHashFilter, whose filters are plain lists of hashes, so that each
// expected block is written out from the format (table/filter_block.cc:
// the filters, a uint32 offset per filter, the offset array's start, base
// lg 11) and checked byte for byte; then queries the block with
// FilterBlockReader. The first three cases are upstream's
// table/filter_block_test.cc, the others edge cases of filter_block.cc.
func TestFilterBlockBuilder(t *testing.T) {
	h := hashWord
	lg := []byte{11}
	for _, tc := range []struct {
		name    string
		steps   []step // then Finish, unless a step finished
		want    []byte
		calls   int // CreateFilter calls; -1 not checked
		queries []query
	}{
		{
			name:    "empty builder",
			want:    cat(u32(0), lg),
			calls:   0,
			queries: []query{{0, "foo", true}, {100000, "foo", true}},
		},
		{
			// One filter of five hashes, its offset, the array offset, lg.
			name:  "single chunk",
			steps: []step{start(100), add("foo"), add("bar"), add("box"), start(200), add("box"), start(300), add("hello")},
			want:  cat(h("foo"), h("bar"), h("box"), h("box"), h("hello"), u32(0), u32(20), lg),
			calls: 1,
			queries: []query{
				{100, "foo", true}, {100, "bar", true}, {100, "box", true}, {100, "hello", true},
				{100, "foo", true}, {100, "missing", false}, {100, "other", false},
			},
		},
		{
			// Filters: [0,2K) foo bar; [2K,4K) box; [4K,6K) and [6K,8K)
			// empty; [8K,10K) box hello.
			name:  "multi chunk",
			steps: []step{start(0), add("foo"), start(2000), add("bar"), start(3100), add("box"), start(9000), add("box"), add("hello")},
			want:  cat(h("foo"), h("bar"), h("box"), h("box"), h("hello"), u32(0), u32(8), u32(12), u32(12), u32(12), u32(20), lg),
			calls: 3,
			queries: []query{
				{0, "foo", true}, {2000, "bar", true}, {0, "box", false}, {0, "hello", false},
				{3100, "box", true}, {3100, "foo", false}, {3100, "bar", false}, {3100, "hello", false},
				{4100, "foo", false}, {4100, "bar", false}, {4100, "box", false}, {4100, "hello", false},
				{9000, "box", true}, {9000, "hello", true}, {9000, "foo", false}, {9000, "bar", false},
			},
		},
		{
			// Ranges 1..99 hold no keys: empty filters, and no
			// CreateFilter call for them.
			name:    "skipped ranges",
			steps:   []step{start(0), add("a"), start(100 * 2048), add("b")},
			want:    cat(h("a"), h("b"), u32(0), bytes.Repeat(u32(4), 100), u32(8), lg),
			calls:   2,
			queries: []query{{0, "a", true}, {0, "b", false}, {50 * 2048, "a", false}, {100 * 2048, "b", true}},
		},
		{
			// StartBlock alone, past range 0, gives empty filters for the
			// ranges before it, and Finish adds none for the range that
			// has no keys.
			name:  "start without keys",
			steps: []step{start(5000)},
			want:  cat(u32(0), u32(0), u32(0), lg),
			calls: 0,
		},
		{
			// Release builds compile out the assert: an earlier range is a
			// no-op and the keys join the current filter.
			name:  "backwards",
			steps: []step{start(5000), add("x"), start(10), add("y")},
			want:  cat(h("x"), h("y"), u32(0), u32(0), u32(0), u32(8), lg),
			calls: 1,
		},
		{
			// Upstream's Finish appends the offset array to its result
			// each time: the second holds the first whole (13 bytes), the
			// filter's offset again, and 13 as the array's start.
			name:  "finish twice",
			steps: []step{add("k"), finish(), finish()},
			want:  cat(h("k"), u32(0), u32(4), lg, u32(0), u32(13), lg),
			calls: 1,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &testHashPolicy{}
			b := NewFilterBlockBuilder(p)
			var block []byte // set by a finish step (never nil: a block has 5 bytes or more)
			for _, s := range tc.steps {
				s(b, &block)
			}
			if block == nil {
				block = b.Finish()
			}
			if !bytes.Equal(block, tc.want) {
				t.Fatalf("block = % x\nwant    % x", block, tc.want)
			}
			if tc.calls >= 0 && p.calls != tc.calls {
				t.Errorf("CreateFilter called %d times, want %d", p.calls, tc.calls)
			}
			checkQueries(t, NewFilterBlockReader(p, block), tc.queries)
		})
	}
}

func TestFilterBlockReaderMalformed(t *testing.T) {
	p := &testHashPolicy{}
	foo := hashWord("foo")
	cases := []struct {
		name     string
		contents []byte
		queries  []query
	}{
		{"nil", nil, []query{{0, "foo", true}, {0, "bar", true}}},
		{"4 bytes", []byte{0, 0, 0, 0}, []query{{0, "bar", true}}},
		{"no filters", []byte{0, 0, 0, 0, 11}, []query{{0, "bar", true}}},
		{"array offset past end", cat(foo, u32(0), u32(5), []byte{11}), []query{{0, "bar", true}}},
		{"array offset at n-5", cat(foo, u32(0), u32(8), []byte{11}), []query{{0, "bar", true}, {0, "foo", true}}},
		{"valid", cat(foo, u32(0), u32(4), []byte{11}), []query{{0, "foo", true}, {0, "bar", false}, {2047, "bar", false}, {2048, "bar", true}}},
		{"start > limit", cat(foo, foo, u32(8), u32(4), u32(8), []byte{11}), []query{{0, "bar", true}}},
		{"limit past array", cat(foo, u32(0), u32(9), u32(4), []byte{11}), []query{{0, "bar", true}, {2048, "bar", true}}},
		{"empty filter", cat(foo, u32(4), u32(4), []byte{11}), []query{{0, "foo", false}}},
		{"empty filter past array", cat(foo, u32(9), u32(9), u32(4), []byte{11}), []query{{0, "foo", false}}},
		// lg 0: one filter per byte offset; lg 64 acts as 0, lg 255 as 63.
		{"lg 0", cat(foo, u32(0), u32(4), []byte{0}), []query{{0, "foo", true}, {0, "bar", false}, {1, "bar", true}}},
		{"lg 64", cat(foo, u32(0), u32(4), []byte{64}), []query{{0, "bar", false}, {1, "bar", true}}},
		{"lg 255", cat(foo, u32(0), u32(4), []byte{255}), []query{{1<<63 - 1, "bar", false}, {1 << 63, "bar", true}}},
		{"lg 200", cat(foo, u32(0), u32(4), []byte{200}), []query{{1<<8 - 1, "bar", false}, {1 << 8, "bar", true}}},
		// Slack bytes between the offsets and the array offset word: the
		// last offset's limit is read across them.
		{"slack", cat(foo, u32(0), []byte{4, 0}, u32(4), []byte{11}), []query{{0, "bar", true}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			checkQueries(t, NewFilterBlockReader(p, c.contents), c.queries)
		})
	}
}

func TestFilterBlockBloomRoundTrip(t *testing.T) {
	p := NewPolicy(10)
	b := NewFilterBlockBuilder(p)
	var offsets []uint64
	var keys [][]byte
	off := uint64(0)
	for blk := 0; blk < 50; blk++ {
		b.StartBlock(off)
		for i := 0; i < 20; i++ {
			k := []byte{byte(blk), byte(i), 0x80 + byte(i)}
			b.AddKey(k)
			keys = append(keys, k)
			offsets = append(offsets, off)
		}
		off += 700 + uint64(blk)*13
	}
	r := NewFilterBlockReader(p, b.Finish())
	for i, k := range keys {
		if !r.KeyMayMatch(offsets[i], k) {
			t.Fatalf("key % x at block %d filtered out", k, offsets[i])
		}
	}
}

// TestAddHashes: filterblock.Builder's AddHashes, given each key's
// Hash(key, filterblock.Seed), builds the block AddKey of the keys builds, for
// the policies whose filters are made of that hash; for the others (the
// legacy hash of signed tail bytes, another package's policy) it adds
// nothing and says so. The keys have tail bytes of 0x80 and more, which
// the signed hash treats differently.
func TestAddHashes(t *testing.T) {
	if filterblock.Seed != bloomSeed {
		t.Fatalf("filterblock.Seed %#x, the bloom seed is %#x", filterblock.Seed, bloomSeed)
	}
	var keys [][]byte
	for i := 0; i < 300; i++ {
		keys = append(keys, []byte(fmt.Sprintf("key%d\xf0", i)))
	}
	build := func(p FilterPolicy, byHash bool) ([]byte, bool) {
		fb := filterblock.New(p)
		taken := true
		for i := 0; i < len(keys); i += 100 {
			fb.StartBlock(uint64(i) * 1000)
			block := keys[i : i+100]
			if byHash {
				hashes := make([]uint32, len(block))
				for j, k := range block {
					hashes[j] = Hash(k, filterblock.Seed)
				}
				if !fb.AddHashes(hashes) {
					taken = false
					for _, k := range block {
						fb.AddKey(k)
					}
				}
				continue
			}
			for _, k := range block {
				fb.AddKey(k)
			}
		}
		return bytes.Clone(fb.Finish()), taken
	}
	for _, tc := range []struct {
		name  string
		p     FilterPolicy
		taken bool
	}{
		{"current", NewPolicy(10), true},
		{"legacy unsigned", NewLegacyPolicy(10, false), true},
		{"legacy signed", NewLegacyPolicy(10, true), false},
		{"another policy", &testHashPolicy{}, false},
	} {
		want, _ := build(tc.p, false)
		got, taken := build(tc.p, true)
		if taken != tc.taken || !bytes.Equal(got, want) {
			t.Errorf("%s: AddHashes took the hashes: %v, want %v; blocks equal: %v", tc.name, taken, tc.taken, bytes.Equal(got, want))
		}
	}
}
