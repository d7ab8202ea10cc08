package bloom

import (
	"math/rand"
	"testing"
)

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

// BenchmarkFilterBlockBuilder builds the filter block of a table of 4 KiB
// data blocks holding 100 16-byte keys each.
func BenchmarkFilterBlockBuilder(b *testing.B) {
	keys := benchKeys(benchN, 3)
	p := NewPolicy(benchBits)
	b.ReportAllocs()
	b.SetBytes(int64(benchN * 16))
	for i := 0; i < b.N; i++ {
		fb := NewFilterBlockBuilder(p)
		for j, k := range keys {
			if j%100 == 0 {
				fb.StartBlock(uint64(j/100) * 4096)
			}
			fb.AddKey(k)
		}
		fb.Finish()
	}
	reportPerKey(b, benchN)
}
