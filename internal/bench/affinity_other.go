//go:build !linux

package bench

import "runtime"

// onCPUs is unknown outside Linux: the rounds run where the scheduler
// puts them.
func onCPUs() []int { return nil }

// pinnedTo runs f with the calling goroutine locked to its thread;
// outside Linux it does not restrict the thread to cpu.
func pinnedTo(cpu int, f func() error) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	return f()
}
