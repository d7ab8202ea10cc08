//go:build unix

package manifest

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ldbcompat/ldbcompat/internal/base"
	"github.com/ldbcompat/ldbcompat/internal/manifest/manifesttest"
)

// readWithin runs Read on dir and fails the test when it has not returned
// after 10 s: an open of a named pipe that blocks would hang the suite.
func readWithin(t *testing.T, dir string) error {
	t.Helper()
	errc := make(chan error, 1)
	go func() { _, err := Read(dir); errc <- err }()
	select {
	case err := <-errc:
		return err
	case <-time.After(10 * time.Second):
		t.Fatalf("Read(%s): still blocked after 10 s", dir)
		return nil
	}
}

// TestSpecialFiles: a named pipe or a device as CURRENT or as the
// MANIFEST is refused at once, named for what it is; nothing is opened
// that blocks. Read opens each file once and checks the open descriptor,
// so a file replaced by a pipe after it was listed is this same case.
func TestSpecialFiles(t *testing.T) {
	for _, tc := range []struct {
		name, file, want string
		make             func(path string) error
	}{
		{"pipe as CURRENT", "CURRENT", "not a regular file but a named pipe", func(p string) error { return syscall.Mkfifo(p, 0o644) }},
		{"pipe as MANIFEST", "MANIFEST-000002", "not a regular file but a named pipe", func(p string) error { return syscall.Mkfifo(p, 0o644) }},
		{"device as CURRENT", "CURRENT", "not a regular file but a character device", func(p string) error { return os.Symlink("/dev/zero", p) }},
		{"device as MANIFEST", "MANIFEST-000002", "not a regular file but a character device", func(p string) error { return os.Symlink("/dev/zero", p) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := manifesttest.WriteDB(dir, 2); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(dir, tc.file)
			os.Remove(p)
			if err := tc.make(p); err != nil {
				t.Skipf("%s: %v", tc.name, err)
			}
			err := readWithin(t, dir)
			if !errors.Is(err, base.ErrNotRegular) || !strings.Contains(err.Error(), p+": "+tc.want) {
				t.Errorf("%v; want %s: %s", err, p, tc.want)
			}
		})
	}
}

// TestBoundedRead: a file whose size says less than it reads (those of
// /proc say 0) is read no further than the limit.
func TestBoundedRead(t *testing.T) {
	const path = "/proc/self/maps" // always more than 16 bytes
	fi, err := os.Stat(path)
	if err != nil || fi.Size() != 0 {
		t.Skipf("no /proc of files sized 0 here: %v", err)
	}
	_, err = readRegular(path, base.CurrentFile, 16)
	if err == nil || err.Error() != path+": offset 16: more than 16 bytes read: longer than the 16 it may hold" {
		t.Errorf("%v; want the read cut at 16 bytes", err)
	}
}
