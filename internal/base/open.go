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
// not a regular file, which LevelDB's readers cannot use.
var ErrNotRegular = errors.New("not a regular file")

// OpenNonBlocking opens the regular file at path read-only, with its
// fstat(2) info, or an error wrapping ErrNotRegular. Neither the open nor
// reads block (a named pipe, /proc/kmsg): a read that would fails with EAGAIN.
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
// is not a regular file's: "PATH: not a regular file but a named pipe".
func NotRegular(path string, mode fs.FileMode) error {
	return fmt.Errorf("%s: %w%s", path, ErrNotRegular, kindOf(mode))
}

// kinds names what a file that is not a regular file is, in the order
// kindOf tries them (a character device is a device too).
var kinds = []struct {
	mode fs.FileMode
	name string
}{
	{fs.ModeDir, "a directory"},
	{fs.ModeNamedPipe, "a named pipe"},
	{fs.ModeSocket, "a socket"},
	{fs.ModeCharDevice, "a character device"},
	{fs.ModeDevice, "a block device"},
	{fs.ModeSymlink, "a symbolic link"},
	{fs.ModeIrregular, "a file of an unknown kind"},
}

// kindOf names what a file that is not a regular file is.
func kindOf(m fs.FileMode) string {
	for _, k := range kinds {
		if m&k.mode != 0 {
			return " but " + k.name
		}
	}
	return ""
}
