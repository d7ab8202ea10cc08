//go:build linux && (amd64 || arm64)

package verify

import (
	"os"
	"syscall"
	"unsafe"
)

// mapFile maps the first size bytes of f read-only and shared, as
// util/env_posix.cc maps a table for reading: nothing is copied, and the
// file cannot be written through the mapping.
//
// mmap and munmap are made as raw system calls, which the Go scheduler does
// not see: neither waits on a device (the pages are read later, when they
// are touched), and munmap of a table's map takes 0.1 to 0.25 ms on a
// virtual machine, long enough for the runtime to hand the goroutine's
// processor to another thread while it runs, and back after.
func mapFile(f *os.File, size int64) ([]byte, error) {
	return mapWith(f, size, func(n int) ([]byte, error) {
		// f stays open until the check is done, so its descriptor
		// does too.
		p, _, errno := syscall.RawSyscall6(syscall.SYS_MMAP, 0, uintptr(n), syscall.PROT_READ, syscall.MAP_SHARED, f.Fd(), 0)
		if errno != 0 {
			return nil, errno
		}
		// Advice only: a table not yet in the page cache is then read
		// ahead into 2 MB pages, which the kernel maps with one entry
		// each. Its failure changes nothing that is read.
		syscall.RawSyscall(syscall.SYS_MADVISE, p, uintptr(n), syscall.MADV_HUGEPAGE)
		// p is the address of memory outside Go's heap, which the
		// kernel gave; go vet cannot know that a uintptr from a
		// system call is one.
		return unsafe.Slice(*(**byte)(unsafe.Pointer(&p)), n), nil
	})
}

// unmapFile releases a mapping mapFile made, with a raw system call as
// mapFile makes it. munmap of a whole mapping that mmap made does not fail.
func unmapFile(m []byte) {
	syscall.RawSyscall(syscall.SYS_MUNMAP, uintptr(unsafe.Pointer(unsafe.SliceData(m))), uintptr(len(m)), 0)
}
