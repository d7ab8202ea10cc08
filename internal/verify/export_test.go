package verify

import (
	"io/fs"
	"runtime"
)

// SetAfterMap sets a function called with a table file's path once it is
// memory-mapped, before it is read, and returns a function restoring the
// previous one.
func SetAfterMap(f func(path string)) (restore func()) {
	prev := afterMap
	afterMap = f
	return func() { afterMap = prev }
}

// MappedFault sets the report of the table file at path as Examine does
// when reading its memory map data faulted with fault: f is the open file,
// at its size when mapped.
func MappedFault(path string, f File, data []byte, fault runtime.Error) *TableReport {
	fi, err := f.Stat()
	if err != nil {
		panic(err)
	}
	rep := &TableReport{Path: path, FileSize: fi.Size()}
	mappedFault(&Target{Path: path}, f, fi, data, fault, rep)
	return rep
}

// KeyText is keyText, for tests.
var KeyText = keyText

// ResolveUnsearchable is resolveUnsearchable: the database in dir, whose
// entries are ents, when looking at CURRENT failed with err.
func ResolveUnsearchable(dir string, ents []fs.DirEntry, err error) (*Database, []*Target) {
	return resolveUnsearchable(dir, ents, err)
}

// EscapeKey is escapeKey: a key as dump prints a log record's.
func EscapeKey(k []byte) string { return escapeKey(k) }
