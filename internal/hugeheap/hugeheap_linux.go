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
	// chunk is how much heap the Go runtime maps at a time
	// (pallocChunkBytes): when the heap outgrows what it has mapped, it
	// maps the next 4 MiB, aligned, with a mmap call of its own that
	// advice given before does not reach.
	chunk = 4 << 20
	// arena is the Go runtime's heap arena on 64-bit Linux
	// (heapArenaBytes): the heap's address space is reserved in whole
	// arenas, so that a range inside one holds the heap and nothing else.
	arena = 64 << 20
	// madvCollapse is MADV_COLLAPSE (Linux 6.1,
	// include/uapi/asm-generic/mman-common.h), which syscall lacks.
	madvCollapse = 25
)

// probe is a fresh heap object, whose address tells where the heap is
// allocating: larger than the runtime's largest size class (32 KiB), it is
// given pages of its own, the lowest free ones, which in a process that
// has not yet collected garbage are where the heap's next pages come from.
// Its memory is never written.
var probe *[64 << 10]byte

// Region returns the range of addresses Advise advises: the 4 MiB from the
// start of the huge page that holds a fresh heap object, cut short at the
// end of the heap arena that holds it.
func Region() (start, end uintptr) {
	probe = new([64 << 10]byte)
	return after(uintptr(unsafe.Pointer(probe)))
}

// Advise marks Region's range for huge pages (MADV_HUGEPAGE), so that its
// pages not yet used are backed by huge pages when first written, and
// collapses what is already there into huge pages (MADV_COLLAPSE).
//
// When less than 2 MiB of the runtime's current 4 MiB mapping is left past
// the heap object Region looks at, the heap is about to outgrow it into
// memory the runtime has not mapped yet, whose mapping, when it comes,
// will not have the advice. Advise then makes the runtime map it at once:
// it allocates 2 MiB that it drops straight away, never written (so that
// it costs no page), and advises the 4 MiB from the huge page where that
// allocation ends, where the heap goes on allocating.
//
// The error says what Linux refused; the heap works the same either way,
// so that a command can ignore it.
func Advise() error {
	if n := syscall.Getpagesize(); n != 4096 {
		return fmt.Errorf("hugeheap: pages of %d bytes, where huge pages are not of %d", n, hugePage)
	}
	start, end := Region()
	p := uintptr(unsafe.Pointer(probe))
	var errs []error
	if left := p&^(chunk-1) + chunk - p; left < hugePage {
		spill := make([]byte, hugePage)
		s, e := after(uintptr(unsafe.Pointer(unsafe.SliceData(spill))) + hugePage)
		errs = append(errs, advise(s, e))
	}
	errs = append(errs, advise(start, end))
	return errors.Join(errs...)
}

// after returns the range Advise advises past an allocation that ends at
// q: the 4 MiB from the start of the huge page holding q, cut short at the
// end of q's heap arena.
func after(q uintptr) (start, end uintptr) {
	start = q &^ (hugePage - 1)
	return start, min(start+advised, q&^(arena-1)+arena)
}

// advise gives [start, end) both pieces of advice, with raw system calls,
// which the Go scheduler does not see: MADV_COLLAPSE took 0.25 to 0.4 ms
// here (strace -T), long enough for the runtime to hand the processor to
// another thread meanwhile, and it waits on no device.
func advise(start, end uintptr) error {
	var errs []error
	if _, _, e := syscall.RawSyscall(syscall.SYS_MADVISE, start, end-start, syscall.MADV_HUGEPAGE); e != 0 {
		errs = append(errs, fmt.Errorf("madvise(%#x, %d, MADV_HUGEPAGE): %w", start, end-start, e))
	}
	if _, _, e := syscall.RawSyscall(syscall.SYS_MADVISE, start, end-start, madvCollapse); e != 0 {
		errs = append(errs, fmt.Errorf("madvise(%#x, %d, MADV_COLLAPSE): %w", start, end-start, e))
	}
	return errors.Join(errs...)
}
