package filtercheck

import (
	"encoding/binary"
	"math"
	"math/rand/v2"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/internal/filterblock"
)

// TheoreticalFPR is the textbook false-positive rate of a bloom filter of
// m bits holding n keys with k probes: (1 - e^(-kn/m))^k.
func TheoreticalFPR(m, n, k int) float64 {
	if m <= 0 || k <= 0 {
		return 1
	}
	return math.Pow(1-math.Exp(-float64(k)*float64(n)/float64(m)), float64(k))
}

// FPR is a filter block's false-positive rate, measured and predicted.
type FPR struct {
	// Samples absent keys queried, FalsePositives not ruled out, Measured
	// their ratio.
	Samples        int
	FalsePositives int
	Measured       float64
	// Theoretical is (1-e^(-kn/m))^k averaged over the filters queried, n
	// their distinct keys. It assumes k independent hashes; LevelDB
	// double-hashes one 32-bit hash, which small filters feel most.
	Theoretical float64
	// Expected is LevelDB's own scheme's rate for these filter sizes
	// (ExpectFilters), else NaN.
	Expected float64
	// Shortened counts samples cut to MaxSampleKey.
	Shortened int
}

// MaxSampleKey is the longest key MeasureFPR queries; the answer depends
// only on the hash, and one 4 MiB key's samples took past a minute.
const MaxSampleKey = 1024

// maxCollidingKey: a random key of 17 bytes or more equals one of n stored
// keys with probability n/2^136 at most, so only shorter ones are checked.
const maxCollidingKey = 16

// ExpectedFPR's simulation: filters built, absent keys queried on each.
const (
	expectedFilters = 32
	expectedQueries = 1024
)

// ExpectedFPR simulates p's false-positive rate for n keys (distinct of
// them distinct) on random 16-byte keys, reproducibly for seed, and
// returns the filters' length (k byte included) and k.
func ExpectedFPR(p bloom.FilterPolicy, n, distinct int, seed uint64) (rate float64, length, k int) {
	rng := rand.New(rand.NewPCG(seed, uint64(n)<<32|uint64(distinct)))
	random := func(dst []byte) {
		for i := 0; i < len(dst); i += 8 {
			binary.LittleEndian.PutUint64(dst[i:], rng.Uint64())
		}
	}
	keys := make([][]byte, n)
	flat := make([]byte, 16*max(distinct, 1))
	query := make([]byte, 16)
	var filter []byte
	hits := 0
	for range expectedFilters {
		random(flat)
		for i := range keys {
			j := i
			if i >= distinct {
				j = rng.IntN(max(distinct, 1))
			}
			keys[i] = flat[16*j : 16*j+16]
		}
		filter = p.CreateFilter(keys, filter[:0])
		for range expectedQueries {
			// A random 16-byte key is absent but for a 2^-128 chance.
			random(query)
			if p.KeyMayMatch(query, filter) {
				hits++
			}
		}
	}
	if len(filter) > 0 {
		k = int(filter[len(filter)-1])
	}
	return float64(hits) / float64(expectedFilters*expectedQueries), len(filter), k
}

// MeasureFPR queries samples random absent keys, each against a uniformly
// chosen non-empty filter of the stored block read as FilterBlockReader
// does; lengths follow random stored keys (at most MaxSampleKey), seeded.
// With no filter holding keys, or samples <= 0, Expected is NaN.
func MeasureFPR(contents []byte, l *Layout, blocks []BlockKeys, p bloom.FilterPolicy, samples int, seed uint64) FPR {
	keys := KeysPerFilter(blocks, l.BaseLg, len(l.Filters))
	distinct := distinctKeysPerFilter(blocks, l.BaseLg, len(l.Filters))
	var eligible []int
	var theory float64
	for i, f := range l.Filters {
		if f.Len > 1 && keys[i] > 0 {
			eligible = append(eligible, i)
			k := f.K(contents)
			if k > filterblock.MaxProbes {
				theory++ // upstream treats such filters as matching everything
			} else {
				theory += TheoreticalFPR((f.Len-1)*8, distinct[i], k)
			}
		}
	}
	if len(eligible) == 0 || samples <= 0 {
		return FPR{Expected: math.NaN()}
	}
	present := map[string]bool{} // the short keys a sample could equal
	var lengths []int
	for i := range blocks {
		blocks[i].EachKey(func(k []byte) {
			if len(k) <= maxCollidingKey {
				present[string(k)] = true
			}
			lengths = append(lengths, len(k))
		})
	}
	rng := rand.New(rand.NewPCG(seed, 0x66707266707266))
	r := bloom.NewFilterBlockReader(p, contents)
	fpr := FPR{Samples: samples, Theoretical: theory / float64(len(eligible)), Expected: math.NaN()}
	key := make([]byte, 0, 64)
	for s := 0; s < samples; s++ {
		n := lengths[rng.IntN(len(lengths))]
		if n > MaxSampleKey {
			n = MaxSampleKey
			fpr.Shortened++
		}
		for try := 0; ; try++ {
			if try > 0 && try%16 == 0 {
				n++ // short lengths may all be taken
			}
			key = key[:0]
			for j := 0; j < n; j++ {
				key = append(key, byte(rng.Uint32()))
			}
			if len(key) > maxCollidingKey || !present[string(key)] {
				break
			}
		}
		i := eligible[rng.IntN(len(eligible))]
		if r.KeyMayMatch(uint64(i)<<(uint(l.BaseLg)&63), key) {
			fpr.FalsePositives++
		}
	}
	fpr.Measured = float64(fpr.FalsePositives) / float64(samples)
	return fpr
}

// ExpectFilters sets fpr.Expected by ExpectedFPR for each queried filter's
// key counts. Call it only when p rebuilt the block byte for byte, so
// p's filters have the stored sizes and k; otherwise Expected stays NaN.
func ExpectFilters(fpr *FPR, contents []byte, l *Layout, blocks []BlockKeys, p bloom.FilterPolicy, seed uint64) {
	keys := KeysPerFilter(blocks, l.BaseLg, len(l.Filters))
	distinct := distinctKeysPerFilter(blocks, l.BaseLg, len(l.Filters))
	type shape struct{ n, distinct int }
	type sim struct {
		rate      float64
		length, k int
	}
	sims := map[shape]sim{}
	var sum float64
	n := 0
	for i, f := range l.Filters {
		if f.Len <= 1 || keys[i] == 0 {
			continue
		}
		n++
		k := f.K(contents)
		if k > filterblock.MaxProbes {
			sum++ // upstream treats such filters as matching everything
			continue
		}
		sh := shape{keys[i], distinct[i]}
		sm, ok := sims[sh]
		if !ok {
			sm.rate, sm.length, sm.k = ExpectedFPR(p, sh.n, sh.distinct, seed)
			sims[sh] = sm
		}
		if sm.length != f.Len || sm.k != k {
			fpr.Expected = math.NaN()
			return
		}
		sum += sm.rate
	}
	fpr.Expected = math.NaN()
	if n > 0 {
		fpr.Expected = sum / float64(n)
	}
}

// distinctKeysPerFilter is KeysPerFilter counting each key once; keys over
// 32 bytes are told apart by FNV-1a and length (collision ~n^2/2^65).
func distinctKeysPerFilter(blocks []BlockKeys, baseLg, num int) []int {
	counts := make([]int, num)
	seen := map[string]bool{}
	type digest struct{ hash, length uint64 }
	seenLong := map[digest]bool{}
	cur := -1
	for j := range blocks {
		b := &blocks[j]
		i := b.Handle.Offset >> (uint(baseLg) & 63)
		if i >= uint64(num) {
			continue
		}
		if int(i) != cur {
			cur = int(i)
			clear(seen)
			clear(seenLong)
		}
		b.EachKey(func(k []byte) {
			if len(k) <= 32 {
				if !seen[string(k)] {
					seen[string(k)] = true
					counts[i]++
				}
				return
			}
			d := digest{fnv64a(k), uint64(len(k))}
			if !seenLong[d] {
				seenLong[d] = true
				counts[i]++
			}
		})
	}
	return counts
}

// fnv64a is the 64-bit FNV-1a hash of b.
func fnv64a(b []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range b {
		h ^= uint64(c)
		h *= 1099511628211
	}
	return h
}
