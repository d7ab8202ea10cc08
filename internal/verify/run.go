package verify

import (
	"runtime"
	"sync"
)

// Each checks the tables of items on at most GOMAXPROCS goroutines, a few
// tables ahead, and calls emit with each item in order from the calling
// goroutine: with its table's report for a table, nil otherwise.
func Each(items []Item, o Options, emit func(it Item, rep *TableReport)) {
	for _, it := range items {
		if it.Database != nil {
			it.Database.setMode(o.mode())
		}
	}
	forEachOrdered(len(items), func(i int) *TableReport {
		if items[i].Table == nil {
			return nil
		}
		return Examine(items[i].Table, o)
	}, func(i int, rep *TableReport) { emit(items[i], rep) })
}

// RunResult is everything verify reports on a set of paths.
type RunResult struct {
	Items   []Item
	Reports []*TableReport // by item: nil but for tables
	Summary Summary
}

// Run resolves paths and checks every table, as `ldbcompat verify` does.
func Run(paths []string, o Options) *RunResult {
	r := &RunResult{Items: Resolve(paths)}
	r.Reports = make([]*TableReport, len(r.Items))
	i := 0
	Each(r.Items, o, func(it Item, rep *TableReport) {
		r.Reports[i] = rep
		r.Summary.Add(it, rep)
		i++
	})
	return r
}

// forEachOrdered computes work(i) for i in [0, n) on several goroutines and
// calls emit(i, result) in order of i, from the calling goroutine.
func forEachOrdered[T any](n int, work func(i int) T, emit func(i int, v T)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	results := make([]T, n)
	done := make([]chan struct{}, n)
	for i := range done {
		done[i] = make(chan struct{})
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results[i] = work(i)
				close(done[i])
				// Workers woken through channels share a time slice and get
				// preempted after 10 ms: without this a run took 1.1-1.2
				// times the CPU with GOMAXPROCS=1 (docs/performance.md).
				runtime.Gosched()
			}
		}()
	}
	go func() {
		// Feed at most a few items ahead of the one being emitted, so
		// finished results do not pile up in memory.
		for i := 0; i < n; i++ {
			if i >= 2*workers {
				<-done[i-2*workers]
			}
			next <- i
		}
		close(next)
	}()
	for i := 0; i < n; i++ {
		<-done[i]
		emit(i, results[i])
		var zero T
		results[i] = zero
	}
	wg.Wait()
}
