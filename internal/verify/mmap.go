package verify

import (
	"fmt"
	"os"
)

// mapWith maps size bytes of f with the platform's mmap, after checking
// that size is a length a map can have.
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
