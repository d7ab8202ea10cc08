//go:build !linux || !(amd64 || arm64)

package hugeheap

import "errors"

// ErrUnsupported is what Advise returns where it does nothing.
var ErrUnsupported = errors.New("hugeheap: huge pages for the heap are only asked for on Linux, amd64 and arm64")

// Advise does nothing here: it returns ErrUnsupported.
func Advise() error { return ErrUnsupported }
