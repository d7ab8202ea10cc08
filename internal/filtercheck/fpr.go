package filtercheck

import (
	"math"
	"math/rand/v2"

	"github.com/ldbcompat/ldbcompat/bloom"
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
	// key count towards a filter's size but set the same bits.
	Theoretical float64
}

// MeasureFPR queries samples random keys that are not among the table's
// user keys against the stored filter block, read with policy p as
// upstream's FilterBlockReader reads it. Each query goes to a non-empty
// filter chosen uniformly; keys have the length of a random stored key and
// random bytes; seed makes the choice reproducible. It returns a zero FPR
// when no filter holds keys.
func MeasureFPR(contents []byte, l *Layout, blocks []Block, p bloom.FilterPolicy, samples int, seed uint64) FPR {
	keys := KeysPerFilter(blocks, l.BaseLg, len(l.Filters))
	distinct := distinctKeysPerFilter(blocks, l.BaseLg, len(l.Filters))
	var eligible []int
	var theory float64
	for i, f := range l.Filters {
		if f.Len > 1 && keys[i] > 0 {
			eligible = append(eligible, i)
			k := f.K(contents)
			if k > maxProbes {
				theory++ // upstream treats such filters as matching everything
			} else {
				theory += TheoreticalFPR((f.Len-1)*8, distinct[i], k)
			}
		}
	}
	if len(eligible) == 0 || samples <= 0 {
		return FPR{}
	}
	present := map[string]bool{}
	var lengths []int
	for _, b := range blocks {
		for _, k := range b.Keys {
			present[string(k)] = true
			lengths = append(lengths, len(k))
		}
	}
	rng := rand.New(rand.NewPCG(seed, 0x66707266707266))
	r := bloom.NewFilterBlockReader(p, contents)
	fpr := FPR{Samples: samples, Theoretical: theory / float64(len(eligible))}
	key := make([]byte, 0, 64)
	for s := 0; s < samples; s++ {
		n := lengths[rng.IntN(len(lengths))]
		for try := 0; ; try++ {
			if try > 0 && try%16 == 0 {
				n++ // short lengths may all be taken
			}
			key = key[:0]
			for j := 0; j < n; j++ {
				key = append(key, byte(rng.Uint32()))
			}
			if !present[string(key)] {
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

// distinctKeysPerFilter is KeysPerFilter counting each user key once per
// filter.
func distinctKeysPerFilter(blocks []Block, baseLg, num int) []int {
	counts := make([]int, num)
	seen := map[string]bool{}
	cur := -1
	for _, b := range blocks {
		i := b.Handle.Offset >> (uint(baseLg) & 63)
		if i >= uint64(num) {
			continue
		}
		if int(i) != cur {
			cur = int(i)
			clear(seen)
		}
		for _, k := range b.Keys {
			if !seen[string(k)] {
				seen[string(k)] = true
				counts[i]++
			}
		}
	}
	return counts
}
