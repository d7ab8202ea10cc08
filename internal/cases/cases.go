// Package cases holds the inputs of ldbcompat's conformance suite, made
// deterministically in Go, and upstream LevelDB's answers to them: the
// golden vectors (`make vectors`) or, under the leveldb tag, upstream live.
// Each record holds its case's fingerprint, so a changed generator finds
// no record until the vectors are regenerated.
package cases

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/internal/blockop"
)

// HashCase is an input of Hash.
type HashCase struct {
	Name string
	Data []byte
	Seed uint32
}

// FilterCase is an input of CreateFilter, with the keys then asked of the
// resulting filter through KeyMayMatch.
type FilterCase struct {
	Name       string
	BitsPerKey int
	Keys       [][]byte
	Dst        []byte   // prefix CreateFilter appends to
	Queries    [][]byte // asked of upstream's filter
}

// MatchCase is a KeyMayMatch input on arbitrary, possibly malformed, filter
// bytes.
type MatchCase struct {
	Name       string
	BitsPerKey int
	Filter     []byte
	Queries    [][]byte
}

// Policy names the policy a filter block case uses: upstream's
// TestHashFilter from table/filter_block_test.cc, or the bloom policy of
// BitsPerKey bits per key.
type Policy struct {
	Test       bool
	BitsPerKey int
}

// String returns "test" or "bloom<bits per key>", as reproducers and case
// fingerprints write it.
func (p Policy) String() string {
	if p.Test {
		return "test"
	}
	return fmt.Sprintf("bloom%d", p.BitsPerKey)
}

// BlockCase is a filter block builder op sequence. The block that the last
// Finish returns is then asked Queries.
type BlockCase struct {
	Name    string
	Policy  Policy
	Ops     []blockop.Op
	Queries []blockop.Query
}

// ReaderCase is a filter block reader input: contents, valid or not, and
// queries.
type ReaderCase struct {
	Name     string
	Policy   Policy
	Contents []byte
	Queries  []blockop.Query
	// UpstreamWrites says Contents is a block upstream's builder writes;
	// not part of the fingerprint.
	UpstreamWrites bool
}

// DBCase is an input of an end-to-end write check: distinct keys of 1 to 40
// bytes in random order, values of 1 to 100 bytes and some of 2 to 6 KiB
// (data blocks spanning whole 2 KiB filter ranges).
type DBCase struct {
	Name       string
	BitsPerKey int
	KVs        [][2][]byte
}

// Set is the inputs of one run of the suite, with the name of the function
// that makes them, for reproducers.
type Set struct {
	Origin string // such as "internal/cases.VectorSet()"
	Hash   []HashCase
	Filter []FilterCase
	Match  []MatchCase
	Block  []BlockCase
	Reader []ReaderCase
}

// The origins of the kit's own sets, whose cases reproducers find by name.
const (
	VectorOrigin = "internal/cases.VectorSet()"
	LiveOrigin   = "internal/cases.LiveSet()"
	WideOrigin   = "internal/cases.WideSet()"
)

// vectorBlockCases is how many random builder sequences the vectors hold.
const vectorBlockCases = 60

// VectorSet returns the cases the golden vectors record.
func VectorSet() Set {
	return Set{
		Origin: VectorOrigin,
		Hash:   HashCases(),
		Filter: FilterCases(false),
		Match:  MatchCases(),
		Block:  BlockCases(vectorBlockCases),
		Reader: ReaderCases(),
	}
}

// DBCases returns the databases the end-to-end write check has a port write.
func DBCases() []DBCase {
	g := NewGen(9)
	keys := g.Keys(3000, 1, 40)
	kvs := make([][2][]byte, len(keys))
	for i, key := range keys {
		n := 1 + g.R.IntN(100)
		if g.R.IntN(20) == 0 {
			n = 2048 + g.R.IntN(4096)
		}
		kvs[i] = [2][]byte{key, g.Bytes(n)}
	}
	return []DBCase{{Name: "n3000/bpk10", BitsPerKey: 10, KVs: kvs}}
}

// Gen is the suite's deterministic source of inputs.
type Gen struct{ R *rand.Rand }

// NewGen returns the generator of seed: the same seed, the same inputs.
func NewGen(seed uint64) *Gen { return &Gen{rand.New(rand.NewPCG(seed, 0x6c64626361))} }

// Bytes returns n random bytes, half of them 0x80 or above.
func (g *Gen) Bytes(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(g.R.Uint32())
	}
	return b
}

// Keys returns n distinct random keys with lengths in [minLen, maxLen].
func (g *Gen) Keys(n, minLen, maxLen int) [][]byte {
	out := make([][]byte, 0, n)
	seen := make(map[string]bool, n)
	for len(out) < n {
		l := minLen
		if maxLen > minLen {
			l += g.R.IntN(maxLen - minLen + 1)
		}
		k := g.Bytes(l)
		if seen[string(k)] {
			continue
		}
		seen[string(k)] = true
		out = append(out, k)
	}
	return out
}

// Absent returns n random keys that are none of keys.
func (g *Gen) Absent(keys [][]byte, n, minLen, maxLen int) [][]byte {
	have := make(map[string]bool, len(keys))
	for _, k := range keys {
		have[string(k)] = true
	}
	var out [][]byte
	for len(out) < n {
		for _, k := range g.Keys(n-len(out), minLen, maxLen) {
			if !have[string(k)] {
				out = append(out, k)
			}
		}
	}
	return out
}

// UpstreamHashCases are the cases of upstream's util/hash_test.cc.
func UpstreamHashCases() []HashCase {
	return []HashCase{
		{"hash_test/empty", nil, 0xbc9f1d34},
		{"hash_test/data1", []byte{0x62}, 0xbc9f1d34},
		{"hash_test/data2", []byte{0xc3, 0x97}, 0xbc9f1d34},
		{"hash_test/data3", []byte{0xe2, 0x99, 0xa5}, 0xbc9f1d34},
		{"hash_test/data4", []byte{0xe1, 0x80, 0xb9, 0x32}, 0xbc9f1d34},
		{"hash_test/data5", []byte{
			0x01, 0xc0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
			0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00,
			0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x18, 0x28, 0x00, 0x00, 0x00,
			0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		}, 0x12345678},
	}
}

// HashCases returns hash inputs of every length 0..64 with random bytes
// (half of them 0x80 or above) under several seeds, after upstream's own.
func HashCases() []HashCase {
	cs := UpstreamHashCases()
	g := NewGen(1)
	for n := 0; n <= 64; n++ {
		for _, seed := range []uint32{0, 1, 0xbc9f1d34, 0xffffffff} {
			cs = append(cs, HashCase{fmt.Sprintf("len%d/seed%08x", n, seed), g.Bytes(n), seed})
		}
	}
	// Tails made only of high bytes, where signed and unsigned chars differ.
	for n := 1; n <= 7; n++ {
		d := make([]byte, n)
		for i := range d {
			d[i] = 0x80 | byte(i*37)
		}
		cs = append(cs, HashCase{fmt.Sprintf("high/len%d", n), d, 0xbc9f1d34})
	}
	return cs
}

// FilterBitsPerKey is the bits/key values the suite builds filters with:
// 0..64 and some large ones (372*0.69 is the first k past 255, where a k
// kept in a byte before clamping at 30 wraps).
func FilterBitsPerKey() []int {
	var out []int
	for b := 0; b <= 64; b++ {
		out = append(out, b)
	}
	return append(out, 100, 371, 372, 400, 1000)
}

// FilterCases returns CreateFilter inputs for every FilterBitsPerKey and
// several key counts (to 100000 with large), plus duplicate, empty and
// long keys and non-empty dst prefixes.
func FilterCases(large bool) []FilterCase {
	g := NewGen(2)
	counts := []int{0, 1, 2, 3, 7, 10, 100, 1000}
	if large {
		counts = append(counts, 10000, 100000)
	}
	var cs []FilterCase
	for _, b := range FilterBitsPerKey() {
		for _, n := range counts {
			if (!large && n*b > 4_000_000) || n*b > 100_000_000 {
				continue // filters of at most 500 KB in the vectors, 12.5 MB live
			}
			keys := g.Keys(n, 0, 40)
			q := Sample(keys, 100)
			q = append(q, g.Absent(keys, 100, 0, 40)...)
			cs = append(cs, FilterCase{Name: fmt.Sprintf("bpk%d/n%d", b, n), BitsPerKey: b, Keys: keys, Queries: q})
		}
	}
	// n = 100000 at the recommended 10 bits/key, always.
	if !large {
		keys := g.Keys(100000, 16, 16)
		cs = append(cs, FilterCase{Name: "bpk10/n100000", BitsPerKey: 10, Keys: keys,
			Queries: append(Sample(keys, 200), g.Absent(keys, 2000, 16, 16)...)})
	}
	// Duplicates count toward n.
	dup := g.Keys(5, 3, 9)
	var dups [][]byte
	for i := 0; i < 40; i++ {
		dups = append(dups, dup[i%len(dup)])
	}
	cs = append(cs, FilterCase{Name: "duplicates", BitsPerKey: 10, Keys: dups, Queries: append(dup, g.Absent(dup, 50, 3, 9)...)})
	// Empty keys, alone and with others.
	cs = append(cs, FilterCase{Name: "empty-key", BitsPerKey: 10, Keys: [][]byte{{}}, Queries: [][]byte{{}, {0}, {0x80}}})
	cs = append(cs, FilterCase{Name: "empty-keys", BitsPerKey: 7, Keys: [][]byte{{}, {}, {1}, {}}, Queries: [][]byte{{}, {1}, {2}}})
	// Long keys.
	long := g.Keys(3, 4093, 10007)
	cs = append(cs, FilterCase{Name: "long-keys", BitsPerKey: 10, Keys: long, Queries: append(long, g.Absent(long, 20, 4000, 5000)...)})
	// Non-empty dst: CreateFilter appends and leaves the prefix alone.
	for _, pl := range []int{1, 5, 64, 1000} {
		keys := g.Keys(20, 1, 20)
		cs = append(cs, FilterCase{Name: fmt.Sprintf("dst%d", pl), BitsPerKey: 10, Keys: keys, Dst: g.Bytes(pl),
			Queries: append(Sample(keys, 20), g.Absent(keys, 20, 1, 20)...)})
	}
	return cs
}

// Sample returns up to n of keys, evenly spread.
func Sample(keys [][]byte, n int) [][]byte {
	if len(keys) <= n {
		return append([][]byte(nil), keys...)
	}
	out := make([][]byte, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, keys[i*len(keys)/n])
	}
	return out
}

// MatchCases returns KeyMayMatch inputs on arbitrary filters: lengths 0, 1,
// 2 and more, random bits, every interesting k byte.
func MatchCases() []MatchCase {
	g := NewGen(3)
	var cs []MatchCase
	queries := g.Keys(64, 0, 24)
	for _, n := range []int{0, 1, 2, 3, 9, 100, 1001} {
		for _, k := range []int{0, 1, 2, 6, 29, 30, 31, 0x7f, 0x80, 0xff, -1} {
			if n == 0 && k != -1 {
				continue
			}
			f := g.Bytes(n)
			// Dense bits so that many probes hit.
			for i := 0; i+1 < n; i++ {
				f[i] |= byte(g.R.Uint32())
			}
			kn := "rand"
			if k >= 0 && n > 0 {
				f[n-1] = byte(k)
				kn = fmt.Sprintf("%d", k)
			}
			cs = append(cs, MatchCase{Name: fmt.Sprintf("len%d/k%s", n, kn), BitsPerKey: 10, Filter: f, Queries: queries})
		}
	}
	// All-ones and all-zero arrays.
	for _, k := range []byte{1, 6, 30, 31} {
		ones := make([]byte, 17)
		for i := range ones {
			ones[i] = 0xff
		}
		ones[16] = k
		cs = append(cs, MatchCase{Name: fmt.Sprintf("ones/k%d", k), BitsPerKey: 10, Filter: ones, Queries: queries})
		zeros := make([]byte, 17)
		zeros[16] = k
		cs = append(cs, MatchCase{Name: fmt.Sprintf("zeros/k%d", k), BitsPerKey: 10, Filter: zeros, Queries: queries})
	}
	return cs
}

// UpstreamBlockCases are the cases of upstream's table/filter_block_test.cc
// (EmptyBuilder, SingleChunk, MultiChunk) with its test policy.
func UpstreamBlockCases() []BlockCase {
	s := func(o uint64) blockop.Op { return blockop.Op{Kind: blockop.StartBlock, Offset: o} }
	a := func(k string) blockop.Op { return blockop.Op{Kind: blockop.AddKey, Key: []byte(k)} }
	f := blockop.Op{Kind: blockop.Finish}
	q := func(o uint64, k string) blockop.Query { return blockop.Query{Offset: o, Key: []byte(k)} }
	test := Policy{Test: true}
	return []BlockCase{
		{"filter_block_test/EmptyBuilder", test, []blockop.Op{f}, []blockop.Query{q(0, "foo"), q(100000, "foo")}},
		{"filter_block_test/SingleChunk", test,
			[]blockop.Op{s(100), a("foo"), a("bar"), a("box"), s(200), a("box"), s(300), a("hello"), f},
			[]blockop.Query{q(100, "foo"), q(100, "bar"), q(100, "box"), q(100, "hello"), q(100, "missing"), q(100, "other")}},
		{"filter_block_test/MultiChunk", test,
			[]blockop.Op{s(0), a("foo"), s(2000), a("bar"), s(3100), a("box"), s(9000), a("box"), a("hello"), f},
			[]blockop.Query{q(0, "foo"), q(2000, "bar"), q(0, "box"), q(0, "hello"),
				q(3100, "box"), q(3100, "foo"), q(3100, "bar"), q(3100, "hello"),
				q(4100, "foo"), q(4100, "bar"), q(4100, "box"), q(4100, "hello"),
				q(9000, "box"), q(9000, "hello"), q(9000, "foo"), q(9000, "bar")}},
	}
}

// BlockCases returns builder op sequences: upstream's cases, count random
// tables, huge offsets, a StartBlock after Finish and a second Finish.
func BlockCases(count int) []BlockCase {
	g := NewGen(4)
	cs := UpstreamBlockCases()
	policies := []Policy{{Test: true}, {BitsPerKey: 10}, {BitsPerKey: 1}, {BitsPerKey: 0}, {BitsPerKey: 33}}
	for i := 0; i < count; i++ {
		p := policies[i%len(policies)]
		cs = append(cs, g.BlockCase(fmt.Sprintf("random%d/%v", i, p), p, i%7 == 3, i%11 == 5))
	}
	// Huge offsets: millions of empty filters.
	for _, off := range []uint64{1 << 20, 1<<27 + 12345} {
		ops := []blockop.Op{{Kind: blockop.StartBlock}, {Kind: blockop.AddKey, Key: []byte("first")},
			{Kind: blockop.StartBlock, Offset: off}, {Kind: blockop.AddKey, Key: []byte("last")}, {Kind: blockop.Finish}}
		cs = append(cs, BlockCase{fmt.Sprintf("huge-offset/%d", off), Policy{BitsPerKey: 10}, ops,
			[]blockop.Query{{Offset: 0, Key: []byte("first")}, {Offset: off, Key: []byte("last")}, {Offset: off / 2, Key: []byte("x")}, {Offset: off + 2048, Key: []byte("x")}, {Offset: 1 << 63, Key: []byte("x")}}})
	}
	// Keys before any StartBlock; StartBlock and keys after Finish; a second
	// Finish.
	cs = append(cs, BlockCase{"no-start", Policy{Test: true},
		[]blockop.Op{{Kind: blockop.AddKey, Key: []byte("a")}, {Kind: blockop.AddKey, Key: []byte("b")}, {Kind: blockop.Finish}},
		[]blockop.Query{{Offset: 0, Key: []byte("a")}, {Offset: 0, Key: []byte("c")}, {Offset: 4096, Key: []byte("a")}}})
	cs = append(cs, BlockCase{"after-finish", Policy{BitsPerKey: 10},
		[]blockop.Op{{Kind: blockop.StartBlock}, {Kind: blockop.AddKey, Key: []byte("a")}, {Kind: blockop.Finish},
			{Kind: blockop.StartBlock, Offset: 6000}, {Kind: blockop.AddKey, Key: []byte("b")}, {Kind: blockop.Finish}},
		[]blockop.Query{{Offset: 0, Key: []byte("a")}, {Offset: 6000, Key: []byte("b")}, {Offset: 2048, Key: []byte("b")}}})
	cs = append(cs, BlockCase{"finish-twice", Policy{Test: true},
		[]blockop.Op{{Kind: blockop.StartBlock, Offset: 3000}, {Kind: blockop.AddKey, Key: []byte("a")}, {Kind: blockop.Finish}, {Kind: blockop.Finish}},
		[]blockop.Query{{Offset: 3000, Key: []byte("a")}, {Offset: 0, Key: []byte("a")}}})
	return cs
}

// BlockCase makes a random table's worth of builder calls for policy p,
// going back now and then if backwards, skipping many ranges if bigGaps.
func (g *Gen) BlockCase(name string, p Policy, backwards, bigGaps bool) BlockCase {
	var ops []blockop.Op
	var qs []blockop.Query
	var off uint64
	nblocks := 1 + g.R.IntN(40)
	var all [][]byte
	for b := 0; b < nblocks; b++ {
		ops = append(ops, blockop.Op{Kind: blockop.StartBlock, Offset: off})
		keys := g.Keys(g.R.IntN(12), 0, 20)
		for _, k := range keys {
			ops = append(ops, blockop.Op{Kind: blockop.AddKey, Key: k})
			qs = append(qs, blockop.Query{Offset: off, Key: k})
		}
		all = append(all, keys...)
		switch {
		case bigGaps && g.R.IntN(4) == 0:
			off += uint64(g.R.IntN(300)) << 11
		case g.R.IntN(3) == 0:
			off += uint64(g.R.IntN(600)) // several blocks in one range
		default:
			off += uint64(g.R.IntN(5000))
		}
		if backwards && g.R.IntN(4) == 0 && off > 5000 {
			off -= uint64(g.R.IntN(5000))
		}
	}
	ops = append(ops, blockop.Op{Kind: blockop.Finish})
	for _, k := range g.Absent(all, 20, 0, 20) {
		qs = append(qs, blockop.Query{Offset: uint64(g.R.Int64N(int64(off) + 4096)), Key: k})
	}
	return BlockCase{name, p, ops, qs}
}

// ReaderCases returns filter block reader inputs, damaged in every way
// upstream's reader tells apart: truncations, every lg byte, bad offsets,
// empty filters and random bytes.
func ReaderCases() []ReaderCase {
	g := NewGen(5)
	test := Policy{Test: true}
	le := binary.LittleEndian

	// A valid block of the test policy: filters [k0 k1] [] [k2].
	keys := [][]byte{[]byte("foo"), []byte("bar"), []byte("box")}
	var base []byte
	for _, k := range keys {
		base = le.AppendUint32(base, bloom.Hash(k, 1))
	}
	base = le.AppendUint32(base, 0)
	base = le.AppendUint32(base, 8)
	base = le.AppendUint32(base, 8)
	base = le.AppendUint32(base, 12)
	base = append(base, 11)
	qs := func() []blockop.Query {
		var q []blockop.Query
		for _, off := range []uint64{0, 1, 2047, 2048, 4095, 4096, 6143, 6144, 1 << 20, 1<<64 - 1} {
			for _, k := range append(keys, []byte("nope")) {
				q = append(q, blockop.Query{Offset: off, Key: k})
			}
		}
		return q
	}
	cs := []ReaderCase{{"valid", test, base, qs(), true}}
	add := func(name string, c []byte) { cs = append(cs, ReaderCase{name, test, c, qs(), false}) }
	for n := 0; n < len(base); n++ {
		add(fmt.Sprintf("truncated/%d", n), base[:n])
	}
	for lg := 0; lg < 256; lg++ {
		c := append([]byte(nil), base...)
		c[len(c)-1] = byte(lg)
		add(fmt.Sprintf("lg/%d", lg), c)
	}
	arrayOff := len(base) - 5
	for _, v := range []uint32{0, 4, 11, 12, 13, 23, 24, 25, 26, 27, 28, 0x7fffffff, 0xffffffff} {
		c := append([]byte(nil), base...)
		le.PutUint32(c[arrayOff:], v)
		add(fmt.Sprintf("array-offset/%d", v), c)
	}
	// Offsets within the array: start > limit, limit past the array, empty
	// filters, offsets far out.
	for i, pair := range [][2]uint32{{8, 4}, {0, 13}, {4, 4}, {12, 12}, {13, 13}, {1000, 1000}, {0, 0xffffffff}, {0xffffffff, 0}, {1, 7}} {
		c := append([]byte(nil), base...)
		le.PutUint32(c[12:], pair[0])
		le.PutUint32(c[16:], pair[1])
		add(fmt.Sprintf("offsets/%d/%d-%d", i, pair[0], pair[1]), c)
	}
	// Slack between the offsets and the array offset word.
	add("slack", append(le.AppendUint32(append(base[:len(base)-5:len(base)-5], 0xaa, 0xbb), 12), 11))
	// Random bytes, and random bytes with a plausible trailer.
	for i := 0; i < 40; i++ {
		c := g.Bytes(g.R.IntN(64))
		if i%2 == 1 && len(c) >= 5 {
			le.PutUint32(c[len(c)-5:], uint32(g.R.IntN(len(c)-4)))
			c[len(c)-1] = byte(g.R.IntN(14))
		}
		add(fmt.Sprintf("random/%d", i), c)
	}
	// Bloom filters inside: a block of three real filters, damaged.
	bp := Policy{BitsPerKey: 10}
	bb := bloom.NewFilterBlockBuilder(bloom.NewPolicy(10))
	bkeys := g.Keys(30, 1, 16)
	var bq []blockop.Query
	for i, k := range bkeys {
		off := uint64(i/10) * 3000
		if i%10 == 0 {
			bb.StartBlock(off)
		}
		bb.AddKey(k)
		bq = append(bq, blockop.Query{Offset: off, Key: k})
	}
	for _, k := range g.Absent(bkeys, 30, 1, 16) {
		bq = append(bq, blockop.Query{Offset: uint64(g.R.IntN(9000)), Key: k})
	}
	bblock := append([]byte(nil), bb.Finish()...)
	cs = append(cs, ReaderCase{"bloom/valid", bp, bblock, bq, true})
	for i := 0; i < 30; i++ {
		c := append([]byte(nil), bblock...)
		pos := g.R.IntN(len(c))
		c[pos] ^= byte(1 + g.R.IntN(255))
		cs = append(cs, ReaderCase{fmt.Sprintf("bloom/flip%d@%d", i, pos), bp, c, bq, false})
	}
	return cs
}
