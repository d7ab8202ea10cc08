//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package verify

import (
	"os"
	"syscall"
)

// mapFile maps the first size bytes of f read-only, as util/env_posix.cc
// maps a table.
func mapFile(f *os.File, size int64) ([]byte, error) {
	return mapWith(f, size, func(n int) ([]byte, error) {
		return syscall.Mmap(int(f.Fd()), 0, n, syscall.PROT_READ, syscall.MAP_SHARED)
	})
}

// unmapFile releases a mapping mapFile made. munmap of a whole mapping
// that mmap made does not fail.
func unmapFile(m []byte) { _ = syscall.Munmap(m) }
