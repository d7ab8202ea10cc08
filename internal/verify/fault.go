package verify

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"unsafe"

	"github.com/ldbcompat/ldbcompat/internal/base"
)

// A table read through a memory map faults (SIGBUS) where the file was cut
// short or the device fails: the fault becomes a verdict, never a crash.

// mappedFault sets the verdict of a table whose mapped file faulted
// (SIGBUS): cut short, or a page the device failed to read, as read(2)
// tells. A fault outside the map goes on as the panic it is.
func mappedFault(tg *Target, f File, fi fs.FileInfo, data []byte, fault runtime.Error, rep *TableReport) {
	keep := rep.identity()
	off, known := faultOffset(fault, data)
	if known && off < 0 {
		panic(fault)
	}
	if now, err := f.Stat(); err == nil && now.Size() < int64(len(data)) {
		*rep = keep
		rep.Verdict = Unchecked
		rep.Err = fmt.Errorf("%s changed while it was read (%d bytes when opened, %d after, so that reading it through its memory map faulted): is LevelDB still writing it?", tg.Path, fi.Size(), now.Size())
		return
	}
	at, ioErr := deviceError(f, off, known, int64(len(data)))
	if ioErr == nil && !known {
		// No address, and every page reads: not the file's fault.
		panic(fault)
	}
	if !known {
		off = at
	}
	*rep = keep
	if ioErr == nil {
		rep.Verdict = Unchecked
		rep.Err = &base.Error{Type: base.TableFile, File: tg.Path, Offset: off,
			Msg: fmt.Sprintf("reading the memory-mapped file faulted (SIGBUS), and a read(2) of the page at offset %d then succeeded: the device fails intermittently", at)}
		return
	}
	rep.Verdict, rep.Device = Unreadable, true
	rep.Err = &base.Error{Type: base.TableFile, File: tg.Path, Offset: off, Err: ioErr,
		Msg: fmt.Sprintf("reading the memory-mapped file faulted (SIGBUS); a read(2) of the page at offset %d fails", at)}
	rep.Status = base.IOStatus(tg.Path, ioErr)
}

// faultOffset returns the offset in data of the faulting address, if the
// fault names one (qemu's user mode does not); -1 outside the map.
func faultOffset(fault runtime.Error, data []byte) (int64, bool) {
	a, ok := fault.(interface{ Addr() uintptr })
	if !ok {
		return 0, false
	}
	base := uintptr(unsafe.Pointer(unsafe.SliceData(data)))
	addr := a.Addr()
	if addr < base || addr-base >= uintptr(len(data)) {
		return -1, true
	}
	return int64(addr - base), true
}

// deviceError reads with read(2) the page holding off, or every page when
// not known, and returns the first that fails with its error, or nil.
func deviceError(f File, off int64, known bool, size int64) (int64, error) {
	const page = 4096
	buf := make([]byte, 64<<10)
	read := func(at, n int64) error {
		_, err := f.ReadAt(buf[:n], at)
		if errors.Is(err, io.EOF) {
			return nil // the size was checked; EOF is a later change
		}
		var errno syscall.Errno
		if errors.As(err, &errno) {
			return errno // the path is in the report already
		}
		return err
	}
	if known {
		at := off &^ (page - 1)
		return at, read(at, min(page, size-at))
	}
	for at := int64(0); at < size; at += int64(len(buf)) {
		n := min(int64(len(buf)), size-at)
		if read(at, n) == nil {
			continue
		}
		// Page by page, for the first that fails.
		for p := at; p < at+n; p += page {
			if err := read(p, min(page, at+n-p)); err != nil {
				return p, err
			}
		}
		return at, read(at, n)
	}
	return 0, nil
}

// afterMap is called once a table file is mapped; tests change the file.
var afterMap = func(path string) {}

// catchFault runs fn and returns the memory fault (SIGBUS or SIGSEGV) it
// met, rather than crashing; any other panic goes on.
func catchFault(fn func()) (fault runtime.Error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			// A fault is this runtime.Error, with Addr when known.
			if re, ok := r.(runtime.Error); ok && strings.Contains(re.Error(), "invalid memory address") {
				fault = re
				return
			}
			panic(r)
		}
	}()
	fn()
	return nil
}
