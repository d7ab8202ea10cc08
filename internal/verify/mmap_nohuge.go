//go:build !(linux && (amd64 || arm64))

package verify

import "os"

// adviseHuge advises nothing here: only Linux on amd64 and arm64 is
// measured with it (mmap_linux64.go).
func adviseHuge(f *os.File, m []byte) bool { return false }

// forgetPages is never called where adviseHuge advises nothing.
func forgetPages(f *os.File) {}
