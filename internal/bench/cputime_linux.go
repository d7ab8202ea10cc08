package bench

import (
	"syscall"
	"unsafe"
)

// threadCPU returns the CPU time the calling thread has used, in
// nanoseconds, and whether it is known.
func threadCPU() (int64, bool) {
	const clockThreadCPUTimeID = 3 // CLOCK_THREAD_CPUTIME_ID
	var ts syscall.Timespec
	if _, _, e := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTimeID, uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		return 0, false
	}
	return ts.Nano(), true
}
