package bloom

import (
	"bytes"
	"encoding/binary"
	"testing"
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

// Cases of upstream's table/filter_block_test.cc.

func TestFilterBlockEmptyBuilder(t *testing.T) {
	p := &testHashPolicy{}
	block := NewFilterBlockBuilder(p).Finish()
	if want := []byte{0, 0, 0, 0, 0x0b}; !bytes.Equal(block, want) {
		t.Fatalf("Finish on nothing = % x, want % x", block, want)
	}
	checkQueries(t, NewFilterBlockReader(p, block), []query{{0, "foo", true}, {100000, "foo", true}})
}

func TestFilterBlockSingleChunk(t *testing.T) {
	p := &testHashPolicy{}
	b := NewFilterBlockBuilder(p)
	b.StartBlock(100)
	b.AddKey([]byte("foo"))
	b.AddKey([]byte("bar"))
	b.AddKey([]byte("box"))
	b.StartBlock(200)
	b.AddKey([]byte("box"))
	b.StartBlock(300)
	b.AddKey([]byte("hello"))
	block := b.Finish()
	checkQueries(t, NewFilterBlockReader(p, block), []query{
		{100, "foo", true}, {100, "bar", true}, {100, "box", true}, {100, "hello", true},
		{100, "foo", true}, {100, "missing", false}, {100, "other", false},
	})
	// From the layout: one filter of five hashes, its offset, the array
	// offset, and lg.
	want := cat(hashWord("foo"), hashWord("bar"), hashWord("box"), hashWord("box"), hashWord("hello"),
		u32(0), u32(20), []byte{11})
	if !bytes.Equal(block, want) {
		t.Errorf("block = % x\nwant    % x", block, want)
	}
}

func TestFilterBlockMultiChunk(t *testing.T) {
	p := &testHashPolicy{}
	b := NewFilterBlockBuilder(p)
	b.StartBlock(0)
	b.AddKey([]byte("foo"))
	b.StartBlock(2000)
	b.AddKey([]byte("bar"))
	b.StartBlock(3100)
	b.AddKey([]byte("box"))
	b.StartBlock(9000)
	b.AddKey([]byte("box"))
	b.AddKey([]byte("hello"))
	block := b.Finish()
	checkQueries(t, NewFilterBlockReader(p, block), []query{
		{0, "foo", true}, {2000, "bar", true}, {0, "box", false}, {0, "hello", false},
		{3100, "box", true}, {3100, "foo", false}, {3100, "bar", false}, {3100, "hello", false},
		{4100, "foo", false}, {4100, "bar", false}, {4100, "box", false}, {4100, "hello", false},
		{9000, "box", true}, {9000, "hello", true}, {9000, "foo", false}, {9000, "bar", false},
	})
	// Filters: [0,2K) foo bar; [2K,4K) box; [4K,6K) and [6K,8K) empty;
	// [8K,10K) box hello.
	want := cat(hashWord("foo"), hashWord("bar"), hashWord("box"), hashWord("box"), hashWord("hello"),
		u32(0), u32(8), u32(12), u32(12), u32(12), u32(20), []byte{11})
	if !bytes.Equal(block, want) {
		t.Errorf("block = % x\nwant    % x", block, want)
	}
}

// Edge cases of table/filter_block.cc.

func TestFilterBlockSkippedRanges(t *testing.T) {
	p := &testHashPolicy{}
	b := NewFilterBlockBuilder(p)
	b.StartBlock(0)
	b.AddKey([]byte("a"))
	b.StartBlock(100 * 2048) // ranges 1..99 are empty
	b.AddKey([]byte("b"))
	block := b.Finish()
	var want []byte
	want = append(want, hashWord("a")...)
	want = append(want, hashWord("b")...)
	want = append(want, u32(0)...)
	for i := 1; i <= 100; i++ {
		want = append(want, u32(4)...)
	}
	want = append(want, u32(8)...)
	want = append(want, 11)
	if !bytes.Equal(block, want) {
		t.Fatalf("block with 99 skipped ranges differs:\n got % x\nwant % x", block, want)
	}
	if p.calls != 2 {
		t.Errorf("policy called %d times, want 2 (empty ranges make no call)", p.calls)
	}
}

func TestFilterBlockStartWithoutKeys(t *testing.T) {
	// StartBlock alone, past range 0, gives empty filters for the ranges
	// before it, and Finish adds none for the range that has no keys.
	p := &testHashPolicy{}
	b := NewFilterBlockBuilder(p)
	b.StartBlock(5000)
	block := b.Finish()
	want := cat(u32(0), u32(0), u32(0), []byte{11})
	if !bytes.Equal(block, want) {
		t.Fatalf("block = % x, want % x", block, want)
	}
}

func TestFilterBlockBackwards(t *testing.T) {
	// Release builds compile out the assert: an earlier range is a no-op and
	// the keys join the current filter.
	p := &testHashPolicy{}
	b := NewFilterBlockBuilder(p)
	b.StartBlock(5000)
	b.AddKey([]byte("x"))
	b.StartBlock(10)
	b.AddKey([]byte("y"))
	block := b.Finish()
	want := cat(hashWord("x"), hashWord("y"), u32(0), u32(0), u32(0), u32(8), []byte{11})
	if !bytes.Equal(block, want) {
		t.Fatalf("block = % x\nwant    % x", block, want)
	}
}

func TestFilterBlockFinishTwice(t *testing.T) {
	// Upstream's Finish appends the offset array to its result each time.
	p := &testHashPolicy{}
	b := NewFilterBlockBuilder(p)
	b.AddKey([]byte("k"))
	first := bytes.Clone(b.Finish())
	second := b.Finish()
	want := cat(first, u32(0), u32(uint32(len(first))), []byte{11})
	if !bytes.Equal(second, want) {
		t.Fatalf("second Finish = % x, want % x", second, want)
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
