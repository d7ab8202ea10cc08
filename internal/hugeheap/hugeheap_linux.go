//go:build linux && (amd64 || arm64)

package hugeheap

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"syscall"
	"unsafe"
)

const (
	hugePage = 2 << 20 // a transparent huge page with 4 KiB base pages
	// chunk is how much heap the Go runtime maps at a time
	// (pallocChunkBytes), at addresses that are multiples of it: when the
	// heap outgrows what it has mapped, it maps the next 4 MiB with a mmap
	// call of its own, a new mapping that advice given before does not
	// reach.
	chunk = 4 << 20
	// ahead is how much mapped heap Advise wants past its last
	// allocation, where the heap goes on allocating: the megabyte or two
	// of buffers a command writes after it.
	ahead = hugePage
	// probeSize is the size of the object whose address tells where the
	// heap is allocating. At 16 pages of 8 KiB or more an object is given
	// pages by the runtime's page allocator itself, the lowest free run
	// that holds it, which in a process that has not yet collected
	// garbage is where the heap's next large objects go; a smaller one
	// would come from a processor's cache of pages, which with more than
	// one processor may lie a megabyte below that.
	probeSize = 128 << 10
	// spills is how many times at most Advise makes the runtime map more
	// heap: once is enough unless something else allocated in between.
	spills = 3
	// madvCollapse is MADV_COLLAPSE (Linux 6.1,
	// include/uapi/asm-generic/mman-common.h), which syscall lacks.
	madvCollapse = 25
)

// probe is the object whose address tells where the heap is allocating.
// Its memory is never written.
var probe *[probeSize]byte

// span is a range of addresses, [start, end).
type span struct{ start, end uintptr }

// Advise marks the heap the runtime has mapped from the huge page it is
// allocating in, to the end of that 4 MiB mapping, for huge pages
// (MADV_HUGEPAGE), so that its pages not yet used are backed by huge pages
// when first written, and collapses what is already there into huge pages
// (MADV_COLLAPSE).
//
// When less than 2 MiB of what the runtime has mapped is left past the
// heap's last allocation, the heap is about to outgrow it into memory the
// runtime has not mapped yet, whose mapping, when it comes, will not have
// the advice. Advise then makes the runtime map it at once: it allocates 2
// MiB that it drops straight away, never written (so that it costs no
// page), and advises that allocation's memory and what the runtime mapped
// past it too, where the heap goes on allocating, or, after a collection,
// takes up the memory dropped.
//
// The error says what Linux refused; the heap works the same either way,
// so that a command can ignore it.
func Advise() error {
	if n := syscall.Getpagesize(); n != 4096 {
		return fmt.Errorf("hugeheap: pages of %d bytes, where huge pages are not of %d", n, hugePage)
	}
	return adviseAll(plan())
}

// adviseAll advises each of spans.
func adviseAll(spans []span) error {
	var errs []error
	for _, s := range spans {
		errs = append(errs, advise(s.start, s.end))
	}
	return errors.Join(errs...)
}

// plan makes the allocations Advise needs and returns the ranges it
// advises, in order of address, apart from each other.
func plan() []span {
	probe = new([probeSize]byte)
	start := uintptr(unsafe.Pointer(probe))
	top := start + probeSize
	spans := []span{mapped(start, top)}
	for i := 0; i < spills && alignUp(top, chunk)-top < ahead; i++ {
		spill := make([]byte, hugePage)
		s := uintptr(unsafe.Pointer(unsafe.SliceData(spill)))
		top = s + hugePage
		spans = append(spans, mapped(s, top))
	}
	return merge(spans)
}

// mapped returns the range Advise advises around an object at [start,
// end): from the huge page holding its first byte to the end of the 4 MiB
// the runtime mapped holding its last. The runtime maps whole 4 MiB at
// addresses that are multiples of 4 MiB, and an object's memory is mapped,
// so all of it is mapped heap.
func mapped(start, end uintptr) span {
	return span{start &^ (hugePage - 1), alignUp(end, chunk)}
}

// alignUp rounds a up to a multiple of n, a power of two.
func alignUp(a, n uintptr) uintptr { return (a + n - 1) &^ (n - 1) }

// merge sorts spans by address and joins those that overlap or touch.
func merge(spans []span) []span {
	slices.SortFunc(spans, func(a, b span) int { return cmp.Compare(a.start, b.start) })
	out := spans[:1]
	for _, s := range spans[1:] {
		if last := &out[len(out)-1]; s.start <= last.end {
			last.end = max(last.end, s.end)
		} else {
			out = append(out, s)
		}
	}
	return out
}

// advise gives [start, end) both pieces of advice, with raw system calls,
// which the Go scheduler does not see: MADV_COLLAPSE took 0.25 to 0.4 ms
// here (strace -T), long enough for the runtime to hand the processor to
// another thread meanwhile, and it waits on no device. MADV_COLLAPSE
// fails with EINVAL where part of the range has no page yet: it collapses
// the rest all the same.
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
