package filtercheck

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/internal/filterblock"
)

// Params are the bloom filter parameters a filter block implies.
type Params struct {
	// BitsPerKey explains the most filters, as does every value in
	// MinBitsPerKey..MaxBitsPerKey.
	BitsPerKey    int
	MinBitsPerKey int
	MaxBitsPerKey int
	// K is the probe count those values give.
	K int
	// Explained and Constrained count filters explained and filters with
	// keys; they differ when no value explains the block.
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

// interval is a closed range of bits-per-key values.
type interval struct{ lo, hi int }

// filterInterval returns the bits/key values giving a filter of length flen
// ending in k for n > 0 keys (util/bloom.cc).
func filterInterval(n, flen, k int) (interval, bool) {
	lo, hi, ok := filterblock.BitsPerKeyForLen(n, flen)
	if !ok {
		return interval{}, false
	}
	klo, khi, ok := filterblock.BitsPerKeyForProbes(k, hi)
	if !ok {
		return interval{}, false
	}
	iv := interval{max(lo, klo), min(hi, khi)}
	return iv, iv.lo <= iv.hi
}

// InferParams infers a block's bits/key from each filter's size and k and
// its key count (keys, as KeysPerFilter returns).
func InferParams(contents []byte, l *Layout, keys []int) Params {
	return inferParams(contents, l, keys, new(paramsBufs))
}

// edge starts (delta +1) or ends (delta -1, one past) an interval.
type edge struct{ at, delta int }

// paramsBufs is the memory InferParams works in.
type paramsBufs struct {
	ivs   []interval
	edges []edge
}

// inferParams is InferParams in bufs' memory.
func inferParams(contents []byte, l *Layout, keys []int, bufs *paramsBufs) Params {
	ivs := slices.Grow(bufs.ivs[:0], len(l.Filters))
	defer func() { bufs.ivs = ivs[:0] }()
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
	edges := slices.Grow(bufs.edges[:0], 2*len(ivs))
	defer func() { bufs.edges = edges[:0] }()
	for _, iv := range ivs {
		edges = append(edges, edge{iv.lo, +1}, edge{iv.hi + 1, -1})
	}
	slices.SortFunc(edges, func(a, b edge) int {
		return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.delta, b.delta))
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
		// No value explains any filter: the first constrained one's k.
		for i, f := range l.Filters {
			if i < len(keys) && keys[i] > 0 && f.Len > 0 {
				if lo, _, ok := filterblock.BitsPerKeyForProbes(f.K(contents), 100); ok {
					p.MinBitsPerKey, p.MaxBitsPerKey = lo, lo
				}
				break
			}
		}
	}
	p.Explained = best
	p.BitsPerKey = p.MinBitsPerKey
	p.K = bloom.ProbesFor(p.BitsPerKey)
	return p
}
