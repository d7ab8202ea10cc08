package base

import (
	"errors"
	"io/fs"
	"syscall"
)

// Upstream's wording of I/O errors (util/env_posix.cc).

// IOStatus returns upstream's status for the I/O error err on the file
// name, as util/env_posix.cc's PosixError words it ("NotFound: ..." for
// ENOENT, else "IO error: NAME: " and strerror); "" without an errno.
func IOStatus(name string, err error) string {
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		if errors.Is(err, fs.ErrNotExist) {
			errno = syscall.ENOENT
		} else {
			return ""
		}
	}
	kind := "IO error: "
	if errno == syscall.ENOENT {
		kind = "NotFound: "
	}
	return kind + name + ": " + strerror(errno)
}

// strerror is glibc's strerror text for errno: Go's own text for it (the
// same words) with a capital first letter.
func strerror(errno syscall.Errno) string {
	s := errno.Error()
	if s != "" && s[0] >= 'a' && s[0] <= 'z' {
		s = string(s[0]-'a'+'A') + s[1:]
	}
	return s
}
