//go:build !purego && linux

package bloom

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestCPUIDAgainstCPUInfo checks the vendor and family CPUID gives against
// what the kernel reports in /proc/cpuinfo for the same processor.
func TestCPUIDAgainstCPUInfo(t *testing.T) {
	data, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		t.Skipf("no /proc/cpuinfo: %v", err)
	}
	info := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		if line == "" {
			break // the first processor only
		}
		k, v, ok := strings.Cut(line, ":")
		if ok {
			info[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	if v, ok := info["vendor_id"]; !ok || v != cpuVendor {
		t.Errorf("cpuVendor %q, /proc/cpuinfo vendor_id %q", cpuVendor, v)
	}
	f, err := strconv.Atoi(info["cpu family"])
	if err != nil {
		t.Fatalf("/proc/cpuinfo cpu family %q: %v", info["cpu family"], err)
	}
	if uint32(f) != cpuFamily {
		t.Errorf("cpuFamily %d, /proc/cpuinfo cpu family %d", cpuFamily, f)
	}
	want := (cpuVendor == "AuthenticAMD" || cpuVendor == "HygonGenuine") && f == 25
	if divProbesFaster != want {
		t.Errorf("divProbesFaster %v on %s family %d", divProbesFaster, cpuVendor, f)
	}
}
