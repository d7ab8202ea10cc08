//go:build leveldb

package kit

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/cgo/upstream"
	"github.com/ldbcompat/ldbcompat/internal/blockop"
	"github.com/ldbcompat/ldbcompat/internal/cases"
)

// Differential fuzz targets: every input goes to the bloom package and to
// upstream LevelDB through cgo, and the answers must be identical. Run them
// with `make fuzz` (FUZZTIME per target). Against v1.4 to v1.17 bloom's side
// is their filter (livePolicy, liveHash); NewPolicy and NewLegacyPolicy
// with the unsigned hash give 1.23's bytes, which those releases give only
// where plain char is unsigned (unsignedLike).

// FuzzUpstreamHash compares bloom.Hash with leveldb::Hash on arbitrary
// data and seeds.
func FuzzUpstreamHash(f *testing.F) {
	for _, c := range cases.UpstreamHashCases() {
		f.Add(c.Data, c.Seed)
	}
	f.Fuzz(func(t *testing.T, data []byte, seed uint32) {
		if got, want := liveHash(data, seed), upstream.Hash(data, seed); got != want {
			t.Fatalf("Hash(% x, %#x): upstream %#x, bloom %#x", data, seed, want, got)
		}
	})
}

// unsignedLike reports whether the linked upstream's filters are 1.23's
// bytes: v1.18 and later, and older releases where plain char is unsigned.
func unsignedLike() bool { return !legacyLive() || !upstream.CharIsSigned() }

// hx writes b as a HexBytes call, however long.
func hx(b []byte) string { return hexCall(b) }

// fuzzKeys cuts data into keys at each 0xff byte.
func fuzzKeys(data []byte) [][]byte {
	if len(data) == 0 {
		return nil
	}
	return bytes.Split(data, []byte{0xff})
}

// FuzzUpstreamCreateFilter compares the filters of NewPolicy (and of
// NewLegacyPolicy with the unsigned hash) with upstream's for keys cut from
// data at 0xff bytes, bits/key 0..1000 and an arbitrary dst to append to,
// then KeyMayMatch of the added keys and one more.
func FuzzUpstreamCreateFilter(f *testing.F) {
	f.Add([]byte("hello\xffworld"), uint16(10), []byte{}, []byte("hello"))
	f.Add([]byte("a\xffa\xffa"), uint16(372), []byte{1, 2}, []byte("b"))
	f.Add([]byte("\x80\x81\x82\xff\xfe"), uint16(1000), []byte{0xff}, []byte{})
	f.Fuzz(func(t *testing.T, data []byte, bpk uint16, dst, probe []byte) {
		b := int(bpk % 1001)
		keys := fuzzKeys(data)
		want := upstream.BloomCreateFilter(b, keys, dst)
		got := livePolicy(b).CreateFilter(keys, append([]byte(nil), dst...))
		if d := describeBytes("filter", want, got); d != "" {
			t.Fatalf("bits/key %d, keys %q, dst % x: %s", b, keys, dst, d)
		}
		// LevelDB v1.4 to v1.17 wrote the same filters under another
		// name where its hash read tail bytes as unsigned chars (ARM).
		legacy := bloom.NewLegacyPolicy(b, false)
		if unsignedLike() {
			if d := describeBytes("legacy (unsigned) filter", want, legacy.CreateFilter(keys, append([]byte(nil), dst...))); d != "" {
				t.Fatalf("bits/key %d, keys %q, dst % x: %s", b, keys, dst, d)
			}
		}
		qs := append(keys, probe)
		wantM := upstream.BloomKeyMayMatchBatch(b, qs, want[len(dst):])
		for i, q := range qs {
			if g := livePolicy(b).KeyMayMatch(q, got[len(dst):]); g != wantM[i] {
				t.Fatalf("bits/key %d, KeyMayMatch(% x): upstream %v, bloom %v", b, q, wantM[i], g)
			}
			if g := legacy.KeyMayMatch(q, want[len(dst):]); unsignedLike() && g != wantM[i] {
				t.Fatalf("bits/key %d, legacy (unsigned) KeyMayMatch(% x): upstream %v, bloom %v", b, q, wantM[i], g)
			}
			if i < len(keys) && !wantM[i] {
				t.Fatalf("bits/key %d: upstream filters out added key % x", b, q)
			}
		}
	})
}

// FuzzUpstreamKeyMayMatch compares KeyMayMatch on arbitrary filter bytes.
func FuzzUpstreamKeyMayMatch(f *testing.F) {
	f.Add([]byte("key"), []byte{})
	f.Add([]byte("key"), []byte{6})
	f.Add([]byte("key"), []byte{0xff, 0xff, 30})
	f.Add([]byte(""), []byte{0, 0, 0, 0, 0, 0, 0, 0, 0x80})
	f.Add([]byte("k\xe9"), []byte{0x5a, 0xa5, 0x5a, 0xa5, 0, 1})
	f.Fuzz(func(t *testing.T, key, filter []byte) {
		// The answer depends on the filter's own k byte, never on the
		// policy's bits/key.
		want := upstream.BloomKeyMayMatch(10, key, filter)
		if got := livePolicy(10).KeyMayMatch(key, filter); got != want {
			t.Fatalf("KeyMayMatch(%s, %s): upstream %v, bloom %v", hx(key), hx(filter), want, got)
		}
		if got := livePolicy(len(filter)%1001).KeyMayMatch(key, filter); got != want {
			t.Fatalf("NewPolicy(%d).KeyMayMatch(%s, %s): upstream %v, bloom %v", len(filter)%1001, hx(key), hx(filter), want, got)
		}
		if got := bloom.NewLegacyPolicy(10, false).KeyMayMatch(key, filter); unsignedLike() && got != want {
			t.Fatalf("legacy (unsigned) KeyMayMatch(%s, %s): upstream %v, bloom %v", hx(key), hx(filter), want, got)
		}
	})
}

// fuzzOps decodes builder calls from data. Each byte's low two bits pick
// the call: 0, StartBlock a little past the previous one (by the next 2
// bytes, shifted left by the byte's bits 5-6), as a table builder calls it;
// 3, StartBlock at any offset up to 2^27 (the next 3 bytes shifted by bits
// 5-6), backwards included; 1, AddKey with a key of the next few bytes; 2,
// now and then, Finish (at most maxFinishes times). A Finish always ends
// the calls.
func fuzzOps(data []byte) []blockop.Op {
	var ops []blockop.Op
	cur, finishes := uint64(0), 0
	for len(data) > 0 && len(ops) < 200 {
		b := data[0]
		data = data[1:]
		switch b % 4 {
		case 0:
			var v uint64
			for i := 0; i < 2 && len(data) > 0; i++ {
				v = v<<8 | uint64(data[0])
				data = data[1:]
			}
			cur += v << (b >> 5 & 3)
			ops = append(ops, blockop.Op{Kind: blockop.StartBlock, Offset: cur})
		case 3:
			var v uint64
			for i := 0; i < 3 && len(data) > 0; i++ {
				v = v<<8 | uint64(data[0])
				data = data[1:]
			}
			cur = v << (b >> 5 & 3) // up to 2^27: 2^16 filters, a 256 KiB offset array
			ops = append(ops, blockop.Op{Kind: blockop.StartBlock, Offset: cur})
		case 1:
			n := min(int(b>>2)%16, len(data))
			ops = append(ops, blockop.Op{Kind: blockop.AddKey, Key: data[:n]})
			data = data[n:]
		case 2:
			if b>>2%8 == 0 && finishes < maxFinishes {
				ops = append(ops, blockop.Op{Kind: blockop.Finish})
				finishes++
			}
		}
	}
	return append(ops, blockop.Op{Kind: blockop.Finish})
}

// maxFinishes bounds the Finish calls fuzzOps decodes before the last. Each
// Finish appends the whole offset array again, and each result is copied:
// 200 Finish calls after a StartBlock of 2^26 took 4.5 GB, and crashed a
// fuzzing worker (testdata/fuzz/FuzzUpstreamFilterBlock/many-finishes-oom).
const maxFinishes = 3

// fuzzPolicy maps a fuzzed byte to a policy: 0 is upstream's test policy,
// anything else a bloom filter of 0..39 bits per key.
func fuzzPolicy(pol uint8) cases.Policy {
	return cases.Policy{Test: pol == 0, BitsPerKey: int(pol % 40)}
}

// FuzzUpstreamFilterBlock runs the same builder calls on bloom's and
// upstream's FilterBlockBuilder: every Finish must return the same bytes,
// and both readers must answer the same on upstream's last block, for the
// fuzzed query and every added key at the fuzzed offset and at the offset
// it was added at.
func FuzzUpstreamFilterBlock(f *testing.F) {
	f.Add([]byte{0, 0, 100, 1 | 3<<2, 'f', 'o', 'o', 0, 0x10, 0, 1 | 1<<2, 'x', 2}, uint8(0), uint64(100), []byte("foo"))
	f.Add([]byte{2}, uint8(10), uint64(0), []byte{})
	f.Add([]byte{0xe3, 0xff, 0xff, 0xff, 1 | 2<<2, 1, 2, 2, 2}, uint8(1), uint64(1<<40), []byte{1, 2})
	f.Add([]byte{1 | 1<<2, 'a', 0x60, 0x10, 0, 1 | 1<<2, 'b', 3, 0, 0, 0, 1 | 1<<2, 'c', 1 | 2<<2, 'd', 'e'}, uint8(16), uint64(4096), []byte("b"))
	f.Fuzz(func(t *testing.T, data []byte, pol uint8, off uint64, key []byte) {
		spec := fuzzPolicy(pol)
		ops := fuzzOps(data)
		want := cases.Upstream.BuildBlock(spec, ops)
		got := liveRef(t).BuildBlock(spec, ops)
		if len(got) != len(want) {
			t.Fatalf("%d Finish results, upstream %d\nrepro: %s", len(got), len(want), builderCalls(spec, ops))
		}
		for i := range want {
			if d := describeBytes(fmt.Sprintf("block of Finish call %d", i+1), want[i], got[i]); d != "" {
				t.Fatalf("%s\nrepro: %s", d, builderCalls(spec, ops))
			}
		}
		qs := []blockop.Query{{Offset: off, Key: key}}
		var at uint64
		for _, op := range ops {
			switch op.Kind {
			case blockop.StartBlock:
				at = op.Offset
			case blockop.AddKey:
				qs = append(qs, blockop.Query{Offset: off, Key: op.Key}, blockop.Query{Offset: at, Key: op.Key})
			}
		}
		compareReaders(t, cases.ReaderCase{Name: "fuzz", Policy: spec, Contents: want[len(want)-1], Queries: qs})
	})
}

// compareReaders asks bloom's and upstream's FilterBlockReader every query
// of c.
func compareReaders(t *testing.T, c cases.ReaderCase) {
	t.Helper()
	want := cases.Upstream.ReadBlock(c.Policy, c.Contents, c.Queries)
	got := liveRef(t).ReadBlock(c.Policy, c.Contents, c.Queries)
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("query %d: upstream %v, bloom %v\nrepro: %s", i, want[i], got[i], fmt.Sprintf("NewFilterBlockReader(%s, %s).KeyMayMatch(%d, %s)", policyExpr(c.Policy), hx(c.Contents), c.Queries[i].Offset, hx(c.Queries[i].Key)))
		}
	}
}

// FuzzUpstreamFilterBlockReader asks bloom's and upstream's
// FilterBlockReader about arbitrary contents, offsets and keys.
func FuzzUpstreamFilterBlockReader(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 11}, uint64(0), []byte("foo"), uint8(0))
	f.Add([]byte{1, 2, 3, 4, 0, 0, 0, 0, 4, 0, 0, 0, 0}, uint64(1), []byte("k"), uint8(10))
	f.Add([]byte{0xff, 30, 0, 0, 0, 0, 2, 0, 0, 0, 200}, uint64(1<<63), []byte(""), uint8(10))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 6, 0, 0, 0, 0, 9, 0, 0, 0, 9, 0, 0, 0, 13, 0, 0, 0, 11}, uint64(2048), []byte("x"), uint8(10))
	f.Fuzz(func(t *testing.T, contents []byte, off uint64, key []byte, pol uint8) {
		compareReaders(t, cases.ReaderCase{Name: "fuzz", Policy: fuzzPolicy(pol), Contents: contents,
			Queries: []blockop.Query{{Offset: off, Key: key}, {Offset: off >> 11, Key: key}, {Offset: 0, Key: key}, {Offset: off & 0xffff, Key: key}, {Offset: off << 11, Key: key}}})
	})
}
