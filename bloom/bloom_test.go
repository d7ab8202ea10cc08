package bloom

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand"
	"testing"
)

// key is util/bloom_test.cc's Key: the little-endian 32-bit encoding of i.
func key(i int) []byte { return binary.LittleEndian.AppendUint32(nil, uint32(i)) }

// Cases of util/bloom_test.cc follow, with 10 bits per key.

func TestBloomEmptyFilter(t *testing.T) {
	p := NewPolicy(10)
	for _, k := range []string{"hello", "world"} {
		if p.KeyMayMatch([]byte(k), nil) {
			t.Errorf("empty filter matches %q", k)
		}
	}
}

func TestBloomSmall(t *testing.T) {
	p := NewPolicy(10)
	f := p.CreateFilter([][]byte{[]byte("hello"), []byte("world")}, nil)
	for k, want := range map[string]bool{"hello": true, "world": true, "x": false, "foo": false} {
		if got := p.KeyMayMatch([]byte(k), f); got != want {
			t.Errorf("KeyMayMatch(%q) = %v, want %v", k, got, want)
		}
	}
}

func nextLength(n int) int {
	switch {
	case n < 10:
		return n + 1
	case n < 100:
		return n + 10
	case n < 1000:
		return n + 100
	}
	return n + 1000
}

func TestBloomVaryingLengths(t *testing.T) {
	p := NewPolicy(10)
	mediocre, good := 0, 0
	for length := 1; length <= 10000; length = nextLength(length) {
		keys := make([][]byte, length)
		for i := range keys {
			keys[i] = key(i)
		}
		f := p.CreateFilter(keys, nil)
		if max := length*10/8 + 40; len(f) > max {
			t.Fatalf("length %d: filter is %d bytes, want at most %d", length, len(f), max)
		}
		for i, k := range keys {
			if !p.KeyMayMatch(k, f) {
				t.Fatalf("length %d: key %d filtered out", length, i)
			}
		}
		fp := 0
		for i := 0; i < 10000; i++ {
			if p.KeyMayMatch(key(i+1000000000), f) {
				fp++
			}
		}
		rate := float64(fp) / 10000
		if rate > 0.02 {
			t.Fatalf("length %d: false-positive rate %.4f, want at most 0.02", length, rate)
		}
		if rate > 0.0125 {
			mediocre++
		} else {
			good++
		}
	}
	if mediocre > good/5 {
		t.Errorf("%d mediocre filters and %d good ones, want at most one mediocre per five good", mediocre, good)
	}
}

// Edge cases, with expectations from util/bloom.cc's arithmetic.

func TestProbesAndSize(t *testing.T) {
	cases := []struct {
		bitsPerKey, n int
		wantK         byte
		wantLen       int // array bytes + the k byte
	}{
		{-5, 3, 1, 8 + 1},      // negative treated as 0: 64 bits
		{0, 0, 1, 8 + 1},       // 0*0.69 = 0, clamped to 1
		{0, 1000, 1, 8 + 1},    // 0 bits/key: still 64 bits
		{1, 0, 1, 8 + 1},       // 0.69 -> 0 -> 1
		{2, 1, 1, 8 + 1},       // 1.38 -> 1
		{3, 1, 2, 8 + 1},       // 2.07 -> 2
		{10, 3, 6, 8 + 1},      // 30 bits -> 64
		{10, 7, 6, 9 + 1},      // 70 bits -> 72
		{10, 10, 6, 13 + 1},    // 100 bits -> 104
		{43, 2, 29, 11 + 1},    // 29.67 -> 29; 86 bits -> 88
		{44, 2, 30, 11 + 1},    // 30.36 -> 30; 88 bits
		{1000, 3, 30, 375 + 1}, // clamped to 30
		{7, 100000, 4, 87500 + 1},
	}
	for _, c := range cases {
		keys := make([][]byte, c.n)
		for i := range keys {
			keys[i] = key(i)
		}
		f := NewPolicy(c.bitsPerKey).CreateFilter(keys, nil)
		if len(f) != c.wantLen || f[len(f)-1] != c.wantK {
			t.Errorf("bits/key %d, n %d: filter of %d bytes with k %d, want %d bytes with k %d",
				c.bitsPerKey, c.n, len(f), f[len(f)-1], c.wantLen, c.wantK)
		}
	}
}

// refFilter builds a bloom filter the way util/bloom.cc describes it, one key
// and one probe at a time, with 64-bit modulo; signed selects the legacy x86
// hash (tail bytes as signed chars).
func refFilter(keys [][]byte, bitsPerKey, k int, signed bool) []byte {
	bits := len(keys) * bitsPerKey
	if bits < 64 {
		bits = 64
	}
	nbytes := (bits + 7) / 8
	bits = nbytes * 8
	f := make([]byte, nbytes+1)
	f[nbytes] = byte(k)
	for _, key := range keys {
		h := refHash(key, 0xbc9f1d34, signed)
		delta := h>>17 | h<<15
		for j := 0; j < k; j++ {
			pos := uint64(h) % uint64(bits)
			f[pos/8] |= 1 << (pos % 8)
			h += delta
		}
	}
	return f
}

func TestCreateFilterReference(t *testing.T) {
	for _, bpk := range []int{1, 2, 5, 10, 16, 23, 44, 64} {
		for _, n := range []int{0, 1, 2, 5, 31, 100, 1000} {
			keys := make([][]byte, n)
			for i := range keys {
				keys[i] = bytes.Repeat([]byte{byte(0xf0 + i)}, i%19)
			}
			got := NewPolicy(bpk).CreateFilter(keys, nil)
			want := refFilter(keys, bpk, ProbesFor(bpk), false)
			if !bytes.Equal(got, want) {
				t.Errorf("bits/key %d, n %d: filter differs from the reference", bpk, n)
			}
		}
	}
}

func TestDuplicatesCount(t *testing.T) {
	one := [][]byte{[]byte("k")}
	ten := [][]byte{}
	for i := 0; i < 10; i++ {
		ten = append(ten, []byte("k"))
	}
	p := NewPolicy(10)
	// 10 copies: 100 bits -> 13 bytes; 1 copy: 64 bits -> 8 bytes.
	if got := len(p.CreateFilter(ten, nil)); got != 14 {
		t.Errorf("10 duplicate keys: %d bytes, want 14", got)
	}
	if got := len(p.CreateFilter(one, nil)); got != 9 {
		t.Errorf("1 key: %d bytes, want 9", got)
	}
}

func TestCreateFilterAppends(t *testing.T) {
	p := NewPolicy(10)
	keys := [][]byte{[]byte("hello"), []byte("world")}
	want := p.CreateFilter(keys, nil)

	// Spare capacity full of garbage must not leak into the filter.
	backing := bytes.Repeat([]byte{0xff}, 64)
	dst := backing[:3]
	got := p.CreateFilter(keys, dst)
	if !bytes.Equal(got[:3], []byte{0xff, 0xff, 0xff}) {
		t.Fatalf("prefix changed: % x", got[:3])
	}
	if !bytes.Equal(got[3:], want) {
		t.Fatalf("filter after a prefix = % x, want % x", got[3:], want)
	}
	// Appending to a full slice leaves the original untouched.
	orig := []byte{1, 2, 3}
	got = p.CreateFilter(keys, orig[:3:3])
	if !bytes.Equal(orig, []byte{1, 2, 3}) || !bytes.Equal(got[3:], want) {
		t.Fatalf("append to full slice: orig % x, filter % x", orig, got[3:])
	}
}

func TestKeyMayMatchMalformed(t *testing.T) {
	p := NewPolicy(10)
	k := []byte("hello")
	zeros := func(n int, kb byte) []byte { f := make([]byte, n); f[n-1] = kb; return f }
	cases := []struct {
		name   string
		filter []byte
		want   bool
	}{
		{"nil", nil, false},
		{"len 1", []byte{6}, false},
		{"len 1 k 0xff", []byte{0xff}, false},
		{"k 0 probes nothing", zeros(9, 0), true},
		{"k 1 all zero", zeros(9, 1), false},
		{"k 30 all zero", zeros(9, 30), false},
		{"k 31 reserved", zeros(9, 31), true},
		{"k 0x7f reserved", zeros(9, 0x7f), true},
		{"k 0x80 reserved", zeros(9, 0x80), true},
		{"k 0xff reserved", zeros(9, 0xff), true},
		{"len 2 all ones", []byte{0xff, 30}, true},
		{"len 2 k 1 zero", []byte{0x00, 1}, false},
	}
	for _, c := range cases {
		if got := p.KeyMayMatch(k, c.filter); got != c.want {
			t.Errorf("%s: KeyMayMatch = %v, want %v", c.name, got, c.want)
		}
	}
}

// A filter of 2^32 bits or more: upstream's 64-bit modulo leaves the hash
// unchanged, so the probes land at h, h+delta, ... without wrapping at the
// filter size. 2^29+1 bytes is 2^32+8 bits, where a 32-bit modulo would wrap.
func TestWideFilter(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates 1 GiB")
	}
	const bpk = 1<<32 + 8
	k := []byte("wide")
	f := NewPolicy(bpk).CreateFilter([][]byte{k}, nil)
	if len(f) != 1<<29+2 || f[len(f)-1] != 30 {
		t.Fatalf("filter of %d bytes, k %d; want %d bytes, k 30", len(f), f[len(f)-1], 1<<29+2)
	}
	h := refHash(k, 0xbc9f1d34, false)
	delta := h>>17 | h<<15
	want := make([]byte, len(f))
	want[len(want)-1] = 30
	for j := 0; j < 30; j++ {
		want[h/8] |= 1 << (h % 8)
		h += delta
	}
	if !bytes.Equal(f, want) {
		t.Fatal("wide filter's bits are not at the unwrapped probe positions")
	}
	p := NewPolicy(10)
	if !p.KeyMayMatch(k, f) {
		t.Fatal("wide filter does not match its key")
	}
	// Clearing the bit of the first probe must make the key miss.
	h = refHash(k, 0xbc9f1d34, false)
	f[h/8] &^= 1 << (h % 8)
	if p.KeyMayMatch(k, f) {
		t.Fatal("wide filter matches with its first probe bit cleared")
	}
}

func TestNames(t *testing.T) {
	if got := NewPolicy(10).Name(); got != "leveldb.BuiltinBloomFilter2" {
		t.Errorf("NewPolicy name %q", got)
	}
	for _, signed := range []bool{false, true} {
		if got := NewLegacyPolicy(10, signed).Name(); got != "leveldb.BuiltinBloomFilter" {
			t.Errorf("NewLegacyPolicy(%v) name %q", signed, got)
		}
	}
}

func TestLegacyPolicy(t *testing.T) {
	// Keys with a high tail byte hash differently in the signed variant;
	// each variant must find its own keys.
	var keys [][]byte
	for i := 0; i < 200; i++ {
		keys = append(keys, []byte(fmt.Sprintf("key%04d-\xe9", i)))
	}
	unsigned := NewLegacyPolicy(10, false)
	signed := NewLegacyPolicy(10, true)
	fu := unsigned.CreateFilter(keys, nil)
	fs := signed.CreateFilter(keys, nil)
	if !bytes.Equal(fu, NewPolicy(10).CreateFilter(keys, nil)) {
		t.Error("unsigned legacy filter differs from the current one")
	}
	if bytes.Equal(fu, fs) {
		t.Error("signed and unsigned legacy filters are equal for high tail bytes")
	}
	for _, k := range keys {
		if !signed.KeyMayMatch(k, fs) || !unsigned.KeyMayMatch(k, fu) {
			t.Fatalf("legacy policy filters out its own key %q", k)
		}
	}
}

// TestKeyMayMatchInlineHash checks KeyMayMatch, which computes Hash (or
// HashSignedTail) inline, against probes of the hash's value, for keys of
// every length to 70, tail bytes high and low: a key matches a filter
// holding only its own probe bits, and misses once any one of them is
// cleared.
func TestKeyMayMatchInlineHash(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	for n := 0; n <= 70; n++ {
		key := make([]byte, n)
		rng.Read(key)
		if n%2 == 0 {
			for i := range key {
				key[i] |= 0x80 // tail bytes a signed char would sign-extend
			}
		}
		for _, signed := range []bool{false, true} {
			h := Hash(key, bloomSeed)
			if signed {
				h = HashSignedTail(key, bloomSeed)
			}
			delta := h>>17 | h<<15
			p := newBloom(10, PolicyName, signed)
			for _, k := range []int{1, 6, 7, 30} {
				for _, nbytes := range []int{1, 8, 13, 12500} {
					filter := make([]byte, nbytes+1)
					filter[nbytes] = byte(k)
					addHashes(filter[:nbytes], k, []uint32{h})
					if !p.KeyMayMatch(key, filter) {
						t.Fatalf("key of %d bytes, signed %v, k %d: misses a filter of its own bits", n, signed, k)
					}
					for j := 0; j < k; j++ {
						pos := uint64(h+uint32(j)*delta) % uint64(nbytes*8)
						f := append([]byte(nil), filter...)
						f[pos/8] &^= 1 << (pos % 8)
						if p.KeyMayMatch(key, f) {
							t.Fatalf("key of %d bytes, signed %v, k %d: matches with probe %d cleared", n, signed, k, j)
						}
					}
				}
			}
		}
	}
}

// TestKeyMayMatchWide checks KeyMayMatch at 10 bits per key (k = 6) on a
// filter of more than 2^32 bits, on every way of testing the bits: there
// util/bloom.cc's probe, h % bits with bits a size_t, is h itself, which
// the reducer (exact below 2^32 bits) does not give, so every path must
// leave it for the wide one. A key matches a filter holding only its own
// probe bits, and misses once any one of them is cleared. The filter is
// 2^30-1 bytes of zeroes (the test touches a few pages), where the
// reducer, were it used, would give h+1 for most h from 2^31 on: its
// m*nbytes exceeds 2^61 by 2^30-3.
func TestKeyMayMatchWide(t *testing.T) {
	if testing.Short() {
		t.Skip("a filter of 1 GiB")
	}
	const k = 6
	nbytes := 1<<30 - 1
	filter := make([]byte, nbytes+1)
	filter[nbytes] = k
	rng := rand.New(rand.NewSource(21))
	for i := 0; i < 8; i++ {
		key := make([]byte, 1+rng.Intn(40))
		rng.Read(key)
		h := Hash(key, bloomSeed)
		delta := h>>17 | h<<15
		var pos [k]uint32 // the probes, each its own bit
		for j := range pos {
			pos[j] = h + uint32(j)*delta
			filter[pos[j]/8] |= 1 << (pos[j] % 8)
		}
		p := NewPolicy(10)
		if !p.KeyMayMatch(key, filter) {
			t.Fatalf("key %x: misses a filter of 2^33-8 bits holding its probe bits", key)
		}
		for j := range pos {
			filter[pos[j]/8] &^= 1 << (pos[j] % 8)
			if p.KeyMayMatch(key, filter) {
				t.Fatalf("key %x: matches with probe %d (bit %d) cleared", key, j, pos[j])
			}
			filter[pos[j]/8] |= 1 << (pos[j] % 8)
		}
		for j := range pos {
			filter[pos[j]/8] = 0
		}
	}
}
