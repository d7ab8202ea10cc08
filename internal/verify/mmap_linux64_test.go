//go:build linux && (amd64 || arm64)

package verify

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"
)

// TestMapFileAdvisesHugePages checks that a table's map carries
// MADV_HUGEPAGE, which /proc/self/smaps shows as the flag "hg" of the
// mapping: with it, a table not yet in the page cache is read ahead into
// 2 MB pages (docs/performance.md, "The page cache's page size").
func TestMapFileAdvisesHugePages(t *testing.T) {
	if _, err := os.Stat("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil {
		t.Skipf("this kernel has no transparent huge pages: %v", err)
	}
	path := filepath.Join(t.TempDir(), "000005.ldb")
	want := make([]byte, 3<<20)
	for i := range want {
		want[i] = byte(i * 7)
	}
	if err := os.WriteFile(path, want, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := mapFile(f, int64(len(want)))
	if err != nil {
		t.Fatal(err)
	}
	defer unmapFile(m)
	if string(m) != string(want) {
		t.Fatal("the map does not hold the file's bytes")
	}
	flags, err := vmFlags(uintptr(unsafe.Pointer(unsafe.SliceData(m))))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(" "+flags+" ", " hg ") {
		t.Errorf("the map's VmFlags are %q, without hg (MADV_HUGEPAGE)", flags)
	}
	if strings.Contains(" "+flags+" ", " wr ") {
		t.Errorf("the map's VmFlags are %q: it is writable", flags)
	}
}

// vmFlags returns the VmFlags line of the mapping of /proc/self/smaps
// that starts at addr.
func vmFlags(addr uintptr) (string, error) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return "", err
	}
	defer f.Close()
	start := fmt.Sprintf("%x-", addr)
	in := false
	s := bufio.NewScanner(f)
	for s.Scan() {
		line := s.Text()
		if strings.HasPrefix(line, start) {
			in = true
		} else if in && strings.HasPrefix(line, "VmFlags:") {
			// The last line of each mapping's entry.
			return strings.TrimSpace(strings.TrimPrefix(line, "VmFlags:")), nil
		}
	}
	if err := s.Err(); err != nil {
		return "", err
	}
	return "", fmt.Errorf("no mapping at %#x in /proc/self/smaps", addr)
}
