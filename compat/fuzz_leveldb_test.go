//go:build leveldb

package compat

import (
	"bytes"
	"testing"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/cgo/upstream"
)

// Differential fuzz targets: every input goes to the bloom package and to
// upstream LevelDB through cgo, and the answers must be identical. Run them
// with `make fuzz` (FUZZTIME per target).

func FuzzUpstreamHash(f *testing.F) {
	for _, c := range UpstreamHashCases() {
		f.Add(c.Data, c.Seed)
	}
	f.Fuzz(func(t *testing.T, data []byte, seed uint32) {
		if got, want := bloom.Hash(data, seed), upstream.Hash(data, seed); got != want {
			t.Fatalf("Hash(% x, %#x): upstream %#x, bloom %#x", data, seed, want, got)
		}
	})
}

// fuzzKeys cuts data into keys at each 0xff byte.
func fuzzKeys(data []byte) [][]byte {
	if len(data) == 0 {
		return nil
	}
	return bytes.Split(data, []byte{0xff})
}

func FuzzUpstreamCreateFilter(f *testing.F) {
	f.Add([]byte("hello\xffworld"), uint16(10), []byte{}, []byte("hello"))
	f.Add([]byte("a\xffa\xffa"), uint16(372), []byte{1, 2}, []byte("b"))
	f.Add([]byte("\x80\x81\x82\xff\xfe"), uint16(1000), []byte{0xff}, []byte{})
	f.Fuzz(func(t *testing.T, data []byte, bpk uint16, dst, probe []byte) {
		b := int(bpk % 1001)
		keys := fuzzKeys(data)
		want := upstream.BloomCreateFilter(b, keys, dst)
		got := bloom.NewPolicy(b).CreateFilter(keys, append([]byte(nil), dst...))
		if d := describeBytes("filter", want, got); d != "" {
			t.Fatalf("bits/key %d, keys %q, dst % x: %s", b, keys, dst, d)
		}
		qs := append(keys, probe)
		wantM := upstream.BloomKeyMayMatchBatch(b, qs, want[len(dst):])
		for i, q := range qs {
			if g := bloom.NewPolicy(b).KeyMayMatch(q, got[len(dst):]); g != wantM[i] {
				t.Fatalf("bits/key %d, KeyMayMatch(% x): upstream %v, bloom %v", b, q, wantM[i], g)
			}
		}
	})
}

func FuzzUpstreamKeyMayMatch(f *testing.F) {
	f.Add([]byte("key"), []byte{})
	f.Add([]byte("key"), []byte{6})
	f.Add([]byte("key"), []byte{0xff, 0xff, 30})
	f.Add([]byte(""), []byte{0, 0, 0, 0, 0, 0, 0, 0, 0x80})
	f.Add([]byte("k\xe9"), []byte{0x5a, 0xa5, 0x5a, 0xa5, 0, 1})
	f.Fuzz(func(t *testing.T, key, filter []byte) {
		want := upstream.BloomKeyMayMatch(10, key, filter)
		if got := bloom.NewPolicy(10).KeyMayMatch(key, filter); got != want {
			t.Fatalf("KeyMayMatch(%s, %s): upstream %v, bloom %v", hexArg(key), hexArg(filter), want, got)
		}
	})
}

// fuzzOps decodes builder calls from data: each byte's low two bits pick
// StartBlock (offset from the next 3 bytes, shifted by the byte's top bits),
// AddKey (a key of the next few bytes) or, now and then, Finish.
func fuzzOps(data []byte) []Op {
	var ops []Op
	for len(data) > 0 && len(ops) < 200 {
		b := data[0]
		data = data[1:]
		switch b % 4 {
		case 0, 3:
			var v uint64
			for i := 0; i < 3 && len(data) > 0; i++ {
				v = v<<8 | uint64(data[0])
				data = data[1:]
			}
			ops = append(ops, Op{Kind: OpStartBlock, Offset: v << (b >> 5)})
		case 1:
			n := min(int(b>>2)%16, len(data))
			ops = append(ops, Op{Kind: OpAddKey, Key: data[:n]})
			data = data[n:]
		case 2:
			if b>>2%8 == 0 {
				ops = append(ops, Op{Kind: OpFinish})
			}
		}
	}
	return append(ops, Op{Kind: OpFinish})
}

func FuzzUpstreamFilterBlock(f *testing.F) {
	f.Add([]byte{0, 0, 0, 100, 1 | 3<<2, 'f', 'o', 'o', 0, 0, 0x10, 0, 1 | 1<<2, 'x', 2}, uint8(0), uint64(100), []byte("foo"))
	f.Add([]byte{2}, uint8(10), uint64(0), []byte{})
	f.Add([]byte{0xe0, 0xff, 0xff, 0xff, 1 | 2<<2, 1, 2, 2, 2}, uint8(1), uint64(1<<40), []byte{1, 2})
	f.Fuzz(func(t *testing.T, data []byte, pol uint8, off uint64, key []byte) {
		spec := PolicySpec{Test: pol == 0, BitsPerKey: int(pol % 40)}
		ops := fuzzOps(data)
		c := BlockCase{Name: "fuzz", Policy: spec, Ops: ops, Queries: []Query{{off, key}}}
		for _, op := range ops {
			if op.Kind == OpAddKey {
				c.Queries = append(c.Queries, Query{off, op.Key}, Query{off >> 11, op.Key})
			}
		}
		failIf(t, run(BloomPort(), liveOracle{}, caseSet{block: []BlockCase{c}}))
	})
}

func FuzzUpstreamFilterBlockReader(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 11}, uint64(0), []byte("foo"), uint8(0))
	f.Add([]byte{1, 2, 3, 4, 0, 0, 0, 0, 4, 0, 0, 0, 0}, uint64(1), []byte("k"), uint8(10))
	f.Add([]byte{0xff, 30, 0, 0, 0, 0, 2, 0, 0, 0, 200}, uint64(1<<63), []byte(""), uint8(10))
	f.Fuzz(func(t *testing.T, contents []byte, off uint64, key []byte, pol uint8) {
		spec := PolicySpec{Test: pol == 0, BitsPerKey: int(pol % 40)}
		c := ReaderCase{Name: "fuzz", Policy: spec, Contents: contents,
			Queries: []Query{{off, key}, {off >> 11, key}, {0, key}, {off & 0xffff, key}}}
		failIf(t, run(BloomPort(), liveOracle{}, caseSet{reader: []ReaderCase{c}}))
	})
}

func failIf(t *testing.T, res *results) {
	t.Helper()
	for _, fs := range res.byProp {
		for _, f := range fs {
			t.Fatal(f)
		}
	}
}
