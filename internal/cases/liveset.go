package cases

import "fmt"

// LiveSet returns the cases asked of upstream live: the vector cases, with
// filters of 10000 keys at every bits/key and of 100000 keys at a few, and
// 500 random filter block builder sequences.
func LiveSet() Set {
	cs := VectorSet()
	cs.Origin = LiveOrigin
	cs.Filter = append(cs.Filter, liveFilterCases()...)
	cs.Block = BlockCases(liveBlockCases)
	return cs
}

// liveBlockCases is how many random builder sequences LiveSet holds; the
// first vectorBlockCases of them are VectorSet's.
const liveBlockCases = 500

// liveFilterCases returns the filter cases LiveSet adds to VectorSet's.
func liveFilterCases() []FilterCase {
	var cs []FilterCase
	g := NewGen(10)
	add := func(b, n int) {
		keys := g.Keys(n, 0, 40)
		q := append(Sample(keys, 100), g.Absent(keys, 200, 0, 40)...)
		cs = append(cs, FilterCase{Name: fmt.Sprintf("live/bpk%d/n%d", b, n), BitsPerKey: b, Keys: keys, Queries: q})
	}
	for _, b := range FilterBitsPerKey() {
		if b <= 800 {
			add(b, 10000)
		}
	}
	for _, b := range []int{1, 16, 30, 64} {
		add(b, 100000)
	}
	return cs
}

// WideSet returns the live case of a filter of 2^32 bits and more (512
// MiB of filter, 4294968 keys to hash), asked of upstream only on demand
// (the kit's LDBCOMPAT_WIDE=1).
func WideSet() Set {
	return Set{Origin: WideOrigin, Filter: []FilterCase{wideFilterCase(NewGen(1000))}}
}

// wideKeys is the fewest keys whose filter has 2^32 bits or more at 1000
// bits per key, the most the kit asks of a port: 4294968000 bits, 512 MiB.
const wideKeys = (1<<32 + 999) / 1000

// wideFilterCase returns a CreateFilter input whose filter has 2^32 bits
// or more, where util/bloom.cc's probe h % bits (size_t) is h and a 32-bit
// modulo would wrap. Its keys are 64 distinct ones repeated (duplicates
// count toward n), so the case costs little hashing.
func wideFilterCase(g *Gen) FilterCase {
	distinct := g.Keys(64, 1, 24)
	keys := make([][]byte, wideKeys)
	for i := range keys {
		keys[i] = distinct[i%len(distinct)]
	}
	q := append(append([][]byte(nil), distinct...), g.Absent(distinct, 200, 1, 24)...)
	return FilterCase{Name: fmt.Sprintf("live/wide/bpk1000/n%d", wideKeys), BitsPerKey: 1000, Keys: keys, Queries: q}
}
