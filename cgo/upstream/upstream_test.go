//go:build leveldb

package upstream

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"runtime"
	"testing"

	"github.com/ldbcompat/ldbcompat/internal/blockop"
)

// refHash is util/hash.cc's Hash written out for these tests: 4-byte
// little-endian words, then the 1 to 3 tail bytes, each widened to 32 bits
// either unsigned (v1.18 onward: static_cast<uint8_t>) or as plain char
// sign-extended (v1.4 to v1.17 where char is signed, as on x86).
func refHash(data []byte, seed uint32, signedTail bool) uint32 {
	const m, r = 0xc6a4a793, 24
	h := seed ^ uint32(len(data))*m
	for ; len(data) >= 4; data = data[4:] {
		h += binary.LittleEndian.Uint32(data)
		h *= m
		h ^= h >> 16
	}
	tail := func(b byte) uint32 {
		if signedTail {
			return uint32(int32(int8(b)))
		}
		return uint32(b)
	}
	switch len(data) {
	case 3:
		h += tail(data[2]) << 16
		fallthrough
	case 2:
		h += tail(data[1]) << 8
		fallthrough
	case 1:
		h += tail(data[0])
		h *= m
		h ^= h >> r
	}
	return h
}

// libHashSignedTail reports whether the linked library hashes tail bytes as
// signed: plain char (v1.4 to v1.17) on a target where char is signed.
func libHashSignedTail() bool { return LegacyBloom() && CharIsSigned() }

// The cases of upstream's util/hash_test.cc (HASH.SignedUnsignedIssue, added
// in v1.18 with the unsigned tail bytes).
var hashTestCases = []struct {
	data []byte
	seed uint32
	want uint32 // v1.18 onward
}{
	{nil, 0xbc9f1d34, 0xbc9f1d34},
	{[]byte{}, 0xbc9f1d34, 0xbc9f1d34},
	{[]byte{0x62}, 0xbc9f1d34, 0xef1345c4},
	{[]byte{0xc3, 0x97}, 0xbc9f1d34, 0x5b663814},
	{[]byte{0xe2, 0x99, 0xa5}, 0xbc9f1d34, 0x323c078f},
	{[]byte{0xe1, 0x80, 0xb9, 0x32}, 0xbc9f1d34, 0xed21633a},
	{[]byte{
		0x01, 0xc0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00,
		0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x18, 0x28, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	}, 0x12345678, 0xf333dabb},
}

// The reference itself reproduces upstream's vectors (unsigned tails), so
// that its signed variant differs from it only in the widening.
func TestRefHash(t *testing.T) {
	for _, tt := range hashTestCases {
		if got := refHash(tt.data, tt.seed, false); got != tt.want {
			t.Errorf("refHash(%x, %#x) = %#x, want %#x", tt.data, tt.seed, got, tt.want)
		}
	}
}

// Which releases hash tail bytes how: v1.18 onward give upstream's vectors
// everywhere; v1.4 to v1.17 widen them as plain char, which changes the
// hash of tail bytes 0x80 and above where char is signed (x86), and nothing
// where it is unsigned (arm64).
func TestHash(t *testing.T) {
	signed := libHashSignedTail()
	major, minor := Version()
	t.Logf("LevelDB %d.%d (release %q), plain char signed: %v, tail bytes hashed as signed: %v",
		major, minor, Release(), CharIsSigned(), signed)
	cases := append([]struct {
		data []byte
		seed uint32
		want uint32
	}{}, hashTestCases...)
	// Tails of every length with bytes on both sides of 0x80.
	for _, d := range [][]byte{
		{0x80}, {0xff}, {0x7f}, {0x00, 0x80}, {0xff, 0x01}, {0x80, 0x80, 0x80},
		{0x01, 0x02, 0x03}, {0x61, 0x62, 0x63, 0x64, 0xfe}, {0x61, 0x62, 0x63, 0x64, 0x7f, 0x80, 0x81},
	} {
		cases = append(cases, struct {
			data []byte
			seed uint32
			want uint32
		}{d, 0xbc9f1d34, refHash(d, 0xbc9f1d34, false)})
	}
	for _, tt := range cases {
		want := tt.want
		if signed {
			want = refHash(tt.data, tt.seed, true)
		}
		if got := Hash(tt.data, tt.seed); got != want {
			t.Errorf("Hash(%x, %#x) = %#x, want %#x", tt.data, tt.seed, got, want)
		}
		if got := HashBatch([][]byte{tt.data}, tt.seed); len(got) != 1 || got[0] != want {
			t.Errorf("HashBatch([%x], %#x) = %#x, want [%#x]", tt.data, tt.seed, got, want)
		}
	}
	// On signed-char targets the old releases differ from the vectors
	// exactly where a tail byte is 0x80 or above (google/leveldb#243).
	if signed {
		if got := Hash([]byte{0xc3, 0x97}, 0xbc9f1d34); got == 0x5b663814 {
			t.Errorf("Hash(c397) = %#x, upstream 1.18's value, from a release that hashes tails as signed char", got)
		}
	}
}

// What plain char is follows from each target's ABI: signed on x86, unsigned
// on arm64 (and arm, ppc64le, s390x).
func TestCharIsSigned(t *testing.T) {
	var want bool
	switch runtime.GOARCH {
	case "amd64", "386":
		want = true
	case "arm64", "arm", "ppc64le", "ppc64", "s390x", "riscv64":
		want = false
	default:
		t.Skipf("no expectation for GOARCH %s", runtime.GOARCH)
	}
	if got := CharIsSigned(); got != want {
		t.Errorf("CharIsSigned() = %v on %s, want %v", got, runtime.GOARCH, want)
	}
}

func TestHashBatch(t *testing.T) {
	if got := HashBatch(nil, 1); len(got) != 0 {
		t.Errorf("HashBatch(nil) = %v, want empty", got)
	}
	keys := [][]byte{[]byte("a"), nil, []byte("hello"), []byte("world!!"), {}}
	got := HashBatch(keys, 0xbc9f1d34)
	for i, k := range keys {
		if want := Hash(k, 0xbc9f1d34); got[i] != want {
			t.Errorf("HashBatch key %d (%q) = %#x, Hash = %#x", i, k, got[i], want)
		}
	}
}

// v1.4 to v1.17 name the policy leveldb.BuiltinBloomFilter; v1.18 renamed it
// leveldb.BuiltinBloomFilter2 with the change to unsigned tail bytes.
func TestBloomName(t *testing.T) {
	want := "leveldb.BuiltinBloomFilter2"
	if LegacyBloom() {
		want = "leveldb.BuiltinBloomFilter"
	}
	for _, bits := range []int{0, 1, 10, 100} {
		if got := BloomName(bits); got != want {
			t.Errorf("BloomName(%d) = %q, want %q", bits, got, want)
		}
	}
}

// A filter of one key, worked out from util/bloom.cc with the release's
// hash: 64 bits (the minimum), k = int(10*0.69) = 6 probes from
// h = Hash(key, 0xbc9f1d34), delta = h rotated right by 17, bit h%64 each.
// Keys ending in bytes 0x80 and above give other filters in v1.4 to v1.17
// on x86 than in later releases.
func TestBloomFilterOfOneKey(t *testing.T) {
	signed := libHashSignedTail()
	for _, key := range []string{"", "a", "\x80", "\xff\xfe", "abcd\x90\x91\x92", "hello"} {
		want := make([]byte, 9)
		want[8] = 6
		h := refHash([]byte(key), 0xbc9f1d34, signed)
		delta := h>>17 | h<<15
		for j := 0; j < 6; j++ {
			pos := h % 64
			want[pos/8] |= 1 << (pos % 8)
			h += delta
		}
		if got := BloomCreateFilter(10, [][]byte{[]byte(key)}, nil); !bytes.Equal(got, want) {
			t.Errorf("BloomCreateFilter(10, [%x]) = %x, want %x", key, got, want)
		}
	}
}

func TestNegativeBitsPerKeyPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("BloomCreateFilter(-1, ...) did not panic")
		}
	}()
	BloomCreateFilter(-1, [][]byte{[]byte("k")}, nil)
}

func keyOf(i int) []byte {
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], uint32(i))
	return b[:]
}

// Like upstream's util/bloom_test.cc: every added key matches, and the
// shape of the filter follows from n and bitsPerKey.
func TestBloomRoundTrip(t *testing.T) {
	for _, n := range []int{0, 1, 10, 100, 1000, 10000} {
		keys := make([][]byte, n)
		for i := range keys {
			keys[i] = keyOf(i)
		}
		filter := BloomCreateFilter(10, keys, nil)
		bits := n * 10
		if bits < 64 {
			bits = 64
		}
		if want := (bits+7)/8 + 1; len(filter) != want {
			t.Errorf("n=%d: filter length %d, want %d", n, len(filter), want)
		}
		if k := filter[len(filter)-1]; k != 6 {
			t.Errorf("n=%d: stored k = %d, want 6 (int(10*0.69))", n, k)
		}
		for i, ok := range BloomKeyMayMatchBatch(10, keys, filter) {
			if !ok {
				t.Fatalf("n=%d: added key %d does not match (batch)", n, i)
			}
			if !BloomKeyMayMatch(10, keys[i], filter) {
				t.Fatalf("n=%d: added key %d does not match", n, i)
			}
		}
		// Keys never added mostly miss: at 10 bits/key the rate is ~1%.
		misses := 0
		probes := make([][]byte, 10000)
		for i := range probes {
			probes[i] = keyOf(i + 1000000000)
		}
		for _, ok := range BloomKeyMayMatchBatch(10, probes, filter) {
			if !ok {
				misses++
			}
		}
		if misses < 9500 {
			t.Errorf("n=%d: only %d of 10000 absent keys missed", n, misses)
		}
	}
}

func TestBloomEmptyAndShortFilters(t *testing.T) {
	if BloomKeyMayMatch(10, []byte("x"), nil) {
		t.Error("empty filter matched")
	}
	if BloomKeyMayMatch(10, []byte("x"), []byte{0xff}) {
		t.Error("1-byte filter matched")
	}
	// A stored k above 30 is reserved and always matches.
	if !BloomKeyMayMatch(10, []byte("x"), []byte{0, 0, 0, 0, 0, 0, 0, 0, 31}) {
		t.Error("filter with k=31 did not match")
	}
	if got := BloomKeyMayMatchBatch(10, nil, []byte{1, 2}); len(got) != 0 {
		t.Errorf("batch of no keys = %v", got)
	}
}

func TestBloomCreateFilterKeepsDst(t *testing.T) {
	dst := []byte("prefix\x00\xff")
	keys := [][]byte{[]byte("hello"), []byte("world")}
	got := BloomCreateFilter(10, keys, dst)
	if !bytes.HasPrefix(got, dst) {
		t.Fatalf("result %x does not start with dst %x", got, dst)
	}
	alone := BloomCreateFilter(10, keys, nil)
	if !bytes.Equal(got[len(dst):], alone) {
		t.Errorf("filter after dst = %x, want %x", got[len(dst):], alone)
	}
	if string(dst) != "prefix\x00\xff" {
		t.Errorf("dst was modified: %q", dst)
	}
}

func TestTiming(t *testing.T) {
	keys := make([][]byte, 1000)
	for i := range keys {
		keys[i] = keyOf(i)
	}
	filter, ns := TimeCreateFilter(10, keys, 3)
	if !bytes.Equal(filter, BloomCreateFilter(10, keys, nil)) || ns <= 0 {
		t.Errorf("TimeCreateFilter: filter differs or ns = %d", ns)
	}
	if f, ns := TimeCreateFilter(10, keys, 0); f != nil || ns < 0 {
		t.Errorf("TimeCreateFilter(iters=0) = %x, %d", f, ns)
	}
	hits, ns := TimeKeyMayMatch(10, keys, filter, 3)
	if hits != len(keys) || ns <= 0 {
		t.Errorf("TimeKeyMayMatch: hits = %d, want %d; ns = %d", hits, len(keys), ns)
	}
	ops := []blockop.Op{{Kind: blockop.StartBlock, Offset: 0}}
	for _, k := range keys {
		ops = append(ops, blockop.Op{Kind: blockop.AddKey, Key: k})
	}
	ops = append(ops, blockop.Op{Kind: blockop.Finish})
	if ns := TimeFilterBlock(10, ops, 3); ns <= 0 {
		t.Errorf("TimeFilterBlock: ns = %d", ns)
	}
}

var testPolicy = Policy{Test: true}

func finishOne(t *testing.T, p Policy, ops []blockop.Op) []byte {
	t.Helper()
	out := FilterBlockBuild(p, append(ops, blockop.Op{Kind: blockop.Finish}))
	if len(out) != 1 {
		t.Fatalf("FilterBlockBuild returned %d results, want 1", len(out))
	}
	return out[0]
}

func start(off uint64) blockop.Op { return blockop.Op{Kind: blockop.StartBlock, Offset: off} }
func add(key string) blockop.Op   { return blockop.Op{Kind: blockop.AddKey, Key: []byte(key)} }

type check struct {
	offset uint64
	key    string
	want   bool
}

func runChecks(t *testing.T, p Policy, block []byte, checks []check) {
	t.Helper()
	queries := make([]blockop.Query, len(checks))
	for i, c := range checks {
		queries[i] = blockop.Query{Offset: c.offset, Key: []byte(c.key)}
	}
	got := FilterBlockKeyMayMatch(p, block, queries)
	for i, c := range checks {
		if got[i] != c.want {
			t.Errorf("KeyMayMatch(%d, %q) = %v, want %v", c.offset, c.key, got[i], c.want)
		}
	}
}

// The cases of upstream's table/filter_block_test.cc.
func TestFilterBlockEmptyBuilder(t *testing.T) {
	block := finishOne(t, testPolicy, nil)
	if want := []byte{0, 0, 0, 0, 0x0b}; !bytes.Equal(block, want) {
		t.Fatalf("Finish() = %x, want %x", block, want)
	}
	runChecks(t, testPolicy, block, []check{{0, "foo", true}, {100000, "foo", true}})
}

func TestFilterBlockSingleChunk(t *testing.T) {
	block := finishOne(t, testPolicy, []blockop.Op{
		start(100), add("foo"), add("bar"), add("box"),
		start(200), add("box"),
		start(300), add("hello"),
	})
	runChecks(t, testPolicy, block, []check{
		{100, "foo", true}, {100, "bar", true}, {100, "box", true},
		{100, "hello", true}, {100, "foo", true},
		{100, "missing", false}, {100, "other", false},
	})
}

func TestFilterBlockMultiChunk(t *testing.T) {
	block := finishOne(t, testPolicy, []blockop.Op{
		start(0), add("foo"), start(2000), add("bar"), // first filter
		start(3100), add("box"), // second filter
		// third filter is empty
		start(9000), add("box"), add("hello"), // last filter
	})
	runChecks(t, testPolicy, block, []check{
		{0, "foo", true}, {2000, "bar", true}, {0, "box", false}, {0, "hello", false},
		{3100, "box", true}, {3100, "foo", false}, {3100, "bar", false}, {3100, "hello", false},
		{4100, "foo", false}, {4100, "bar", false}, {4100, "box", false}, {4100, "hello", false},
		{9000, "box", true}, {9000, "hello", true}, {9000, "foo", false}, {9000, "bar", false},
	})

	// The layout, worked out by hand from table/filter_block.cc: filters of
	// Hash(key, 1) words, then their offsets, then the array offset and 11.
	h := func(s string) []byte { return binary.LittleEndian.AppendUint32(nil, Hash([]byte(s), 1)) }
	var want []byte
	want = append(want, h("foo")...)
	want = append(want, h("bar")...)
	want = append(want, h("box")...)
	want = append(want, h("box")...)
	want = append(want, h("hello")...)
	for _, off := range []uint32{0, 8, 12, 12, 12} {
		want = binary.LittleEndian.AppendUint32(want, off)
	}
	want = binary.LittleEndian.AppendUint32(want, 20)
	want = append(want, 11)
	if !bytes.Equal(block, want) {
		t.Errorf("block = %x\nwant    %x", block, want)
	}
}

func TestFilterBlockBloom(t *testing.T) {
	p := Policy{BitsPerKey: 10}
	block := finishOne(t, p, []blockop.Op{start(0), add("foo"), add("bar"), start(5000), add("baz")})
	runChecks(t, p, block, []check{
		{0, "foo", true}, {0, "bar", true}, {5000, "baz", true}, {2048, "foo", false},
	})
}

func TestFilterBlockBuildResults(t *testing.T) {
	if got := FilterBlockBuild(testPolicy, nil); len(got) != 0 {
		t.Errorf("no ops: %d results", len(got))
	}
	if got := FilterBlockBuild(testPolicy, []blockop.Op{start(0), add("k")}); len(got) != 0 {
		t.Errorf("no Finish: %d results", len(got))
	}
	// Finish twice: C++ appends the offsets again to the same result, and the
	// second Slice covers both.
	got := FilterBlockBuild(testPolicy, []blockop.Op{start(0), add("k"), {Kind: blockop.Finish}, {Kind: blockop.Finish}})
	if len(got) != 2 || !bytes.HasPrefix(got[1], got[0]) || len(got[1]) <= len(got[0]) {
		t.Errorf("Finish twice = %x", got)
	}
	// Results are separate: appending to one does not touch the next.
	_ = append(got[0], 0xee)
	if got[1][len(got[0])] == 0xee {
		t.Error("results share memory")
	}
	if got := FilterBlockKeyMayMatch(testPolicy, nil, nil); len(got) != 0 {
		t.Errorf("no queries: %v", got)
	}
}

func TestUnknownOpKindPanics(t *testing.T) {
	defer func() {
		if r := recover(); r == nil {
			t.Error("FilterBlockBuild with OpKind(7) did not panic")
		}
	}()
	FilterBlockBuild(testPolicy, []blockop.Op{{Kind: 7}})
}

func ExampleBloomCreateFilter() {
	keys := [][]byte{[]byte("hello"), []byte("world")}
	filter := BloomCreateFilter(10, keys, nil)
	fmt.Println(len(filter), BloomKeyMayMatch(10, []byte("hello"), filter))
	// Output: 9 true
}

// A filter of more than 2^32 bits (over 512 MiB): sizes must travel as
// size_t/uint64 through the shim, never as a C int.
func TestHugeFilter(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates over 1 GiB")
	}
	const n, bitsPerKey = 100000, 50000 // 5e9 bits, 625 MB
	keys := make([][]byte, n)
	for i := range keys {
		keys[i] = keyOf(i)
	}
	filter := BloomCreateFilter(bitsPerKey, keys, []byte{0xaa})
	if want := 1 + n*bitsPerKey/8 + 1; len(filter) != want {
		t.Fatalf("filter length %d, want %d", len(filter), want)
	}
	if filter[0] != 0xaa || filter[len(filter)-1] != 30 {
		t.Fatalf("filter starts %#x, ends with k=%d; want 0xaa and 30", filter[0], filter[len(filter)-1])
	}
	filter = filter[1:]
	for i, ok := range BloomKeyMayMatchBatch(bitsPerKey, keys[:1000], filter) {
		if !ok {
			t.Fatalf("added key %d does not match", i)
		}
	}
	if BloomKeyMayMatch(bitsPerKey, keyOf(-1), filter) {
		t.Error("absent key matched (false positive rate should be ~0 here)")
	}
}
