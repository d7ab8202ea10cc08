package bloom

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// The fuzz targets of this file check invariants and compare with the
// step-by-step reference models of the tests (refHash, refFilter and the
// models below), without C++. Under the leveldb build tag, package compat
// has the same targets comparing with upstream itself.

// refMayMatch is util/bloom.cc's KeyMayMatch written out with 64-bit
// arithmetic throughout.
func refMayMatch(key, filter []byte, signed bool) bool {
	n := len(filter)
	if n < 2 {
		return false
	}
	k := int(filter[n-1])
	if k > 30 {
		return true
	}
	bits := uint64(n-1) * 8
	h := refHash(key, 0xbc9f1d34, signed)
	delta := h>>17 | h<<15
	for j := 0; j < k; j++ {
		pos := uint64(h) % bits
		if filter[pos/8]&(1<<(pos%8)) == 0 {
			return false
		}
		h += delta
	}
	return true
}

// refReaderMatch is table/filter_block.cc's reader, constructor and query in
// one, with every bound spelled out.
func refReaderMatch(p FilterPolicy, contents []byte, offset uint64, key []byte) bool {
	n := uint64(len(contents))
	if n < 5 {
		return true
	}
	lg := uint64(contents[n-1]) % 64
	last := uint64(binary.LittleEndian.Uint32(contents[n-5:]))
	if last > n-5 {
		return true
	}
	num := (n - 5 - last) / 4
	index := offset >> lg
	if index >= num {
		return true
	}
	start := uint64(binary.LittleEndian.Uint32(contents[last+index*4:]))
	limit := uint64(binary.LittleEndian.Uint32(contents[last+index*4+4:]))
	if start <= limit && limit <= last {
		return p.KeyMayMatch(key, contents[start:limit])
	}
	return start != limit
}

// splitKeys cuts data into keys at each 0xff byte.
func splitKeys(data []byte) [][]byte {
	keys := bytes.Split(data, []byte{0xff})
	if len(data) == 0 {
		return nil
	}
	return keys
}

func FuzzHash(f *testing.F) {
	for _, c := range upstreamHashCases {
		f.Add(c.data, c.seed)
	}
	f.Fuzz(func(t *testing.T, data []byte, seed uint32) {
		if got, want := Hash(data, seed), refHash(data, seed, false); got != want {
			t.Fatalf("Hash(% x, %#x) = %#x, reference %#x", data, seed, got, want)
		}
		if got, want := HashSignedTail(data, seed), refHash(data, seed, true); got != want {
			t.Fatalf("HashSignedTail(% x, %#x) = %#x, reference %#x", data, seed, got, want)
		}
	})
}

func FuzzCreateFilter(f *testing.F) {
	f.Add([]byte("hello\xffworld"), uint16(10), []byte{})
	f.Add([]byte("\xff\xff\xff"), uint16(0), []byte{1, 2, 3})
	f.Add([]byte("a\xffa\xffa"), uint16(372), []byte{})
	f.Add([]byte("\x80\x81\x82\xff\xfe"), uint16(1000), []byte{0xff})
	f.Fuzz(func(t *testing.T, data []byte, bpk uint16, dst []byte) {
		// The fuzzing engine may pass arguments that share one backing
		// array: appending to dst would then overwrite the keys.
		dst = bytes.Clone(dst)
		bitsPerKey := int(bpk % 1001)
		keys := splitKeys(data)
		want := refFilter(keys, bitsPerKey, ProbesFor(bitsPerKey), false)
		p := NewPolicy(bitsPerKey)
		prefix := append([]byte(nil), dst...)
		out := p.CreateFilter(keys, dst)
		if !bytes.Equal(out[:len(prefix)], prefix) || !bytes.Equal(dst, prefix) {
			t.Fatal("CreateFilter changed dst[:len(dst)]")
		}
		filter := out[len(prefix):]
		if !bytes.Equal(filter, want) {
			t.Fatalf("bits/key %d, keys %q: filter differs from the reference", bitsPerKey, keys)
		}
		for _, k := range keys {
			if !p.KeyMayMatch(k, filter) {
				t.Fatalf("bits/key %d: key %q filtered out", bitsPerKey, k)
			}
		}
	})
}

func FuzzKeyMayMatch(f *testing.F) {
	f.Add([]byte("key"), []byte{})
	f.Add([]byte("key"), []byte{6})
	f.Add([]byte("key"), []byte{0xff, 0xff, 30})
	f.Add([]byte(""), []byte{0, 0, 0, 0, 0, 0, 0, 0, 0x80})
	f.Add([]byte("k\xe9"), []byte{0x5a, 0xa5, 0x5a, 0xa5, 0, 1})
	f.Fuzz(func(t *testing.T, key, filter []byte) {
		for _, signed := range []bool{false, true} {
			want := refMayMatch(key, filter, signed)
			p := newBloom(10, PolicyName, signed)
			if got := p.KeyMayMatch(key, filter); got != want {
				t.Fatalf("signed %v: KeyMayMatch(% x, % x) = %v, reference %v", signed, key, filter, got, want)
			}
		}
	})
}

// fuzzOps decodes builder calls from data: each byte's low two bits pick
// StartBlock (offset from the next 3 bytes, scaled by the byte), AddKey (a
// key of the next few bytes) or, at most 4 times, Finish.
type fuzzOp struct {
	kind   int // 0 StartBlock, 1 AddKey, 2 Finish
	offset uint64
	key    []byte
}

func decodeOps(data []byte) []fuzzOp {
	var ops []fuzzOp
	finishes := 0
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
			ops = append(ops, fuzzOp{kind: 0, offset: v << (b >> 5)}) // up to 2^31
		case 1:
			n := min(int(b>>2)%16, len(data))
			ops = append(ops, fuzzOp{kind: 1, key: data[:n]})
			data = data[n:]
		case 2:
			// Each Finish appends the whole offset array again and is
			// copied: a few are enough, hundreds after a huge StartBlock
			// take gigabytes.
			if b>>2%8 == 0 && finishes < 4 {
				ops = append(ops, fuzzOp{kind: 2})
				finishes++
			}
		}
	}
	return ops
}

// refBlock builds a filter block from first principles: a filter per 2 KiB
// range up to the last StartBlock's, keys going to the latest range started.
func refBlock(p FilterPolicy, ops []fuzzOp) [][]byte {
	var result []byte
	var offsets []uint32
	var pending [][]byte
	flush := func() {
		offsets = append(offsets, uint32(len(result)))
		if len(pending) > 0 {
			result = p.CreateFilter(pending, result)
			pending = nil
		}
	}
	var outs [][]byte
	for _, op := range ops {
		switch op.kind {
		case 0:
			for uint64(len(offsets)) < op.offset/2048 {
				flush()
			}
		case 1:
			pending = append(pending, append([]byte{}, op.key...))
		case 2:
			if len(pending) > 0 {
				flush()
			}
			arr := uint32(len(result))
			for _, o := range offsets {
				result = binary.LittleEndian.AppendUint32(result, o)
			}
			result = binary.LittleEndian.AppendUint32(result, arr)
			result = append(result, 11)
			outs = append(outs, append([]byte(nil), result...))
		}
	}
	return outs
}

func FuzzFilterBlockBuilder(f *testing.F) {
	f.Add([]byte{0, 0, 0, 100, 1 | 3<<2, 'f', 'o', 'o', 0, 0, 0x10, 0, 1 | 1<<2, 'x', 2}, true)
	f.Add([]byte{2}, false)
	f.Add([]byte{0xe0, 0xff, 0xff, 0xff, 1 | 2<<2, 1, 2, 2, 2}, false)
	f.Fuzz(func(t *testing.T, data []byte, test bool) {
		ops := decodeOps(data)
		var p FilterPolicy = NewPolicy(10)
		if test {
			p = &testHashPolicy{}
		}
		b := NewFilterBlockBuilder(p)
		var outs [][]byte
		type added struct {
			off uint64
			key []byte
		}
		var keys []added
		cur, monotonic := uint64(0), true
		for _, op := range ops {
			switch op.kind {
			case 0:
				if op.offset>>11 < cur>>11 {
					monotonic = false
				}
				cur = op.offset
				b.StartBlock(op.offset)
			case 1:
				b.AddKey(op.key)
				keys = append(keys, added{cur, op.key})
			case 2:
				outs = append(outs, append([]byte(nil), b.Finish()...))
			}
		}
		want := refBlock(p, ops)
		if len(outs) != len(want) {
			t.Fatalf("%d Finish results, reference %d", len(outs), len(want))
		}
		for i := range outs {
			if !bytes.Equal(outs[i], want[i]) {
				t.Fatalf("Finish %d: block differs from the reference\n got % x\nwant % x", i, outs[i], want[i])
			}
		}
		// A table's builder sees increasing offsets and one Finish: then no
		// added key may be filtered out.
		if monotonic && len(outs) == 1 && ops[len(ops)-1].kind == 2 {
			r := NewFilterBlockReader(p, outs[0])
			for _, k := range keys {
				if !r.KeyMayMatch(k.off, k.key) {
					t.Fatalf("key %q added at offset %d filtered out", k.key, k.off)
				}
			}
		}
	})
}

func FuzzFilterBlockReader(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 11}, uint64(0), []byte("foo"), false)
	f.Add([]byte{1, 2, 3, 4, 0, 0, 0, 0, 4, 0, 0, 0, 0}, uint64(1), []byte("k"), true)
	f.Add([]byte{0xff, 30, 0, 0, 0, 0, 2, 0, 0, 0, 200}, uint64(1<<63), []byte(""), false)
	f.Fuzz(func(t *testing.T, contents []byte, offset uint64, key []byte, test bool) {
		var p FilterPolicy = NewPolicy(10)
		if test {
			p = &testHashPolicy{}
		}
		r := NewFilterBlockReader(p, contents)
		if got, want := r.KeyMayMatch(offset, key), refReaderMatch(p, contents, offset, key); got != want {
			t.Fatalf("KeyMayMatch(%d, % x) on % x = %v, reference %v", offset, key, contents, got, want)
		}
	})
}
