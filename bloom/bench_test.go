package bloom

import (
	"math/rand"
	"testing"
)

// Benchmarks report ns/key (the unit of `make bench`, which also times
// upstream C++ on the same inputs) and allocations. The tests at the end
// check the fast paths they measure against plain arithmetic.

// benchKeys returns n random 16-byte keys from a fixed seed.
func benchKeys(n int, seed int64) [][]byte {
	rng := rand.New(rand.NewSource(seed))
	keys := make([][]byte, n)
	for i := range keys {
		k := make([]byte, 16)
		rng.Read(k)
		keys[i] = k
	}
	return keys
}

const benchN, benchBits = 10000, 10

func reportPerKey(b *testing.B, perOp int) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(perOp), "ns/key")
}

func BenchmarkCreateFilter(b *testing.B) {
	keys := benchKeys(benchN, 1)
	p := NewPolicy(benchBits)
	dst := p.CreateFilter(keys, nil)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		dst = p.CreateFilter(keys, dst[:0])
	}
	reportPerKey(b, benchN)
}

func benchMatch(b *testing.B, queries [][]byte) {
	keys := benchKeys(benchN, 1)
	p := NewPolicy(benchBits)
	f := p.CreateFilter(keys, nil)
	b.ReportAllocs()
	b.ResetTimer()
	hits := 0
	for i := 0; i < b.N; i++ {
		for _, k := range queries {
			if p.KeyMayMatch(k, f) {
				hits++
			}
		}
	}
	reportPerKey(b, len(queries))
	benchSink = hits
}

// benchSink keeps the benchmarked answers live.
var benchSink int

func BenchmarkKeyMayMatchHit(b *testing.B) { benchMatch(b, benchKeys(benchN, 1)) }

func BenchmarkKeyMayMatchMiss(b *testing.B) { benchMatch(b, benchKeys(benchN, 2)) }

// buildTable feeds fb the keys of a table of 4 KiB data blocks holding 100
// keys each, as table/table_builder.cc would, and finishes it.
func buildTable(fb *FilterBlockBuilder, keys [][]byte) []byte {
	for j, k := range keys {
		if j%100 == 0 {
			fb.StartBlock(uint64(j/100) * 4096)
		}
		fb.AddKey(k)
	}
	return fb.Finish()
}

// BenchmarkFilterBlockBuilder builds the filter block of a table of 4 KiB
// data blocks holding 100 16-byte keys each, with a new builder per table.
func BenchmarkFilterBlockBuilder(b *testing.B) {
	keys := benchKeys(benchN, 3)
	p := NewPolicy(benchBits)
	b.ReportAllocs()
	b.SetBytes(int64(benchN * 16))
	for i := 0; i < b.N; i++ {
		buildTable(NewFilterBlockBuilder(p), keys)
	}
	reportPerKey(b, benchN)
}

// BenchmarkFilterBlockBuilderReset is BenchmarkFilterBlockBuilder with one
// builder Reset between tables, as a table writer that keeps it does:
// nothing is allocated once the buffers have grown.
func BenchmarkFilterBlockBuilderReset(b *testing.B) {
	keys := benchKeys(benchN, 3)
	fb := NewFilterBlockBuilder(NewPolicy(benchBits))
	buildTable(fb, keys)
	b.ReportAllocs()
	b.SetBytes(int64(benchN * 16))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		fb.Reset()
		buildTable(fb, keys)
	}
	reportPerKey(b, benchN)
}

// BenchmarkAddKey measures AddKey alone, the builder's buffers grown:
// amortised, it allocates nothing.
func BenchmarkAddKey(b *testing.B) {
	keys := benchKeys(1024, 4)
	fb := NewFilterBlockBuilder(NewPolicy(benchBits))
	for _, k := range keys {
		fb.AddKey(k) // grow the buffers
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%len(keys) == 0 {
			fb.Reset()
		}
		fb.AddKey(keys[i%len(keys)])
	}
}

func BenchmarkHash16(b *testing.B) {
	keys := benchKeys(benchN, 5)
	b.ReportAllocs()
	b.ResetTimer()
	var h uint32
	for i := 0; i < b.N; i++ {
		for _, k := range keys {
			h += Hash(k, bloomSeed)
		}
	}
	reportPerKey(b, benchN)
	benchSink = int(h)
}

// TestReducer checks the reducer, which replaces upstream's h % bits,
// against the division, and that its byte index stays inside the array
// (KeyMayMatch reads without bounds checks on that ground): every size up
// to 4 KiB and sizes up to the reducer's limit, with hashes at the edges
// and at random.
func TestReducer(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	hashes := []uint32{0, 1, 7, 8, 1<<31 - 1, 1 << 31, 1<<32 - 9, 1<<32 - 1}
	for i := 0; i < 64; i++ {
		hashes = append(hashes, rng.Uint32())
	}
	sizes := []int{narrowBytes - 1, narrowBytes - 2, 1 << 27, 1<<27 + 1, 12500, 1 << 20}
	for n := 1; n <= 4096; n++ {
		sizes = append(sizes, n)
	}
	for i := 0; i < 2000; i++ {
		sizes = append(sizes, 1+rng.Intn(narrowBytes-1))
	}
	for _, n := range sizes {
		r := newReducer(n)
		nbits := uint64(n) * 8
		hs := hashes
		// Hashes just below and at multiples of bits, where the
		// remainder is largest and smallest.
		for _, q := range []uint64{1, 2, (1 << 32) / nbits} {
			if m := q * nbits; m < 1<<32 {
				hs = append(hs, uint32(m), uint32(m-1))
			}
		}
		for _, h := range hs {
			i, bit := r.reduce(h)
			want := uint64(h) % nbits
			if i >= uint64(n) || i != want/8 || uint64(bit) != want%8 {
				t.Fatalf("%d bytes, h %#x: reduce = byte %d bit %d, want byte %d bit %d", n, h, i, bit, want/8, want%8)
			}
		}
	}
	for _, n := range []int{narrowBytes, narrowBytes + 1, 1<<29 - 1} {
		r := newWideReducer(n)
		for _, h := range hashes {
			i, bit := r.reduce(h)
			want := uint64(h) % (uint64(n) * 8)
			if i != want/8 || uint64(bit) != want%8 {
				t.Fatalf("wide, %d bytes, h %#x: byte %d bit %d, want byte %d bit %d", n, h, i, bit, want/8, want%8)
			}
		}
	}
}

// TestKeyMayMatchInlineHash checks KeyMayMatch, which computes Hash inline
// and writes the probes of k = 6 out, against probes of Hash's value, for
// keys of every length to 70: a key matches a filter holding only its own
// probe bits, and misses once any one of them is cleared.
func TestKeyMayMatchInlineHash(t *testing.T) {
	p := NewPolicy(benchBits)
	rng := rand.New(rand.NewSource(9))
	for n := 0; n <= 70; n++ {
		key := make([]byte, n)
		rng.Read(key)
		h := Hash(key, bloomSeed)
		delta := h>>17 | h<<15
		for _, k := range []int{1, 6, 7, 30} {
			for _, nbytes := range []int{1, 8, 13, 12500} {
				filter := make([]byte, nbytes+1)
				filter[nbytes] = byte(k)
				addHashes(filter[:nbytes], k, []uint32{h})
				if !p.KeyMayMatch(key, filter) {
					t.Fatalf("key of %d bytes, k %d: misses a filter of its own bits", n, k)
				}
				for j := 0; j < k; j++ {
					pos := uint64(h+uint32(j)*delta) % uint64(nbytes*8)
					f := append([]byte(nil), filter...)
					f[pos/8] &^= 1 << (pos % 8)
					if p.KeyMayMatch(key, f) {
						t.Fatalf("key of %d bytes, k %d: matches with probe %d cleared", n, k, j)
					}
				}
			}
		}
	}
}
