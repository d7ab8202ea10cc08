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

// FPR is a filter block's false-positive rate on keys absent from its
// table, measured and as theory predicts.
type FPR struct {
	// Samples is the number of absent keys queried, FalsePositives the
	// number the filters did not rule out, Measured their ratio.
	Samples        int
	FalsePositives int
	Measured       float64
	// Theoretical is (1-e^(-kn/m))^k averaged over the filters queried,
	// with n the number of distinct user keys in a filter: versions of a
	// key count towards a filter's size but set the same bits. The formula
	// assumes k independent hash functions, which LevelDB does not have:
	// it derives its k probes from one 32-bit hash (double hashing, the
	// positions taken modulo the filter's size), which small filters feel
	// most (in 64 bits, only 12 bits of the hash choose the probes).
	Theoretical float64
	// Expected is the rate expected of LevelDB's own probe scheme for
	// filters of the sizes queried, averaged as Measured is
	// (ExpectFilters), or NaN when it was not computed.
	Expected float64
	// Shortened counts the samples cut to MaxSampleKey bytes, drawn for
	// stored keys longer than that.
	Shortened int
}

// MaxSampleKey is the longest absent key MeasureFPR queries: a sample
// drawn for a longer stored key is cut to it, so that a table of
// megabyte keys costs what one of ordinary keys does (a filter's answer
// depends on a key's hash, uniform whatever its length). A table of one
// 4 MiB key took past a minute of 10,000 samples of its length.
const MaxSampleKey = 1024

// maxCollidingKey is the longest key length at which a random absent key
// may be a stored one with a probability worth ruling out: a random key of
// 17 bytes or more equals one of n stored keys with probability at most
// n/2^136, so only shorter stored keys are kept to check samples against.
const maxCollidingKey = 16

// Simulation size of ExpectedFPR: filters built and absent keys queried
// against each.
const (
	expectedFilters = 32
	expectedQueries = 1024
)

// ExpectedFPR is the false-positive rate that policy p's filters give, on
// average, for n keys of which distinct are distinct (versions of a key
// count towards a filter's size but set the same bits), simulated on
// random 16-byte keys, reproducibly for a seed. It also returns the
// length the filters have (their k byte included) and their k, for the
// caller to check that they match a stored filter's.
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
			// A random 16-byte key is absent but with probability 2^-128
			// per key.
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

// MeasureFPR queries samples random keys that are not among the table's
// user keys against the stored filter block, read with policy p as
// upstream's FilterBlockReader reads it. Each query goes to a non-empty
// filter chosen uniformly; keys have the length of a random stored key, at
// most MaxSampleKey (FPR.Shortened counts those cut), and random bytes;
// seed makes the choice reproducible. When no filter holds
// keys, or samples is not positive, it returns an FPR of no samples, its
// Expected NaN (not computed).
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

// ExpectFilters sets fpr.Expected, the false-positive rate expected of
// LevelDB's own probe scheme for the filter block's filters, averaged over
// the filters MeasureFPR queries: for each, what policy p's filters for
// the same number of keys (and of distinct keys) give on random key sets
// and random absent keys (ExpectedFPR). Call it only for a block that p
// writes byte for byte from the table's keys (a check that passed): then
// p's filters have the stored ones' sizes and k, and cost no more memory.
// Filters of a size or k that p does not give leave Expected NaN.
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

// distinctKeysPerFilter is KeysPerFilter counting each user key once per
// filter. Keys longer than 32 bytes are told apart by a 64-bit FNV-1a hash
// and their length rather than kept whole: two distinct ones of a filter
// are counted as one with a probability of about n^2/2^65.
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
