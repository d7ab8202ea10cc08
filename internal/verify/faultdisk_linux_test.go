package verify_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/internal/faultfs"
	"github.com/ldbcompat/ldbcompat/internal/table"
	"github.com/ldbcompat/ldbcompat/internal/table/tabletest"
	"github.com/ldbcompat/ldbcompat/internal/verify"
)

// TestMain examines one table and prints its verdict and error when the
// test binary is started by examineChild: a table read from a FUSE mount
// through a memory map must not be read in the process serving the mount
// (package faultfs).
func TestMain(m *testing.M) {
	if p := os.Getenv("LDBCOMPAT_TEST_EXAMINE"); p != "" {
		r := verify.Examine(&verify.Target{Path: p}, verify.Options{})
		fmt.Printf("%s\n%v\n", r.Verdict, r.Err)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// examineChild examines the table at path in a child process (this test
// binary, through TestMain) and returns the verdict and the error's text.
func examineChild(t *testing.T, path string) (verdict, msg string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0])
	cmd.Env = append(os.Environ(), "LDBCOMPAT_TEST_EXAMINE="+path)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := cmd.Run(); err != nil {
		t.Fatalf("examining %s in a child process: %v\n%s%s", path, err, &o, &e)
	}
	verdict, msg, _ = strings.Cut(strings.TrimSpace(o.String()), "\n")
	return verdict, msg
}

// TestFailingExt4 reads a table of 3 MB from an ext4 file system whose
// device fails to read one 4 KiB block of it: the file system is an image
// on a loop device, the image a file of a faultfs mount answering EIO for
// that block. The report must name the block itself, from first
// principles: unreadable, the fault at an offset in its 4 KiB and a
// read(2) of its page failing. Needs root, loop devices, e2fsprogs and
// FUSE; skipped where one is missing.
func TestFailingExt4(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped with -short: mounts file systems")
	}
	if os.Geteuid() != 0 {
		t.Skip("skipped: needs root, to attach a loop device and mount ext4")
	}
	if _, err := os.Stat("/dev/loop-control"); err != nil {
		t.Skipf("skipped: no loop devices: %v", err)
	}
	for _, tool := range []string{"mkfs.ext4", "filefrag", "losetup", "mount", "umount"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("skipped: %v", err)
		}
	}
	sh := func(name string, args ...string) string {
		t.Helper()
		out, err := exec.Command(name, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return string(out)
	}

	// The table: 3 MB of 4 KiB blocks, so that its first 2 MB make one
	// 2 MB page of the page cache.
	var es []table.Entry
	for i := 0; i < 33000; i++ {
		k := table.InternalKey{UserKey: fmt.Appendf(nil, "key%08d", i), Seq: uint64(i + 1), Kind: table.KindValue}
		es = append(es, table.Entry{Key: k, Value: []byte(strings.Repeat(strconv.Itoa(i%10), 80))})
	}
	file := tabletest.Build(es, tabletest.Options{Policy: bloom.NewPolicy(10)})
	if len(file) < 3<<20-(256<<10) {
		t.Fatalf("the table is %d bytes, want about 3 MB", len(file))
	}

	backing := t.TempDir()
	img := filepath.Join(backing, "img")
	sh("truncate", "-s", "16M", img)
	sh("mkfs.ext4", "-q", "-F", "-b", "4096", img)
	rw := t.TempDir()
	if out, err := exec.Command("mount", "-o", "loop", img, rw).CombinedOutput(); err != nil {
		// A container without the privilege, for one.
		t.Skipf("skipped: cannot mount an ext4 image on a loop device here: %v\n%s", err, out)
	}
	name := filepath.Join(rw, "000005.ldb")
	if err := os.WriteFile(name, file, 0o644); err != nil {
		sh("umount", rw)
		t.Fatal(err)
	}
	sh("sync")
	frag := sh("filefrag", "-v", "-b4096", name)
	sh("umount", rw)

	// The block that fails: the table's 4 KiB block at 1.2 MB, inside the
	// first 2 MB; where the image holds it, from filefrag's extents
	// ("N: logical..logical: physical..physical: length:").
	const bad = 300
	var phys int64 = -1
	for _, m := range regexp.MustCompile(`(?m)^\s*\d+:\s+(\d+)\.\.\s*(\d+):\s+(\d+)\.\.\s*\d+:`).FindAllStringSubmatch(frag, -1) {
		lo, _ := strconv.ParseInt(m[1], 10, 64)
		hi, _ := strconv.ParseInt(m[2], 10, 64)
		p, _ := strconv.ParseInt(m[3], 10, 64)
		if lo <= bad && bad <= hi {
			phys = p + bad - lo
		}
	}
	if phys < 0 {
		t.Fatalf("block %d of the table is in no extent of filefrag's:\n%s", bad, frag)
	}

	f := faultfs.MountT(t, backing)
	f.Set("img", faultfs.Fault{ReadErr: syscall.EIO, ReadErrFrom: phys * 4096, ReadErrTo: (phys + 1) * 4096})
	loop := strings.TrimSpace(sh("losetup", "-f", "--show", "-r", filepath.Join(f.Dir, "img")))
	t.Cleanup(func() { exec.Command("losetup", "-d", loop).Run() })
	ro := t.TempDir()
	sh("mount", "-o", "ro,noload", loop, ro)
	t.Cleanup(func() { exec.Command("umount", ro).Run() })

	path := filepath.Join(ro, "000005.ldb")
	from, to := int64(bad*4096), int64(bad*4096+4096)
	want := fmt.Sprintf("a read(2) of the page at offset %d fails: input/output error", from)
	for run := 0; run < 2; run++ {
		verdict, msg := examineChild(t, path)
		m := regexp.MustCompile(`: offset (\d+): reading the memory-mapped file faulted`).FindStringSubmatch(msg)
		var off int64 = -1
		if m != nil {
			off, _ = strconv.ParseInt(m[1], 10, 64)
		}
		if verdict != string(verify.Unreadable) || off < from || off >= to || !strings.Contains(msg, want) {
			t.Errorf("run %d: want unreadable, the fault at an offset in %d..%d and %q; got %s: %s", run, from, to, want, verdict, msg)
		}
	}
	if w := f.Writes(); len(w) > 0 {
		t.Errorf("requests that would write to the image: %q", w)
	}
}
