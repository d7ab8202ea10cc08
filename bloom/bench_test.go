package bloom

import (
	"math/rand"
	"testing"
)

// Benchmarks report ns/key (the unit of `make bench`, which also times
// upstream C++ on the same inputs) and allocations. The fast paths they
// measure are tested against plain arithmetic in probe_test.go and
// bloom_test.go.

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

func BenchmarkHash16(b *testing.B) { benchHash(b, benchKeys(benchN, 5)) }

// BenchmarkHashMixed hashes keys of random lengths, 1 to 30 bytes, as in
// make bench's smallkeys database: how many whole words and tail bytes a
// key has changes from one key to the next.
func BenchmarkHashMixed(b *testing.B) {
	rng := rand.New(rand.NewSource(6))
	keys := make([][]byte, benchN)
	for i := range keys {
		keys[i] = make([]byte, 1+rng.Intn(30))
		rng.Read(keys[i])
	}
	benchHash(b, keys)
}

// benchHash hashes every key of keys once per iteration.
func benchHash(b *testing.B, keys [][]byte) {
	b.ReportAllocs()
	b.ResetTimer()
	var h uint32
	for i := 0; i < b.N; i++ {
		for _, k := range keys {
			h += Hash(k, bloomSeed)
		}
	}
	reportPerKey(b, len(keys))
	benchSink = int(h)
}
