//go:build linux && (amd64 || arm64)

package hugeheap

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// thpEnabled tells whether the kernel gives huge pages of 2 MiB where a
// program asks (transparent_hugepage "always" or "madvise"), and if not,
// why.
func thpEnabled() (bool, string) {
	if why := os.Getenv("LDBCOMPAT_NO_THP"); why != "" {
		return false, "LDBCOMPAT_NO_THP: " + why
	}
	b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil {
		return false, err.Error()
	}
	if bytes.Contains(b, []byte("[never]")) {
		return false, "transparent_hugepage is never"
	}
	b, err = os.ReadFile("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size")
	if err != nil {
		return false, err.Error()
	}
	if size := strings.TrimSpace(string(b)); size != strconv.Itoa(hugePage) {
		return false, "huge pages of " + size + " bytes"
	}
	return true, ""
}

// kernelAtLeast tells whether the running kernel is major.minor or later.
func kernelAtLeast(t *testing.T, major, minor int) bool {
	var u syscall.Utsname
	if err := syscall.Uname(&u); err != nil {
		t.Fatal(err)
	}
	var rel []byte
	for _, c := range u.Release {
		if c == 0 {
			break
		}
		rel = append(rel, byte(c))
	}
	parts := strings.SplitN(string(rel), ".", 3)
	if len(parts) < 2 {
		t.Fatalf("kernel release %q", rel)
	}
	ma, _ := strconv.Atoi(parts[0])
	mi, _ := strconv.Atoi(strings.TrimFunc(parts[1], func(r rune) bool { return r < '0' || r > '9' }))
	return ma > major || ma == major && mi >= minor
}

// anonHuge returns the AnonHugePages, in kB, of the mapping of this
// process that holds address a, from /proc/self/smaps.
func anonHuge(t *testing.T, a uintptr) int {
	kb, err := smapsField(a, "AnonHugePages:")
	if err != nil {
		t.Fatal(err)
	}
	return kb
}

// smapsField returns the number a field of /proc/self/smaps gives for the
// mapping of this process that holds address a.
func smapsField(a uintptr, field string) (int, error) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		if lo, hi, ok := strings.Cut(fields[0], "-"); ok && !strings.HasSuffix(fields[0], ":") {
			l, err1 := strconv.ParseUint(lo, 16, 64)
			h, err2 := strconv.ParseUint(hi, 16, 64)
			if err1 == nil && err2 == nil {
				in = uint64(a) >= l && uint64(a) < h
				continue
			}
		}
		if in && fields[0] == field && len(fields) > 1 {
			n, err := strconv.Atoi(fields[1])
			if err != nil {
				return 0, fmt.Errorf("smaps: %q", line)
			}
			return n, nil
		}
	}
	if err := sc.Err(); err != nil {
		return 0, fmt.Errorf("smaps: %w", err)
	}
	return 0, fmt.Errorf("no mapping holds %#x in /proc/self/smaps, or it has no %s", a, field)
}

// childEnv, set, makes the test binary run child instead of its tests.
const childEnv = "HUGEHEAP_TEST_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		os.Exit(child())
	}
	os.Exit(m.Run())
}

// grown is what child writes after Advise: about what verify's buffers
// take on make bench's databases.
const grown = 3 << 19

// child is a process calling Advise first, as ldbcompat does, and then
// writing grown bytes of fresh heap: it prints "ok" if the mappings that
// hold the first and the last of them are advised for huge pages
// (THPeligible in smaps), and what is wrong if not.
func child() int {
	err := Advise()
	p := uintptr(unsafe.Pointer(probe))
	buf := make([]byte, grown)
	for i := range buf {
		buf[i] = byte(i)
	}
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(buf)))
	for _, a := range []uintptr{lo, lo + grown - 1} {
		ok, ferr := smapsField(a, "THPeligible:")
		if ferr != nil {
			fmt.Println(ferr)
			return 1
		}
		if ok != 1 {
			fmt.Printf("heap from %#x (%d KiB before the end of the runtime's 4 MiB mapping): %#x, written after Advise, is not advised for huge pages (Advise: %v)\n", p, (p&^(chunk-1)+chunk-p)>>10, a, err)
			return 1
		}
	}
	fmt.Println("ok")
	return 0
}

// TestAdviseAhead checks, in fresh processes, that what the heap takes
// after Advise is advised for huge pages, wherever the runtime put the heap
// (a random place in Go 1.26): when the heap starts near the end of the
// runtime's 4 MiB mapping, half the time, the 1.5 MiB written after Advise
// would go into memory mapped later, unless Advise made the runtime map it
// first. Twelve processes, so that the case comes at least once but for one
// time in 4,096.
func TestAdviseAhead(t *testing.T) {
	if ok, why := thpEnabled(); !ok {
		t.Skipf("no huge pages to ask for here: %s", why)
	}
	for i := 0; i < 12; i++ {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), childEnv+"=1")
		out, err := cmd.CombinedOutput()
		if got := strings.TrimSpace(string(out)); err != nil || got != "ok" {
			t.Fatalf("process %d: %s (%v)", i+1, got, err)
		}
	}
}

// TestAdvise checks that Advise leaves what the heap holds as it was and,
// where the kernel can (transparent huge pages of 2 MiB not disabled, Linux
// 6.1 or later for MADV_COLLAPSE), backs the heap's current region with a
// huge page. LDBCOMPAT_NO_THP, set, says why not to expect it (qemu-user,
// which takes madvise's advice and ignores it).
func TestAdvise(t *testing.T) {
	before := make([][]byte, 256)
	for i := range before {
		before[i] = bytes.Repeat([]byte{byte(i)}, 1000+i)
	}
	err := Advise()
	for i, b := range before {
		if len(b) != 1000+i || bytes.Count(b, []byte{byte(i)}) != len(b) {
			t.Fatalf("a buffer made before Advise changed: %d bytes, want %d bytes of %d", len(b), 1000+i, i)
		}
	}
	after := make([]byte, 3<<20)
	for i := range after {
		after[i] = byte(i)
	}
	for i := range after {
		if after[i] != byte(i) {
			t.Fatalf("memory allocated after Advise: byte %d is %d", i, after[i])
		}
	}
	if ok, why := thpEnabled(); !ok {
		t.Skipf("no huge pages to ask for here: %s (Advise: %v)", why, err)
	}
	if !kernelAtLeast(t, 6, 1) {
		t.Skipf("no MADV_COLLAPSE before Linux 6.1 (Advise: %v)", err)
	}
	p := uintptr(unsafe.Pointer(probe))
	if kb := anonHuge(t, p); kb < hugePage>>10 {
		t.Errorf("the heap's mapping at %#x has %d kB in huge pages after Advise, want %d kB at least (Advise: %v)", p, kb, hugePage>>10, err)
	}
}

// TestRegion checks the range Advise asks for: whole huge pages, holding
// a fresh heap object, inside one heap arena.
func TestRegion(t *testing.T) {
	start, end := Region()
	p := uintptr(unsafe.Pointer(probe))
	if start%hugePage != 0 || end%hugePage != 0 {
		t.Errorf("Region() = [%#x, %#x): not whole huge pages", start, end)
	}
	if p < start || p >= end {
		t.Errorf("Region() = [%#x, %#x) does not hold the heap object at %#x", start, end, p)
	}
	if end-start > advised || (end-1)/arena != start/arena {
		t.Errorf("Region() = [%#x, %#x): more than %d bytes, or beyond the arena of %#x", start, end, advised, p)
	}
}
