package table

import (
	"errors"
	"fmt"
	"io"

	"github.com/ldbcompat/ldbcompat/internal/base"
)

// ioStatus is PosixMmapReadableFile::Read's EINVAL (util/env_posix.cc).
func (t *Table) ioStatus() string { return "IO error: " + t.name + ": Invalid argument" }

// read returns n bytes at off (a slice of the whole file if read); past
// the end is upstream's I/O error.
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
		// A short read (the file shrank): upstream's ReadBlock calls it a
		// truncated block.
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

// loadFile reads the whole file once, as upstream reads its map; if that
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
			// Room for a larger next table; untouched pages cost nothing.
			p = make([]byte, t.fileSize, t.fileSize+min(t.fileSize/8, 1<<20))
		}
		t.spare = nil
		if n, _ := t.r.ReadAt(p, 0); uint64(n) == t.fileSize {
			t.file = p
		}
	})
}

// InMemory reports whether every block is read from memory (opened from
// bytes, or loaded by a scan), so reads go on after the file is closed.
func (t *Table) InMemory() bool { return t.file != nil }

// UseBuffer lets a later scan read the file into buf, if large enough (see
// FileBuffer). Call it before the first scan; buf must not be in use.
func (t *Table) UseBuffer(buf []byte) { t.spare = buf }

// FileBuffer returns the buffer the file was read into, or nil, to pass
// to another table's UseBuffer once nothing read from t is in use.
func (t *Table) FileBuffer() []byte {
	if t.file != nil {
		return t.file
	}
	return t.spare
}
