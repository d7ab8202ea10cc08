// Package hugeheap asks Linux to back the part of the Go heap that a short
// command allocates from with transparent huge pages.
//
// A command such as `ldbcompat verify` writes a megabyte or two of buffers
// once, in fresh memory, and each 4 KiB page of it costs a page fault the
// first time it is written. Where a page fault is dear (a virtual machine
// that shadows the guest's page tables pays a trip to the hypervisor for
// each), those faults are a measurable share of the command's CPU time.
// Linux can back a 2 MiB region with one huge page instead, in one step; by
// default (transparent_hugepage set to "madvise", as on Debian) it does so
// only where a program asks, and the Go runtime no longer asks for its
// heap.
//
// Advise asks for the heap the runtime has mapped from the 2 MiB region
// the heap is allocating in to the end of the runtime's current 4 MiB
// mapping. The runtime maps its heap 4 MiB at a time, and advice reaches
// only memory already mapped; when less than 2 MiB of that mapping is
// left, Advise makes the runtime map the next 4 MiB first (with an
// allocation of 2 MiB it drops at once, never written) and asks for that
// too. Memory the runtime maps later, as the heap grows past them, is
// backed as before. It changes no byte of memory and no behaviour, only how
// the memory is backed, for up to a few MiB more of resident memory (the
// ranges advised, 6 MiB in most runs, once written); where Linux cannot do
// it (huge pages disabled, a kernel before 6.1, another architecture or
// system), the heap stays as it was.
package hugeheap
