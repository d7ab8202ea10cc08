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
		if lo, hi, ok := addressRange(fields[0]); ok {
			in = a >= lo && a < hi
			continue
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

// addressRange parses the "lo-hi" (hexadecimal) that starts a mapping's
// line in /proc/self/maps and /proc/self/smaps.
func addressRange(field string) (lo, hi uintptr, ok bool) {
	l, h, ok := strings.Cut(field, "-")
	if !ok {
		return 0, 0, false
	}
	a, err1 := strconv.ParseUint(l, 16, 64)
	b, err2 := strconv.ParseUint(h, 16, 64)
	return uintptr(a), uintptr(b), err1 == nil && err2 == nil
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
			fmt.Printf("heap from %#x (%d KiB before the end of the runtime's 4 MiB mapping): %#x, written after Advise, is not advised for huge pages (Advise: %v)\n", p, (alignUp(p+1, chunk)-p)>>10, a, err)
			return 1
		}
	}
	fmt.Println("ok")
	return 0
}

// TestAdviseAhead checks, in fresh processes, that what the heap takes
// after Advise is advised for huge pages, wherever the runtime put the heap
// (a random place in Go 1.26). When the heap starts near the end of the
// runtime's 4 MiB mapping, half the time, the 1.5 MiB written after Advise
// would go into memory mapped later, unless Advise made the runtime map it
// first; with more than one processor, the runtime's own allocations may
// come between Advise's, and a collection may free the 2 MiB Advise dropped
// for the heap to take up again. Twenty-four processes, with 1, 2 and 4
// processors in turn, so that the first case comes at least once but for
// one time in 16 million. The Advise before, which missed the others,
// passed 400 runs of twelve processes with 2 processors and failed 11 of
// 400 with 4.
func TestAdviseAhead(t *testing.T) {
	if ok, why := thpEnabled(); !ok {
		t.Skipf("no huge pages to ask for here: %s", why)
	}
	for i := 0; i < 24; i++ {
		procs := []int{1, 2, 4}[i%3]
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), childEnv+"=1", "GOMAXPROCS="+strconv.Itoa(procs))
		out, err := cmd.CombinedOutput()
		if got := strings.TrimSpace(string(out)); err != nil || got != "ok" {
			t.Fatalf("process %d, GOMAXPROCS=%d: %s (%v)", i+1, procs, got, err)
		}
	}
}

// TestCollapse checks that, where the kernel can (transparent huge pages
// of 2 MiB not disabled, Linux 6.1 or later for MADV_COLLAPSE), the advice
// backs the huge page the heap is allocating in, which it has begun to
// use, with a huge page: all 512 of its pages present afterwards.
// LDBCOMPAT_NO_THP, set, says why not to expect it (qemu-user, which takes
// madvise's advice and ignores it).
func TestCollapse(t *testing.T) {
	if ok, why := thpEnabled(); !ok {
		t.Skipf("no huge pages to ask for here: %s", why)
	}
	if !kernelAtLeast(t, 6, 1) {
		t.Skip("no MADV_COLLAPSE before Linux 6.1")
	}
	pm, err := os.Open("/proc/self/pagemap")
	if err != nil {
		t.Skipf("cannot tell which pages are present: %v", err)
	}
	defer pm.Close()
	spans := plan()
	// Written, the probe's first page is present: the huge page holding
	// it is begun, whatever the heap held before.
	probe[0] = 1
	h := uintptr(unsafe.Pointer(probe)) &^ (hugePage - 1)
	if n := present(t, pm, h); n == hugePage/4096 {
		t.Skipf("the huge page at %#x has all its pages already", h)
	}
	// MADV_COLLAPSE gives up on a page another thread holds for the
	// moment, or that Linux has not yet put on its lists (EAGAIN, which
	// the call's error does not show when a huge page after it had no
	// page to collapse: EINVAL), once in about 200 runs here: it is
	// asked again, up to five times. The pages present are read at once:
	// later, the runtime's scavenger may hand free pages of the huge page
	// back to Linux, which splits it.
	n := 0
	for i := 0; i < 5 && n != hugePage/4096; i++ {
		err = adviseAll(spans)
		n = present(t, pm, h)
	}
	if n != hugePage/4096 {
		t.Errorf("the huge page at %#x, partly used, has %d of its %d pages present after the advice, five times, want all (advice on %#x: %v)", h, n, hugePage/4096, spans, err)
	}
}

// TestAdvise checks that Advise leaves what the heap holds as it was.
func TestAdvise(t *testing.T) {
	before := make([][]byte, 256)
	for i := range before {
		before[i] = bytes.Repeat([]byte{byte(i)}, 1000+i)
	}
	err := Advise()
	for i, b := range before {
		if len(b) != 1000+i || bytes.Count(b, []byte{byte(i)}) != len(b) {
			t.Fatalf("a buffer made before Advise changed: %d bytes, want %d bytes of %d (Advise: %v)", len(b), 1000+i, i, err)
		}
	}
	after := make([]byte, 3<<20)
	for i := range after {
		after[i] = byte(i)
	}
	for i := range after {
		if after[i] != byte(i) {
			t.Fatalf("memory allocated after Advise: byte %d is %d (Advise: %v)", i, after[i], err)
		}
	}
}

// present returns how many of the pages of the huge page at h are present
// in memory, from /proc/self/pagemap (bit 63 of each page's entry).
func present(t *testing.T, pm *os.File, h uintptr) int {
	b := make([]byte, 8*hugePage/4096)
	if _, err := pm.ReadAt(b, int64(h/4096*8)); err != nil {
		t.Fatalf("pagemap at %#x: %v", h, err)
	}
	n := 0
	for i := 0; i < len(b); i += 8 {
		if b[i+7]&0x80 != 0 {
			n++
		}
	}
	return n
}

// TestPlan checks the ranges Advise asks for: whole huge pages, in order
// and apart, one holding the heap object that tells where the heap is
// allocating, each ending where a 4 MiB mapping of the runtime ends, and
// each inside memory the process has mapped, readable and writable.
func TestPlan(t *testing.T) {
	spans := plan()
	p := uintptr(unsafe.Pointer(probe))
	holds := false
	for _, s := range spans {
		holds = holds || s.start <= p && p < s.end
	}
	if !holds {
		t.Errorf("plan() = %#x: no range holds the heap object at %#x", spans, p)
	}
	for i, s := range spans {
		if s.start%hugePage != 0 || s.end%chunk != 0 || s.start >= s.end {
			t.Errorf("plan() = %#x: range %d is not whole huge pages up to the end of a 4 MiB mapping", spans, i)
		}
		if i > 0 && s.start <= spans[i-1].end {
			t.Errorf("plan() = %#x: ranges %d and %d overlap or touch", spans, i-1, i)
		}
		if err := readWrite(s); err != nil {
			t.Errorf("plan() = %#x: range %d: %v", spans, i, err)
		}
	}
}

// readWrite tells whether /proc/self/maps has s mapped, all of it,
// readable and writable.
func readWrite(s span) error {
	b, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return err
	}
	at := s.start
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		lo, hi, ok := addressRange(f[0])
		if !ok || lo > at || hi <= at {
			continue
		}
		if !strings.HasPrefix(f[1], "rw") {
			return fmt.Errorf("%#x is in a mapping %s", at, f[1])
		}
		if at = hi; at >= s.end {
			return nil
		}
	}
	return fmt.Errorf("%#x is not mapped", at)
}
