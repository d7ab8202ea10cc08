//go:build linux && (amd64 || arm64)

package verify

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"github.com/ldbcompat/ldbcompat/internal/faultfs"
)

// TestAdviseHuge checks that a table's map on a local disk carries
// MADV_HUGEPAGE, which /proc/self/smaps shows as the flag "hg" of the
// mapping (with it, a table not yet in the page cache is read ahead into
// 2 MB pages: docs/performance.md, "The page cache's page size"), and that
// a map of a file on FUSE does not, unless ForceHugeAdvice was called.
func TestAdviseHuge(t *testing.T) {
	if _, err := os.Stat("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil {
		t.Skipf("this kernel has no transparent huge pages: %v", err)
	}
	want := make([]byte, 3<<20)
	for i := range want {
		want[i] = byte(i * 7)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "000005.ldb"), want, 0o644); err != nil {
		t.Fatal(err)
	}
	// advised maps the table under root, checks that the map holds
	// its bytes and is not writable, and returns what adviseHuge
	// answered and whether the map carries the flag.
	advised := func(root string, read bool) (answer, flag bool) {
		t.Helper()
		f, err := os.Open(filepath.Join(root, "000005.ldb"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		m, err := mapFile(f, int64(len(want)))
		if err != nil {
			t.Fatal(err)
		}
		defer unmapFile(m)
		answer = adviseHuge(f, m)
		// A test must not read a FUSE file through a map in its own
		// process (faultfs.MountT): only the local file is read.
		if read && string(m) != string(want) {
			t.Fatal("the map does not hold the file's bytes")
		}
		flags, err := vmFlags(uintptr(unsafe.Pointer(unsafe.SliceData(m))))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(" "+flags+" ", " wr ") {
			t.Errorf("the map's VmFlags are %q: it is writable", flags)
		}
		return answer, strings.Contains(" "+flags+" ", " hg ")
	}

	// The flag as this system shows it for a map the test advises
	// itself: qemu-user, for one, takes the advice without passing it
	// on, and its /proc/self/smaps has no hg.
	{
		f, err := os.Open(filepath.Join(dir, "000005.ldb"))
		if err != nil {
			t.Fatal(err)
		}
		m, err := syscall.Mmap(int(f.Fd()), 0, len(want), syscall.PROT_READ, syscall.MAP_SHARED)
		if err != nil {
			t.Fatal(err)
		}
		err = syscall.Madvise(m, syscall.MADV_HUGEPAGE)
		flags, ferr := vmFlags(uintptr(unsafe.Pointer(unsafe.SliceData(m))))
		syscall.Munmap(m)
		f.Close()
		if err != nil || ferr != nil || !strings.Contains(" "+flags+" ", " hg ") {
			t.Skipf("skipped: a map advised MADV_HUGEPAGE here (madvise: %v) shows the VmFlags %q (%v), without hg", err, flags, ferr)
		}
	}

	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	const ext4 = 0xEF53 // the file system of /tmp where this was measured
	answer, flag := advised(dir, true)
	if answer != flag {
		t.Errorf("on %s (file system %#x): adviseHuge says %v, the map's flag hg %v", dir, st.Type, answer, flag)
	}
	if st.Type == ext4 && !flag {
		t.Errorf("on ext4 (%s): the map was not advised huge pages", dir)
	}

	mnt := faultfs.MountT(t, dir)
	if answer, flag := advised(mnt.Dir, false); answer || flag {
		t.Errorf("on FUSE: adviseHuge says %v, the map's flag hg %v; want neither", answer, flag)
	}
	hugeAdviceAlways = true
	defer func() { hugeAdviceAlways = false }()
	if answer, flag := advised(mnt.Dir, false); !answer || !flag {
		t.Errorf("on FUSE with ForceHugeAdvice: adviseHuge says %v, the map's flag hg %v; want both", answer, flag)
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
