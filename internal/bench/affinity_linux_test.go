//go:build linux

package bench

import (
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// allowedCPUs returns what Linux says a process started now may run
// on: the Cpus_allowed_list line of a child's /proc/self/status.
func allowedCPUs(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("grep", "^Cpus_allowed_list:", "/proc/self/status").Output()
	if err != nil {
		t.Fatalf("grep /proc/self/status: %v", err)
	}
	_, list, _ := strings.Cut(strings.TrimSpace(string(out)), ":")
	return strings.TrimSpace(list)
}

// TestPinnedTo checks that a process started inside pinnedTo(cpu, ...)
// may run on cpu alone, for each CPU this process may use, and that the
// thread may run where it could before once pinnedTo returns.
func TestPinnedTo(t *testing.T) {
	cpus := onCPUs()
	if len(cpus) == 0 {
		t.Fatal("onCPUs: no CPU")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	before, err := threadCPUs()
	if err != nil {
		t.Fatal(err)
	}
	wantAfter := allowedCPUs(t)
	for _, cpu := range cpus {
		var got string
		if err := pinnedTo(cpu, func() error {
			got = allowedCPUs(t)
			return nil
		}); err != nil {
			t.Fatalf("pinnedTo(%d): %v", cpu, err)
		}
		if got != strconv.Itoa(cpu) {
			t.Errorf("a process started in pinnedTo(%d) may run on CPUs %q; want %q", cpu, got, strconv.Itoa(cpu))
		}
		after, err := threadCPUs()
		if err != nil {
			t.Fatal(err)
		}
		if after != before {
			t.Errorf("after pinnedTo(%d) the thread's CPUs are %v; want %v as before", cpu, after.cpus(), before.cpus())
		}
		if got := allowedCPUs(t); got != wantAfter {
			t.Errorf("after pinnedTo(%d) a new process may run on CPUs %q; want %q as before", cpu, got, wantAfter)
		}
	}
	// Out of range: no restriction.
	var got string
	if err := pinnedTo(-1, func() error { got = allowedCPUs(t); return nil }); err != nil {
		t.Fatal(err)
	}
	if got != wantAfter {
		t.Errorf("pinnedTo(-1): a new process may run on CPUs %q; want %q", got, wantAfter)
	}
}

// TestCPUMaskCPUs checks cpus against masks built by hand.
func TestCPUMaskCPUs(t *testing.T) {
	var m cpuMask
	m[0] = 1<<0 | 1<<5 | 1<<63
	m[1] = 1 << 1
	m[15] = 1 << 63
	got := m.cpus()
	want := []int{0, 5, 63, 65, 1023}
	if !slices.Equal(got, want) {
		t.Fatalf("cpus() = %v; want %v", got, want)
	}
}
