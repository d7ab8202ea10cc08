//go:build unix

package manifest

import (
	"bytes"
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
		{"device as CURRENT", "CURRENT", "not a regular file but a character device", mkzero},
		{"device as MANIFEST", "MANIFEST-000002", "not a regular file but a character device", mkzero},
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

// mkzero makes a character device at p, as /dev/zero is (root only).
func mkzero(p string) error { return syscall.Mknod(p, syscall.S_IFCHR|0o644, 1<<8|5) }

// errSkip is returned by a case that cannot be made here.
var errSkip = errors.New("skip")

// TestOutside: CURRENT or the MANIFEST it names outside the database
// directory, by a name with "..", or a symbolic link out of it, is
// refused without reading it (a /proc/kmsg there would block the read
// forever); a link that stays inside is followed.
func TestOutside(t *testing.T) {
	for _, tc := range []struct {
		name string
		// make changes the database in dir, beside which other is a
		// directory holding a good database too.
		make func(dir, other string) error
		want string // in the error; "" when Read succeeds
	}{
		{"CURRENT names ../", func(dir, other string) error {
			return os.WriteFile(filepath.Join(dir, "CURRENT"), []byte("../other/MANIFEST-000002\n"), 0o644)
		}, `CURRENT names "../other/MANIFEST-000002", which is OTHER/MANIFEST-000002, outside the database directory: upstream would open it; not read`},
		{"CURRENT names /proc/kmsg", func(dir, other string) error {
			if _, err := os.Lstat("/proc/kmsg"); err != nil {
				return errSkip
			}
			return os.WriteFile(filepath.Join(dir, "CURRENT"), []byte("../../../../../../../../../../proc/kmsg\n"), 0o644)
		}, `which is /proc/kmsg, outside the database directory: upstream would open it; not read`},
		{"MANIFEST links out", func(dir, other string) error {
			m := filepath.Join(dir, "MANIFEST-000002")
			os.Remove(m)
			return os.Symlink(filepath.Join(other, "MANIFEST-000002"), m)
		}, `which is OTHER/MANIFEST-000002, outside the database directory`},
		{"CURRENT links out", func(dir, other string) error {
			c := filepath.Join(dir, "CURRENT")
			os.Remove(c)
			return os.Symlink("../other/CURRENT", c)
		}, `CURRENT: offset 0: a symbolic link to OTHER/CURRENT, outside the database directory: upstream would read it; not read: outside the database directory`},
		{"MANIFEST links inside", func(dir, other string) error {
			m := filepath.Join(dir, "MANIFEST-000002")
			if err := os.Rename(m, filepath.Join(dir, "real")); err != nil {
				return err
			}
			return os.Symlink("real", m)
		}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			dir, other := filepath.Join(root, "db"), filepath.Join(root, "other")
			for _, d := range []string{dir, other} {
				if err := os.Mkdir(d, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := manifesttest.WriteDB(d, 2); err != nil {
					t.Fatal(err)
				}
			}
			if err := tc.make(dir, other); err == errSkip {
				t.Skip("no /proc/kmsg here")
			} else if err != nil {
				t.Fatal(err)
			}
			err := readWithin(t, dir)
			realOther, _ := filepath.EvalSymlinks(other)
			want := strings.ReplaceAll(tc.want, "OTHER", realOther)
			switch {
			case want == "" && err != nil:
				t.Errorf("%v; want the database read", err)
			case want != "" && (!errors.Is(err, ErrOutside) || !strings.Contains(err.Error(), want)):
				t.Errorf("%v; want ErrOutside and %s", err, want)
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
	// Under qemu-user the open descriptor is a copy qemu makes, with its
	// size: then the size alone refuses it.
	_, err = readRegular(path, base.CurrentFile, 16)
	if err == nil || !strings.HasPrefix(err.Error(), path+": offset 16: ") || !strings.HasSuffix(err.Error(), ": longer than the 16 it may hold") {
		t.Errorf("%v; want the read cut at 16 bytes", err)
	}
}

// FuzzRead reads a database directory made from the input: CURRENT
// (the input up to its first 0xff byte, or "MANIFEST-000002\n" when it
// has none) and the MANIFEST (the rest), either of which a first byte
// of 1 or 2 makes a named pipe, 3 a link to /dev/zero or out of the
// directory. Read ends at once, without a panic, reading nothing outside
// the directory.
func FuzzRead(f *testing.F) {
	var w manifesttest.Log
	w.Add(new(manifesttest.Edit).Comparator(BytewiseComparator).B)
	w.Add(new(manifesttest.Edit).Counters(3, 1000, 100).NewFile(1, 5, 100, manifesttest.InternalKey("a", 1), manifesttest.InternalKey("z", 2)).B)
	f.Add(byte(0), append([]byte("MANIFEST-000002\n\xff"), w.Bytes()...))
	f.Add(byte(0), append([]byte("../x/MANIFEST-000002\n\xff"), w.Bytes()...))
	f.Add(byte(1), w.Bytes())
	f.Add(byte(2), w.Bytes())
	f.Add(byte(3), w.Bytes())
	f.Add(byte(4), w.Bytes())
	f.Fuzz(func(t *testing.T, how byte, in []byte) {
		root := t.TempDir()
		dir := filepath.Join(root, "db")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		current, m := []byte("MANIFEST-000002\n"), in
		if i := bytes.IndexByte(in, 0xff); i >= 0 {
			current, m = in[:i], in[i+1:]
		}
		cur, man := filepath.Join(dir, "CURRENT"), filepath.Join(dir, "MANIFEST-000002")
		write := func(p string, b []byte) {
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		write(filepath.Join(root, "outside"), m)
		switch how % 6 {
		case 1:
			syscall.Mkfifo(cur, 0o644)
			write(man, m)
		case 2:
			write(cur, current)
			syscall.Mkfifo(man, 0o644)
		case 3:
			write(cur, current)
			os.Symlink("/dev/zero", man)
		case 4:
			write(cur, current)
			os.Symlink("../outside", man)
		default:
			write(cur, current)
			write(man, m)
		}
		err := readWithin(t, dir)
		if how%6 == 4 && err == nil && bytes.Equal(current, []byte("MANIFEST-000002\n")) {
			t.Fatalf("a MANIFEST linked out of the directory was read")
		}
	})
}

// TestReadThroughLinkedDir: a database directory reached through a
// symbolic link is read as upstream reads it; its files lead into the
// directory the link resolves to, which is not outside it.
func TestReadThroughLinkedDir(t *testing.T) {
	root := t.TempDir()
	dir, link := filepath.Join(root, "db"), filepath.Join(root, "link")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := manifesttest.WriteDB(dir, 2); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("db", link); err != nil {
		t.Fatal(err)
	}
	if err := readWithin(t, link); err != nil {
		t.Errorf("%v; want the database read through the link", err)
	}
}

// TestBoundedReadExact: a file of exactly the limit is read whole, one
// byte more is refused.
func TestBoundedReadExact(t *testing.T) {
	path := filepath.Join(t.TempDir(), "CURRENT")
	for _, n := range []int{16, 17} {
		content := bytes.Repeat([]byte{'x'}, n)
		if err := os.WriteFile(path, content, 0o644); err != nil {
			t.Fatal(err)
		}
		b, err := readRegular(path, base.CurrentFile, 16)
		switch {
		case n == 16 && (err != nil || !bytes.Equal(b, content)):
			t.Errorf("%d bytes: %q, %v; want them read", n, b, err)
		case n == 17 && err == nil:
			t.Errorf("%d bytes: read; want longer than the 16 it may hold", n)
		}
	}
}
