package base

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// Opening a database's files as util/env_posix.cc does (open(2), then
// fstat(2) of the open descriptor), without ever blocking.

// ErrNotRegular is wrapped by OpenNonBlocking's error for a path that is
// not a regular file (a named pipe, a device, a socket, a directory),
// which LevelDB's readers cannot use and verify does not read.
var ErrNotRegular = errors.New("not a regular file")

// OpenNonBlocking opens the file at path read-only, and returns it with
// what fstat(2) of the open descriptor says of it: a regular file, or an
// error wrapping ErrNotRegular that names what it is. The open never
// blocks (a named pipe without a writer, a terminal or a tape would block
// an ordinary one), and neither do reads of the file it returns: a file
// that would make them wait (one of /proc, such as /proc/kmsg) fails them
// with EAGAIN.
func OpenNonBlocking(path string) (*os.File, fs.FileInfo, error) {
	f, err := openNonBlocking(path)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, NotRegular(path, fi.Mode())
	}
	return f, fi, nil
}

// NotRegular is the error, wrapping ErrNotRegular, for a path whose mode
// is not that of a regular file: "PATH: not a regular file but a named
// pipe".
func NotRegular(path string, mode fs.FileMode) error {
	return fmt.Errorf("%s: %w%s", path, ErrNotRegular, kindOf(mode))
}

// kindOf names what a file that is not a regular file is.
func kindOf(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return " but a directory"
	case m&fs.ModeNamedPipe != 0:
		return " but a named pipe"
	case m&fs.ModeSocket != 0:
		return " but a socket"
	case m&fs.ModeCharDevice != 0:
		return " but a character device"
	case m&fs.ModeDevice != 0:
		return " but a block device"
	case m&fs.ModeSymlink != 0:
		return " but a symbolic link"
	case m&fs.ModeIrregular != 0:
		return " but a file of an unknown kind"
	}
	return ""
}
