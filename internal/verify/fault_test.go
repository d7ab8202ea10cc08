package verify_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"github.com/ldbcompat/ldbcompat/internal/verify"
)

// fault is a memory fault as the runtime reports one, with the address
// when addr is set (a *runtime.Error with an Addr method), else without
// (as under qemu's user mode).
type fault struct{ msg string }

func (f fault) Error() string { return f.msg }
func (fault) RuntimeError()   {}

type faultAt struct {
	fault
	addr uintptr
}

func (f faultAt) Addr() uintptr { return f.addr }

func at(data []byte, off int) faultAt {
	return faultAt{fault{"runtime error: invalid memory address or nil pointer dereference"}, uintptr(unsafe.Pointer(unsafe.SliceData(data))) + uintptr(off)}
}

// TestMappedFault: where reading a table's memory map faults (SIGBUS), a
// read(2) of the page that faulted, or of each page from the start where
// the fault has no address, tells a failing device (unreadable, its
// error, upstream dying of SIGBUS there) from one that fails now and
// then (unchecked); a fault no page explains, or outside the map, is no
// fault of the file, and goes on as a panic.
func TestMappedFault(t *testing.T) {
	const size = 200 << 10
	p := filepath.Join(t.TempDir(), "000005.ldb")
	if err := os.WriteFile(p, make([]byte, size), 0o644); err != nil {
		t.Fatal(err)
	}
	data := make([]byte, size) // stands for the map
	eio := func(from, to int64) verify.File {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return &failingFile{File: f, from: from, to: to, errno: syscall.EIO}
	}
	noAddr := fault{"runtime error: invalid memory address or nil pointer dereference"}
	for _, tc := range []struct {
		name    string
		f       verify.File
		fault   interface{ Error() string }
		verdict verify.Verdict
		offset  int64
		msg     string
	}{
		{"the page fails", eio(8192, 8193), at(data, 9000), verify.Unreadable, 9000, "a read(2) of the page at offset 8192 fails"},
		{"the first byte", eio(0, 1), at(data, 0), verify.Unreadable, 0, "a read(2) of the page at offset 0 fails"},
		{"the page reads", eio(100000, 100001), at(data, 9000), verify.Unchecked, 9000, "a read(2) of the page at offset 8192 then succeeded: the device fails intermittently"},
		{"the last page fails", eio(size-1, size), at(data, size-1), verify.Unreadable, size - 1, fmt.Sprintf("a read(2) of the page at offset %d fails", size-4096)},
		{"no address, third page fails", eio(3*4096+10, 3*4096+11), noAddr, verify.Unreadable, 3 * 4096, "a read(2) of the page at offset 12288 fails"},
		{"no address, a page of the second 64 KiB fails", eio(70000, 70001), noAddr, verify.Unreadable, 69632, "a read(2) of the page at offset 69632 fails"},
		{"no address, the last page fails", eio(size-1, size), noAddr, verify.Unreadable, size - 4096, fmt.Sprintf("a read(2) of the page at offset %d fails", size-4096)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := verify.MappedFault(p, tc.f, data, tc.fault.(interface {
				Error() string
				RuntimeError()
			}))
			off, ok := r.Offset()
			if r.Verdict != tc.verdict || !ok || off != tc.offset || r.Err == nil || !strings.Contains(r.Err.Error(), tc.msg) {
				t.Fatalf("%s at %d (%v): %v; want %s at %d, %q", r.Verdict, off, ok, r.Err, tc.verdict, tc.offset, tc.msg)
			}
			if device := tc.verdict == verify.Unreadable; r.Device != device || device && r.Status != "IO error: "+p+": Input/output error" {
				t.Errorf("device %v, status %q", r.Device, r.Status)
			}
		})
	}
	for name, fl := range map[string]interface {
		Error() string
		RuntimeError()
	}{"no address, every page reads": noAddr, "outside the map": at(data, -1), "past the map": at(data, size)} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if r := recover(); r != fl {
					t.Errorf("recovered %v, want the fault itself", r)
				}
			}()
			r := verify.MappedFault(p, eio(size, size+1), data, fl)
			t.Errorf("no panic: %s %v", r.Verdict, r.Err)
		})
	}
	// The file cut short since it was mapped: it changed.
	short := filepath.Join(t.TempDir(), "000006.ldb")
	if err := os.WriteFile(short, make([]byte, size-1), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(short)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if r := verify.MappedFault(short, f, data, at(data, 10)); r.Verdict != verify.Unchecked || !strings.Contains(r.Err.Error(), "changed while it was read") {
		t.Errorf("a shorter file: %s %v; want unchecked, changed", r.Verdict, r.Err)
	}
}
