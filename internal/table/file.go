package table

import (
	"errors"
	"fmt"
	"io"

	"github.com/ldbcompat/ldbcompat/internal/base"
)

// The table file as upstream reads it: util/env_posix.cc maps a table into
// memory (PosixMmapReadableFile) and a read past its end is an I/O error.
// Here the file is read from an io.ReaderAt, or from the memory the caller
// mapped (OpenBytes), and read whole once a scan needs every block.

// ioStatus is the status of a read the memory-mapped file refuses
// (util/env_posix.cc PosixMmapReadableFile::Read: EINVAL).
func (t *Table) ioStatus() string { return "IO error: " + t.name + ": Invalid argument" }

// read returns n bytes of the file at off: a slice of the whole file when
// it has been read, else a new buffer. A read past the end of the file is
// upstream's I/O error.
func (t *Table) read(off, n uint64, what blockName) ([]byte, error) {
	if off > t.fileSize || n > t.fileSize-off {
		return nil, t.statusErrorf(min(off, t.fileSize), t.ioStatus(),
			"%s: %d bytes at offset %d run past the end of the %d-byte file", what, n, off, t.fileSize)
	}
	return t.readIn(off, n, what)
}

// readIn is read for bytes known to lie in the file.
func (t *Table) readIn(off, n uint64, what blockName) ([]byte, error) {
	if t.file != nil {
		return t.file[off : off+n : off+n], nil
	}
	p := make([]byte, n)
	m, err := t.r.ReadAt(p, int64(off))
	if m == len(p) {
		return p, nil
	}
	status := base.IOStatus(t.name, err)
	if err == nil || errors.Is(err, io.EOF) {
		// A short read: the file ends before the size it had when
		// opened (it changed), or the device returned less. Upstream's
		// pread gives what it got and ReadBlock calls that a truncated
		// block; its footer decoder reads bytes it never got.
		err = io.ErrUnexpectedEOF
		status = "Corruption: truncated block read"
		if what == named("footer") {
			return nil, &base.Error{Type: base.TableFile, File: t.name, Offset: int64(off), Msg: fmt.Sprintf("reading %s (%d bytes): the read returned %d bytes, and upstream decodes the %d it did not get", what, n, m, int(n)-m), Err: base.ErrUndefined}
		}
	}
	if status == "" {
		status = "IO error: " + t.name + ": " + err.Error()
	}
	return nil, &base.Error{Type: base.TableFile, File: t.name, Offset: int64(off), Msg: fmt.Sprintf("reading %s (%d bytes)", what, n), Err: err,
		Status: status}
}

// maxWholeRead is the largest file loadFile reads at once.
const maxWholeRead = 1 << 30

// loadFile reads the whole file once, so that a scan reads every block
// from memory, as upstream reads from its memory map. When that read
// fails, blocks are read one at a time.
func (t *Table) loadFile() {
	t.fileOnce.Do(func() {
		if t.fileSize > maxWholeRead {
			return
		}
		p := t.spare
		if uint64(cap(p)) >= t.fileSize {
			p = p[:t.fileSize]
		} else {
			// Room for a slightly larger table next (UseBuffer): pages
			// never touched cost nothing.
			p = make([]byte, t.fileSize, t.fileSize+min(t.fileSize/8, 1<<20))
		}
		t.spare = nil
		if n, _ := t.r.ReadAt(p, 0); uint64(n) == t.fileSize {
			t.file = p
		}
	})
}

// InMemory reports whether the table reads every block from memory: it
// was opened from bytes, or a scan read the whole file. It then reads on
// once its file is closed.
func (t *Table) InMemory() bool { return t.file != nil }

// UseBuffer lets a later scan read the whole file into buf instead of a
// new buffer, when buf is large enough: a caller that checks many tables
// one after another gives each the buffer the previous one read into
// (FileBuffer), so that the memory is not allocated and faulted in afresh
// for every table. Call it before the first scan; buf must not be in use.
func (t *Table) UseBuffer(buf []byte) { t.spare = buf }

// FileBuffer returns the buffer the whole file was read into, or nil, for
// UseBuffer on another table. Everything read from t (blocks, filters,
// entries) may alias it: the caller passes it on only when it keeps none
// of that.
func (t *Table) FileBuffer() []byte {
	if t.file != nil {
		return t.file
	}
	return t.spare
}
