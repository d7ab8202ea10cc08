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

// adviseHuge advises huge pages on m, a map of f that mapFile made
// (MADV_HUGEPAGE), when f is on a local disk (or ForceHugeAdvice was
// called), and says whether it did. A table not yet in the page cache is
// then read ahead into 2 MB pages, which the kernel maps with one
// page-table entry each, where reading it through 4 KiB entries costs
// about 2 µs a page on some virtual machines (docs/performance.md, "The
// page cache's page size"). The advice changes nothing that is read;
// where it fails, nothing was advised.
func adviseHuge(f *os.File, m []byte) bool {
	if !hugeAdviceAlways && !localDisk(f) {
		return false
	}
	_, _, errno := syscall.RawSyscall(syscall.SYS_MADVISE, uintptr(unsafe.Pointer(unsafe.SliceData(m))), uintptr(len(m)), syscall.MADV_HUGEPAGE)
	return errno == 0
}

// localDisk says whether f is on a local disk's file system that keeps
// files in the page cache in large pages (ext2/3/4, XFS, Btrfs; fstatfs(2)).
// Elsewhere (FUSE, network file systems, overlayfs, tmpfs) the advice is
// not given: what such a file system answers for a read ahead of 2 MB, a
// short read for one, is not what upstream, reading through 4 KiB pages,
// would see.
func localDisk(f *os.File) bool {
	var st syscall.Statfs_t
	if err := syscall.Fstatfs(int(f.Fd()), &st); err != nil {
		return false
	}
	switch uint32(st.Type) {
	case 0xEF53, // ext2, ext3, ext4
		0x58465342, // XFS
		0x9123683E: // Btrfs
		return true
	}
	return false
}

// forgetPages drops f's clean pages from the page cache (posix_fadvise
// POSIX_FADV_DONTNEED), such as a 2 MB page that failed to read under
// adviseHuge's advice, so that the next read of f reads the device again,
// in pages of the usual size. Nothing of the file changes; a page that
// another process maps stays.
func forgetPages(f *os.File) {
	const fadvDontNeed = 4 // POSIX_FADV_DONTNEED
	syscall.RawSyscall6(syscall.SYS_FADVISE64, f.Fd(), 0, 0, fadvDontNeed, 0, 0)
}
