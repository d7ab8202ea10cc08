package table

import (
	"errors"
	"fmt"
)

// Error reports a table that cannot be read: the file, the byte offset in it
// where the problem lies, and what was expected there. Err, when not nil, is
// the underlying I/O or decoding error, or ErrUndefined or ErrLimit.
type Error struct {
	File   string // the name given to Open
	Offset int64  // byte offset in the file
	Msg    string // what is wrong at Offset
	Err    error  // underlying error, or nil
	// Status is the status upstream LevelDB 1.23 reports for the same
	// problem, as Status::ToString() prints it, such as "Corruption: bad
	// entry in block" (an I/O error names the file as given to Open). It
	// is "" when upstream has no answer (Err is ErrUndefined) or reads
	// the table (Err is ErrLimit).
	Status string
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

// ErrUndefined is wrapped by an *Error for a table on which upstream
// LevelDB's behaviour is undefined: it would read out of bounds, overflow
// an allocation or crash (a block handle whose offset and size overflow 64
// bits, an entry whose key and value lengths overflow 32 bits, a key
// shorter than 8 bytes that the internal key comparator is asked about).
var ErrUndefined = errors.New("LevelDB's behaviour is undefined here")

// ErrLimit is wrapped by an *Error for a table that upstream reads but
// this package will not decode in full, to bound its memory: keys that
// prefix compression makes many times longer in total than their block.
var ErrLimit = errors.New("beyond this reader's memory bound")

// errorf returns an *Error at offset off of t's file.
func (t *Table) errorf(off uint64, format string, args ...any) error {
	return &Error{File: t.name, Offset: int64(off), Msg: fmt.Sprintf(format, args...)}
}

// statusErrorf returns an *Error at offset off of t's file for a problem
// upstream reports with status.
func (t *Table) statusErrorf(off uint64, status, format string, args ...any) error {
	return &Error{File: t.name, Offset: int64(off), Msg: fmt.Sprintf(format, args...), Status: status}
}

// StatusOf returns upstream's status for err: the Status of the *Error it
// wraps, or "" when there is none.
func StatusOf(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Status
	}
	return ""
}
