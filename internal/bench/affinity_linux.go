//go:build linux

package bench

import (
	"fmt"
	"math/bits"
	"runtime"
	"syscall"
	"unsafe"
)

// cpuMask is a set of CPUs as sched_setaffinity(2) takes it: bit n of
// word n/64 for CPU n (1,024 CPUs, glibc's cpu_set_t).
type cpuMask [16]uint64

// threadCPUs returns the CPUs the calling thread may run on.
func threadCPUs() (cpuMask, error) {
	var m cpuMask
	if _, _, e := syscall.RawSyscall(syscall.SYS_SCHED_GETAFFINITY, 0, unsafe.Sizeof(m), uintptr(unsafe.Pointer(&m))); e != 0 {
		return m, fmt.Errorf("bench: sched_getaffinity: %w", e)
	}
	return m, nil
}

// setThreadCPUs restricts the calling thread to the CPUs of m.
func setThreadCPUs(m cpuMask) error {
	if _, _, e := syscall.RawSyscall(syscall.SYS_SCHED_SETAFFINITY, 0, unsafe.Sizeof(m), uintptr(unsafe.Pointer(&m))); e != 0 {
		return fmt.Errorf("bench: sched_setaffinity: %w", e)
	}
	return nil
}

// cpus returns the numbers of m's CPUs, in order.
func (m cpuMask) cpus() []int {
	var out []int
	for w, word := range m {
		for word != 0 {
			b := bits.TrailingZeros64(word)
			out = append(out, w*64+b)
			word &^= 1 << b
		}
	}
	return out
}

// onCPUs returns the CPUs this process's thread may run on, which
// pinnedTo takes in turn; nil if unknown.
func onCPUs() []int {
	m, err := threadCPUs()
	if err != nil {
		return nil
	}
	return m.cpus()
}

// pinnedTo runs f with the calling goroutine locked to its thread and
// the thread restricted to CPU cpu (a process f starts inherits the
// restriction), then lets the thread run where it did before. With cpu
// out of range (-1), the thread runs where the scheduler puts it.
func pinnedTo(cpu int, f func() error) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if cpu < 0 || cpu >= len(cpuMask{})*64 {
		return f()
	}
	old, err := threadCPUs()
	if err != nil {
		return err
	}
	var m cpuMask
	m[cpu/64] = 1 << (cpu % 64)
	if err := setThreadCPUs(m); err != nil {
		return err
	}
	ferr := f()
	if err := setThreadCPUs(old); err != nil && ferr == nil {
		return err
	}
	return ferr
}
