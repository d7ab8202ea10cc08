package base

import (
	"errors"
	"fmt"
)

// The one error type of LevelDB's readers, with upstream's Status::ToString().

// Error reports a file that cannot be read: the file, the offset of the
// problem, what is wrong there, and upstream's status for it; Err is the
// underlying error, if any.
type Error struct {
	// Type is the file's type; a table's errors say so ("table FILE: ..."),
	// as a table may be any file named on the command line.
	Type   FileType
	File   string // the file's name, as given to the reader
	Offset int64  // byte offset in the file
	Msg    string // what is wrong at Offset
	// Status is upstream LevelDB 1.23's, such as "Corruption: bad entry in
	// block"; "" when upstream has no answer (ErrUndefined) or reads the file.
	Status string
	Err    error // underlying error, or nil
}

// Error formats e as "FILE: offset N: MSG[: ERR]", after "table " for a
// table.
func (e *Error) Error() string {
	s := fmt.Sprintf("%s: offset %d: %s", e.File, e.Offset, e.Msg)
	if e.Type == TableFile {
		s = "table " + s
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the underlying error, if any.
func (e *Error) Unwrap() error { return e.Err }

// ErrUndefined is wrapped by an *Error for a file on which upstream's
// behaviour is undefined: it would read out of bounds, overflow an
// allocation or crash.
var ErrUndefined = errors.New("LevelDB's behaviour is undefined here")

// IsUndefined reports whether err is an *Error wrapping ErrUndefined
// directly.
func IsUndefined(err error) bool {
	e, ok := err.(*Error)
	return ok && e.Err == ErrUndefined
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
