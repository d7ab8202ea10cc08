package table

import "fmt"

// Error reports a table that cannot be read: the file, the byte offset in it
// where the problem lies, and what was expected there. Err, when not nil, is
// the underlying I/O or decoding error.
type Error struct {
	File   string // the name given to Open
	Offset int64  // byte offset in the file
	Msg    string // what is wrong at Offset
	Err    error  // underlying error, or nil
}

// Error formats e as "table FILE: offset N: MSG[: ERR]".
func (e *Error) Error() string {
	s := fmt.Sprintf("table %s: offset %d: %s", e.File, e.Offset, e.Msg)
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the underlying error, if any.
func (e *Error) Unwrap() error { return e.Err }

// errorf returns an *Error at offset off of t's file.
func (t *Table) errorf(off uint64, format string, args ...any) error {
	return &Error{File: t.name, Offset: int64(off), Msg: fmt.Sprintf(format, args...)}
}
