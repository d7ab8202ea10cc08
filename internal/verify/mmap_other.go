//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package verify

import (
	"errors"
	"os"
)

// mapFile is not available here: tables are read into memory instead.
func mapFile(f *os.File, size int64) ([]byte, error) {
	return nil, errors.New("memory-mapping files is not supported on this system")
}

// unmapFile is never called where mapFile always fails.
func unmapFile(m []byte) {}
