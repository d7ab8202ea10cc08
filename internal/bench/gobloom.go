package bench

import (
	"runtime"
	"time"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/internal/blockop"
)

// Go returns the Impl of package bloom, named "go", looping as a caller
// does: dst[:0] reused, the FilterPolicy interface, a builder per table.
func Go() Impl {
	im := FromPolicy("go", bloom.NewPolicy)
	im.BuiltBy = runtime.Version()
	im.FilterBlock = func(bitsPerKey int, ops []blockop.Op, iters int) int64 {
		p := bloom.NewPolicy(bitsPerKey)
		start := time.Now()
		for i := 0; i < iters; i++ {
			runOps(bloom.NewFilterBlockBuilder(p), ops)
		}
		return time.Since(start).Nanoseconds()
	}
	return im
}

// FromPolicy returns the Impl of a Go filter policy, such as a port's
// through an adapter: CreateFilter and KeyMayMatch only.
func FromPolicy(name string, newPolicy func(bitsPerKey int) bloom.FilterPolicy) Impl {
	return Impl{
		Name: name,
		CreateFilter: func(bitsPerKey int, keys [][]byte, iters int) ([]byte, int64) {
			p := newPolicy(bitsPerKey)
			var dst []byte
			start := time.Now()
			for i := 0; i < iters; i++ {
				dst = p.CreateFilter(keys, dst[:0])
			}
			return dst, time.Since(start).Nanoseconds()
		},
		KeyMayMatch: func(bitsPerKey int, keys [][]byte, filter []byte, iters int) (int, int64) {
			p := newPolicy(bitsPerKey)
			hits := 0
			start := time.Now()
			for i := 0; i < iters; i++ {
				hits = 0
				for _, k := range keys {
					if p.KeyMayMatch(k, filter) {
						hits++
					}
				}
			}
			return hits, time.Since(start).Nanoseconds()
		},
		Allocs: func(name string, bitsPerKey int, keys [][]byte, filter []byte, ops []blockop.Op) float64 {
			return policyAllocs(newPolicy(bitsPerKey), name, keys, filter, ops)
		},
	}
}

func runOps(b *bloom.FilterBlockBuilder, ops []blockop.Op) {
	for _, op := range ops {
		switch op.Kind {
		case blockop.StartBlock:
			b.StartBlock(op.Offset)
		case blockop.AddKey:
			b.AddKey(op.Key)
		case blockop.Finish:
			b.Finish()
		}
	}
}

// policyAllocs counts the heap allocations of one run of a benchmark.
func policyAllocs(p bloom.FilterPolicy, name string, keys [][]byte, filter []byte, ops []blockop.Op) float64 {
	dst := p.CreateFilter(keys, nil)
	var f func()
	switch name {
	case NameCreateFilter:
		f = func() { dst = p.CreateFilter(keys, dst[:0]) }
	case NameMatchHit, NameMatchMiss:
		f = func() {
			for _, k := range keys {
				p.KeyMayMatch(k, filter)
			}
		}
	case NameFilterBlock:
		f = func() { runOps(bloom.NewFilterBlockBuilder(p), ops) }
	default:
		return -1
	}
	return allocsPerRun(10, f)
}

// allocsPerRun is testing.AllocsPerRun without importing testing.
func allocsPerRun(runs int, f func()) float64 {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	f() // warm up
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := 0; i < runs; i++ {
		f()
	}
	runtime.ReadMemStats(&after)
	return float64(after.Mallocs-before.Mallocs) / float64(runs)
}
