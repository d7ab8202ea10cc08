package filtercheck

import (
	"fmt"
	"sort"
)

// Params are the bloom filter parameters a filter block implies.
type Params struct {
	// BitsPerKey is the bits-per-key value that explains the most filters;
	// every value in MinBitsPerKey..MaxBitsPerKey explains the same ones
	// and gives the same filters.
	BitsPerKey    int
	MinBitsPerKey int
	MaxBitsPerKey int
	// K is the probe count those values give.
	K int
	// Explained and Constrained count the filters that bits/key explains
	// and the filters with keys that could be checked; they differ when no
	// single bits/key value explains the block.
	Explained   int
	Constrained int
	// Known is false when no filter has keys, so nothing can be inferred.
	Known bool
}

// Consistent reports whether one bits/key value explains every filter.
func (p Params) Consistent() bool { return p.Known && p.Explained == p.Constrained }

// String formats p as "bits/key 10, k 6" or "bits/key 9..10, k 6".
func (p Params) String() string {
	if !p.Known {
		return "bits/key unknown (no keys)"
	}
	s := fmt.Sprintf("bits/key %d, k %d", p.BitsPerKey, p.K)
	if p.MinBitsPerKey != p.MaxBitsPerKey {
		s = fmt.Sprintf("bits/key %d..%d, k %d", p.MinBitsPerKey, p.MaxBitsPerKey, p.K)
	}
	if !p.Consistent() {
		s += fmt.Sprintf(" (explains %d of %d filters)", p.Explained, p.Constrained)
	}
	return s
}

// maxProbes mirrors upstream's clamp of k to 1..30.
const maxProbes = 30

// probes is upstream's k for bitsPerKey.
func probes(bitsPerKey int) int {
	return min(max(int(float64(bitsPerKey)*0.69), 1), maxProbes)
}

// ProbesFor is the number of probes, k, that util/bloom.cc uses for
// bitsPerKey: int(bitsPerKey * 0.69), clamped to 1..30.
func ProbesFor(bitsPerKey int) int { return probes(max(bitsPerKey, 0)) }

// BitsPerKeyForProbes returns the bits-per-key values, lo..hi with hi at
// most limit, for which util/bloom.cc uses k probes; ok is false when
// there are none.
func BitsPerKeyForProbes(k, limit int) (lo, hi int, ok bool) {
	iv, ok := probeRange(k, limit)
	return iv.lo, iv.hi, ok
}

// FilterLen is the length, k byte included, of the filter util/bloom.cc
// writes for n keys at bitsPerKey: n*bitsPerKey bits, at least 64,
// rounded up to whole bytes.
func FilterLen(n, bitsPerKey int) int {
	bits := max(n*max(bitsPerKey, 0), 64)
	return (bits+7)/8 + 1
}

// BitsPerKeyForLen returns the bits-per-key values lo..hi for which
// util/bloom.cc writes a filter of flen bytes (k byte included) for n > 0
// keys; ok is false when none does.
func BitsPerKeyForLen(n, flen int) (lo, hi int, ok bool) {
	if n <= 0 || flen < 9 {
		return 0, 0, false
	}
	bits := (flen - 1) * 8
	if bits == 64 {
		return 0, 64 / n, true
	}
	lo, hi = (bits-8)/n+1, bits/n
	return lo, hi, lo <= hi
}

// interval is a closed range of bits-per-key values.
type interval struct{ lo, hi int }

// probeRange returns the bits-per-key values whose k is k, bounded above by
// hi; ok is false when there are none.
func probeRange(k, hi int) (interval, bool) {
	// k grows with bits/key and reaches its clamp (30) at 44; past that
	// every value gives k = 30.
	const clampAt = 44
	lo, top := -1, -1
	for b := 0; b <= min(hi, clampAt); b++ {
		if probes(b) == k {
			if lo < 0 {
				lo = b
			}
			top = b
		}
	}
	if k == maxProbes && top == clampAt {
		top = hi
	}
	return interval{lo, top}, lo >= 0
}

// filterInterval returns the bits-per-key values that give a filter of
// length flen (k byte included) ending in k for n > 0 keys, as
// util/bloom.cc sizes it: max(n*b, 64) bits rounded up to whole bytes.
func filterInterval(n, flen, k int) (interval, bool) {
	if flen < 9 { // at least 64 bits and the k byte
		return interval{}, false
	}
	bits := (flen - 1) * 8
	var iv interval
	if bits == 64 {
		iv = interval{0, 64 / n}
	} else {
		iv = interval{(bits-8)/n + 1, bits / n}
	}
	if iv.lo > iv.hi {
		return interval{}, false
	}
	kr, ok := probeRange(k, iv.hi)
	if !ok {
		return interval{}, false
	}
	iv = interval{max(iv.lo, kr.lo), min(iv.hi, kr.hi)}
	return iv, iv.lo <= iv.hi
}

// InferParams infers the bits-per-key value a filter block was built with
// from the size and k byte of each filter and the number of keys it should
// hold (keys[i] for filter i, as KeysPerFilter returns).
func InferParams(contents []byte, l *Layout, keys []int) Params {
	ivs := make([]interval, 0, len(l.Filters))
	p := Params{}
	for i, f := range l.Filters {
		if i >= len(keys) || keys[i] == 0 {
			continue
		}
		p.Constrained++
		if iv, ok := filterInterval(keys[i], f.Len, f.K(contents)); ok {
			ivs = append(ivs, iv)
		}
	}
	if p.Constrained == 0 {
		return p
	}
	p.Known = true
	// Sweep the interval endpoints for the value covered most often.
	type edge struct{ at, delta int }
	edges := make([]edge, 0, 2*len(ivs))
	for _, iv := range ivs {
		edges = append(edges, edge{iv.lo, +1}, edge{iv.hi + 1, -1})
	}
	sort.Slice(edges, func(i, j int) bool {
		if edges[i].at != edges[j].at {
			return edges[i].at < edges[j].at
		}
		return edges[i].delta < edges[j].delta
	})
	cover, best := 0, 0
	for i, e := range edges {
		cover += e.delta
		if cover > best {
			best = cover
			p.MinBitsPerKey = e.at
			p.MaxBitsPerKey = edges[i+1].at - 1 // a +1 edge is always followed by another edge
		}
	}
	if best == 0 {
		// No filter is explained by any value: report the k of the first
		// constrained filter and a bits/key value that gives it.
		for i, f := range l.Filters {
			if i < len(keys) && keys[i] > 0 && f.Len > 0 {
				if kr, ok := probeRange(f.K(contents), 100); ok {
					p.MinBitsPerKey, p.MaxBitsPerKey = kr.lo, kr.lo
				}
				break
			}
		}
	}
	p.Explained = best
	p.BitsPerKey = p.MinBitsPerKey
	p.K = probes(p.BitsPerKey)
	return p
}
