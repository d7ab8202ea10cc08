//go:build leveldb && linux && (amd64 || arm64)

package bench

import (
	"fmt"
	"os"
	"syscall"
	"unsafe"
)

// dropCache drops path's pages from the page cache: it writes back what
// is dirty (fdatasync), then tells the kernel the file's pages are not
// needed (posix_fadvise POSIX_FADV_DONTNEED). It returns how many of the
// file's pages are still in the page cache afterwards (mincore(2) over a
// map of it), since the kernel keeps pages that another process has
// mapped. Nothing of the file changes.
func dropCache(path string) (resident int, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	if fi.Size() == 0 {
		return 0, nil
	}
	fd := f.Fd()
	if err := syscall.Fdatasync(int(fd)); err != nil {
		return 0, fmt.Errorf("fdatasync %s: %w", path, err)
	}
	const fadvDontNeed = 4 // POSIX_FADV_DONTNEED
	if _, _, e := syscall.Syscall6(syscall.SYS_FADVISE64, fd, 0, 0, fadvDontNeed, 0, 0); e != 0 {
		return 0, fmt.Errorf("posix_fadvise %s: %w", path, e)
	}
	return residentPages(f, fi.Size())
}

// residentPages returns how many pages of f's first size bytes are in the
// page cache, from mincore(2) over a map of them.
func residentPages(f *os.File, size int64) (int, error) {
	m, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return 0, fmt.Errorf("mmap %s: %w", f.Name(), err)
	}
	defer syscall.Munmap(m)
	pages := make([]byte, (len(m)+os.Getpagesize()-1)/os.Getpagesize())
	if _, _, e := syscall.Syscall(syscall.SYS_MINCORE, uintptr(unsafe.Pointer(&m[0])), uintptr(len(m)), uintptr(unsafe.Pointer(&pages[0]))); e != 0 {
		return 0, fmt.Errorf("mincore %s: %w", f.Name(), e)
	}
	resident := 0
	for _, p := range pages {
		resident += int(p & 1)
	}
	return resident, nil
}
