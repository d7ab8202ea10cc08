// Package alloctest measures what code allocates, for tests that bound
// the memory a reader may use on hostile input.
package alloctest

import "runtime"

// Allocated returns the bytes allocated on the heap while f runs, by any
// goroutine: run it where nothing else allocates much (not in a parallel
// test) and leave a margin in the bound it is compared with.
func Allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
