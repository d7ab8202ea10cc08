package table

// SetAllocHook sets the hook told of upstream's allocations (see
// allocHook) and returns a function restoring the previous one.
func SetAllocHook(f func(n uint64)) (restore func()) {
	prev := allocHook
	allocHook = f
	return func() { allocHook = prev }
}
