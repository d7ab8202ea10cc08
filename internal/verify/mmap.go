package verify

import (
	"fmt"
	"os"
)

// mapWith maps the first size bytes of f with mmap, which maps n bytes of
// f read-only and shared, after checking that size is a length a map can
// have; it names f in the error. Each platform's mapFile calls it with its
// own mmap.
func mapWith(f *os.File, size int64, mmap func(n int) ([]byte, error)) ([]byte, error) {
	if size <= 0 || int64(int(size)) != size {
		return nil, fmt.Errorf("mmap %s: cannot map %d bytes", f.Name(), size)
	}
	m, err := mmap(int(size))
	if err != nil {
		return nil, fmt.Errorf("mmap %s: %w", f.Name(), err)
	}
	return m, nil
}

// hugeAdviceAlways makes adviseHuge advise every map it may, whatever the
// file system (ForceHugeAdvice).
var hugeAdviceAlways bool

// ForceHugeAdvice makes Examine advise huge pages on every table's map
// where the platform has the advice (Linux on amd64 and arm64), and not
// only on a local disk's file system: for tests that read tables from a
// FUSE file system injecting faults, to show that a fault in an advised
// map gets the report it gets without the advice. Call it before any
// table is examined.
func ForceHugeAdvice() { hugeAdviceAlways = true }
