package verify

// SetAfterMap sets a function called with a table file's path once it is
// memory-mapped, before it is read, and returns a function restoring the
// previous one.
func SetAfterMap(f func(path string)) (restore func()) {
	prev := afterMap
	afterMap = f
	return func() { afterMap = prev }
}
