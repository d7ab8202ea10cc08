//go:build unix

package base

import (
	"os"
	"syscall"
)

// openNonBlocking opens path with O_NONBLOCK, which it leaves set; the
// *os.File is made while blocking, so package os does not poll it and a
// read that would wait fails with EAGAIN instead of parking forever.
func openNonBlocking(path string) (*os.File, error) {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	if err := syscall.SetNonblock(fd, false); err != nil {
		syscall.Close(fd)
		return nil, &os.PathError{Op: "fcntl", Path: path, Err: err}
	}
	f := os.NewFile(uintptr(fd), path)
	if err := syscall.SetNonblock(fd, true); err != nil {
		f.Close()
		return nil, &os.PathError{Op: "fcntl", Path: path, Err: err}
	}
	return f, nil
}
