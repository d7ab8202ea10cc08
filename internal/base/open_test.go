//go:build unix

package base_test

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ldbcompat/ldbcompat/internal/base"
)

// within fails the test when fn has not returned after d: a blocking open
// or read would otherwise hang the suite.
func within(t *testing.T, d time.Duration, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s: still blocked after %v", what, d)
	}
}

// TestOpenNonBlocking: a named pipe without a writer (which an ordinary
// open waits on forever), a device and a directory are refused at once,
// each named for what it is; a socket fails open(2) itself (ENXIO); a
// regular file opens and reads.
func TestOpenNonBlocking(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	sock := filepath.Join(dir, "sock")
	if l, err := net.Listen("unix", sock); err == nil {
		defer l.Close()
	} else {
		sock = ""
	}
	reg := filepath.Join(dir, "reg")
	if err := os.WriteFile(reg, []byte("data"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{fifo: "a named pipe", "/dev/zero": "a character device", dir: "a directory"}
	for path, what := range cases {
		within(t, 10*time.Second, path, func() {
			f, _, err := base.OpenNonBlocking(path)
			if err == nil {
				f.Close()
			}
			if !errors.Is(err, base.ErrNotRegular) || err.Error() != path+": not a regular file but "+what {
				t.Errorf("%s: %v; want not a regular file but %s", path, err, what)
			}
		})
	}
	within(t, 10*time.Second, reg, func() {
		f, fi, err := base.OpenNonBlocking(reg)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		b := make([]byte, 8)
		if n, err := f.Read(b); err != nil || string(b[:n]) != "data" || fi.Size() != 4 {
			t.Errorf("%s: read %q, %v, size %d; want data, size 4", reg, b[:n], err, fi.Size())
		}
	})
	if sock != "" {
		if _, _, err := base.OpenNonBlocking(sock); !errors.Is(err, syscall.ENXIO) {
			t.Errorf("%s: %v; want ENXIO", sock, err)
		}
	}
	if _, _, err := base.OpenNonBlocking(filepath.Join(dir, "gone")); !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "gone") {
		t.Errorf("missing file: %v; want ENOENT naming it", err)
	}
}
