//go:build unix

package base

import (
	"os"
	"syscall"
)

// openNonBlocking opens path with O_NONBLOCK (and O_CLOEXEC), which it
// leaves set. The *os.File is made while the descriptor is blocking, so
// that package os does not hand it to its poller: a read that would wait
// then fails with EAGAIN rather than parking the goroutine forever.
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
