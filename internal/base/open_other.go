//go:build !unix

package base

import "os"

// openNonBlocking is os.Open where opening a file does not block.
func openNonBlocking(path string) (*os.File, error) { return os.Open(path) }
