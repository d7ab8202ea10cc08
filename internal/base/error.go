package base

import (
	"errors"
	"fmt"
)

// The one error type of LevelDB's readers: a file upstream cannot read,
// or on which its behaviour is undefined, with what upstream says of it
// (include/leveldb/status.h: a Status, as Status::ToString() prints it).

// Error reports a file that cannot be read: the file, the byte offset in
// it where the problem lies, what is wrong there, and upstream's status for
// it. Err, when not nil, is the underlying error: an I/O error, a
// decoding error, ErrUndefined, or a reader's own (such as table.ErrLimit).
type Error struct {
	// Type is the file's type. A table's errors say so in their text
	// ("table FILE: ..."): a table may be any file named on the command
	// line, where the names of a MANIFEST and of CURRENT tell what they
	// are.
	Type   FileType
	File   string // the file's name, as given to the reader
	Offset int64  // byte offset in the file
	Msg    string // what is wrong at Offset
	// Status is the status upstream LevelDB 1.23 reports for the same
	// problem, such as "Corruption: bad entry in block" (an I/O error
	// names the file as given to the reader). It is "" when upstream has
	// no answer (Err is ErrUndefined) or reads the file (the reader's own
	// limits).
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

// ErrUndefined is wrapped by an *Error for a file on which upstream
// LevelDB's behaviour is undefined: it would read out of bounds, overflow
// an allocation or crash (in a table, a block handle whose offset and size
// overflow 64 bits, an entry whose key and value lengths overflow 32 bits,
// a key shorter than 8 bytes that the internal key comparator is asked
// about; in a MANIFEST, such a key among the files of a level).
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
