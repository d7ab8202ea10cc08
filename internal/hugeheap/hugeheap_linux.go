//go:build linux && (amd64 || arm64)

package hugeheap

import (
	"errors"
	"fmt"
	"syscall"
	"unsafe"
)

const (
	hugePage = 2 << 20 // a transparent huge page with 4 KiB base pages
	// advised is how much of the heap Advise asks for, from the start of
	// the huge page it is allocating in: the Go runtime maps its heap 4
	// MiB at a time.
	advised = 2 * hugePage
	// arena is the Go runtime's heap arena on 64-bit Linux
	// (heapArenaBytes): the heap's address space is reserved in whole
	// arenas, so that a range inside one holds the heap and nothing else.
	arena = 64 << 20
	// madvCollapse is MADV_COLLAPSE (Linux 6.1,
	// include/uapi/asm-generic/mman-common.h), which syscall lacks.
	madvCollapse = 25
)

// probe is a fresh heap object, whose address tells where the heap is
// allocating.
var probe *[64]byte

// Region returns the range of addresses Advise advises: the 4 MiB from the
// start of the huge page that holds a fresh heap object, cut short at the
// end of the heap arena that holds it.
func Region() (start, end uintptr) {
	probe = new([64]byte)
	p := uintptr(unsafe.Pointer(probe))
	start = p &^ (hugePage - 1)
	end = min(start+advised, p&^(arena-1)+arena)
	return start, end
}

// Advise marks Region's range for huge pages (MADV_HUGEPAGE), so that its
// pages not yet used are backed by huge pages when first written, and
// collapses what is already there into huge pages (MADV_COLLAPSE). The
// error says what Linux refused; the heap works the same either way, so
// that a command can ignore it.
func Advise() error {
	if n := syscall.Getpagesize(); n != 4096 {
		return fmt.Errorf("hugeheap: pages of %d bytes, where huge pages are not of %d", n, hugePage)
	}
	start, end := Region()
	var errs []error
	if _, _, e := syscall.Syscall(syscall.SYS_MADVISE, start, end-start, syscall.MADV_HUGEPAGE); e != 0 {
		errs = append(errs, fmt.Errorf("madvise(%#x, %d, MADV_HUGEPAGE): %w", start, end-start, e))
	}
	if _, _, e := syscall.Syscall(syscall.SYS_MADVISE, start, end-start, madvCollapse); e != 0 {
		errs = append(errs, fmt.Errorf("madvise(%#x, %d, MADV_COLLAPSE): %w", start, end-start, e))
	}
	return errors.Join(errs...)
}
