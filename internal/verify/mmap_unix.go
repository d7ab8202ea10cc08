//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package verify

import (
	"fmt"
	"os"
	"syscall"
)

// mapFile maps the first size bytes of f read-only, as util/env_posix.cc
// maps a table.
func mapFile(f *os.File, size int64) ([]byte, error) {
	if size <= 0 || int64(int(size)) != size {
		return nil, fmt.Errorf("mmap %s: cannot map %d bytes", f.Name(), size)
	}
	m, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("mmap %s: %w", f.Name(), err)
	}
	return m, nil
}

// unmapFile releases a mapping mapFile made; munmap of a whole mapping
// does not fail.
func unmapFile(m []byte) { _ = syscall.Munmap(m) }
