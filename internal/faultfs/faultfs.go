// Package faultfs is a FUSE loopback file system that injects storage
// faults (Fault), for tests of how ldbcompat reads a database on a failing
// disk. Every request that would change something is refused with EROFS and
// counted. Entries and attributes are never cached, and each open drops the
// file's cached pages, so a fault set between two opens is seen by the
// second, through a memory map too (as SIGBUS).
package faultfs

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// Fault is what one file answers. The zero Fault is a healthy file.
type Fault struct {
	// OpenErr, when not 0, is the error every open gets (syscall.EACCES).
	OpenErr syscall.Errno
	// ReadErr, when not 0, fails every read that touches [ReadErrFrom,
	// ReadErrTo) (to the end when ReadErrTo is 0); the kernel reads whole pages.
	ReadErr     syscall.Errno
	ReadErrFrom int64
	ReadErrTo   int64
	// ShortReads, when above 0, is the most bytes a read returns.
	ShortReads int
	// ShrinkAfter, when above 0, cuts the file to ShrinkTo bytes once that
	// many reads of it have been served.
	ShrinkAfter int
	ShrinkTo    int64
	// ListErr, when not 0, is the error every listing of a directory gets.
	ListErr syscall.Errno
	// Gone makes lookups, stats and opens of the file find nothing (ENOENT),
	// while the listing still names it.
	Gone bool
}

// FS is a mounted fault-injecting loopback file system.
type FS struct {
	// Dir is the mount point; Backing the directory it serves.
	Dir, Backing string

	server *fuse.Server
	mu     sync.Mutex
	faults map[string]Fault // by path relative to Backing
	reads  map[string]int   // reads served, by path
	writes []string         // refused requests that would change something
}

// Mount serves backing at the empty directory mnt. It needs /dev/fuse and
// the right to mount (root, or fusermount3 on the PATH).
func Mount(backing, mnt string) (*FS, error) {
	backing, err := filepath.Abs(backing)
	if err != nil {
		return nil, fmt.Errorf("faultfs: %w", err)
	}
	f := &FS{Dir: mnt, Backing: backing, faults: map[string]Fault{}, reads: map[string]int{}}
	lb, err := fs.NewLoopbackRoot(backing)
	if err != nil {
		return nil, fmt.Errorf("faultfs: %w", err)
	}
	rootNode := &node{LoopbackNode: lb.(*fs.LoopbackNode), fs: f}
	zero := time.Duration(0)
	opts := &fs.Options{
		EntryTimeout:    &zero,
		AttrTimeout:     &zero,
		NegativeTimeout: &zero,
		MountOptions: fuse.MountOptions{
			FsName:      "faultfs",
			Name:        "faultfs",
			DirectMount: os.Geteuid() == 0,
			// Reads arrive one page fault or read(2) at a time.
			MaxReadAhead: 4096,
		},
	}
	server, err := fs.Mount(mnt, rootNode, opts)
	if err != nil {
		return nil, fmt.Errorf("faultfs: mount %s at %s: %w", backing, mnt, err)
	}
	f.server = server
	return f, nil
}

// Unmount unmounts the file system, retrying while it is busy.
func (f *FS) Unmount() error {
	var err error
	for range 50 {
		if err = f.server.Unmount(); err == nil {
			return nil
		}
		runtime.GC() // finalizers close files a test left open
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("faultfs: unmount %s: %w", f.Dir, err)
}

// Set sets the fault of the file at rel (a path relative to the mount
// point; a zero Fault heals it) and forgets how often it was read.
func (f *FS) Set(rel string, ft Fault) {
	f.mu.Lock()
	defer f.mu.Unlock()
	rel = filepath.Clean(rel)
	f.faults[rel] = ft
	delete(f.reads, rel)
}

// Writes returns the requests that would have changed something, all
// refused, in the order they came.
func (f *FS) Writes() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.writes...)
}

// Reads returns how many reads of the file at rel were served since its
// fault was last set.
func (f *FS) Reads(rel string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.reads[filepath.Clean(rel)]
}

func (f *FS) fault(rel string) Fault {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.faults[rel]
}

// refuse records a request that would change something and refuses it.
func (f *FS) refuse(what string) syscall.Errno {
	f.mu.Lock()
	f.writes = append(f.writes, what)
	f.mu.Unlock()
	return syscall.EROFS
}

// node is a loopback inode whose files fail as their Fault says.
type node struct {
	*fs.LoopbackNode
	fs *FS
}

// WrapChild makes every node under the root a faulty one too.
func (n *node) WrapChild(_ context.Context, ops fs.InodeEmbedder) fs.InodeEmbedder {
	return &node{LoopbackNode: ops.(*fs.LoopbackNode), fs: n.fs}
}

// rel is the node's path relative to the mount point.
func (n *node) rel() string { return filepath.Clean(n.Path(n.Root())) }

func (n *node) childRel(name string) string { return filepath.Join(n.rel(), name) }

// Lookup finds nothing where the child is Gone.
func (n *node) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	ft := n.fs.fault(n.childRel(name))
	if ft.Gone {
		return nil, syscall.ENOENT
	}
	ch, errno := n.LoopbackNode.Lookup(ctx, name, out)
	if errno == 0 {
		shrink(&out.Attr, n.fs, n.childRel(name))
	}
	return ch, errno
}

// Getattr gives the size a shrinking file has now.
func (n *node) Getattr(ctx context.Context, fh fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	rel := n.rel()
	if n.fs.fault(rel).Gone {
		return syscall.ENOENT
	}
	if errno := n.LoopbackNode.Getattr(ctx, nil, out); errno != 0 {
		return errno
	}
	shrink(&out.Attr, n.fs, rel)
	return 0
}

// shrink sets the size in a of a file whose fault has cut it short.
func shrink(a *fuse.Attr, f *FS, rel string) {
	ft := f.fault(rel)
	if ft.ShrinkAfter > 0 && f.Reads(rel) >= ft.ShrinkAfter && uint64(ft.ShrinkTo) < a.Size {
		a.Size = uint64(ft.ShrinkTo)
	}
}

// Open opens the backing file read-only, or refuses as the fault says; an
// open for writing is refused and counted.
func (n *node) Open(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	rel := n.rel()
	if flags&(syscall.O_WRONLY|syscall.O_RDWR|syscall.O_TRUNC|syscall.O_APPEND|syscall.O_CREAT) != 0 {
		return nil, 0, n.fs.refuse(fmt.Sprintf("open %s for writing (flags %#x)", rel, flags))
	}
	ft := n.fs.fault(rel)
	switch {
	case ft.Gone:
		return nil, 0, syscall.ENOENT
	case ft.OpenErr != 0:
		return nil, 0, ft.OpenErr
	}
	fd, err := syscall.Open(filepath.Join(n.fs.Backing, rel), syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, 0, fs.ToErrno(err)
	}
	return &file{fd: fd, fs: n.fs, rel: rel}, 0, 0
}

// OpendirHandle opens a directory, or refuses as its fault says.
func (n *node) OpendirHandle(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	if e := n.fs.fault(n.rel()).ListErr; e != 0 {
		return nil, 0, e
	}
	return n.LoopbackNode.OpendirHandle(ctx, flags)
}

// Readdir lists a directory, or refuses as its fault says.
func (n *node) Readdir(ctx context.Context) (fs.DirStream, syscall.Errno) {
	if e := n.fs.fault(n.rel()).ListErr; e != 0 {
		return nil, e
	}
	return n.LoopbackNode.Readdir(ctx)
}

// The requests that would change something, all refused and counted.

// Create is refused.
func (n *node) Create(_ context.Context, name string, _, _ uint32, _ *fuse.EntryOut) (*fs.Inode, fs.FileHandle, uint32, syscall.Errno) {
	return nil, nil, 0, n.fs.refuse("create " + n.childRel(name))
}

// Mkdir is refused.
func (n *node) Mkdir(_ context.Context, name string, _ uint32, _ *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	return nil, n.fs.refuse("mkdir " + n.childRel(name))
}

// Mknod is refused.
func (n *node) Mknod(_ context.Context, name string, _, _ uint32, _ *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	return nil, n.fs.refuse("mknod " + n.childRel(name))
}

// Rmdir is refused.
func (n *node) Rmdir(_ context.Context, name string) syscall.Errno {
	return n.fs.refuse("rmdir " + n.childRel(name))
}

// Unlink is refused.
func (n *node) Unlink(_ context.Context, name string) syscall.Errno {
	return n.fs.refuse("unlink " + n.childRel(name))
}

// Rename is refused.
func (n *node) Rename(_ context.Context, name string, _ fs.InodeEmbedder, newName string, _ uint32) syscall.Errno {
	return n.fs.refuse("rename " + n.childRel(name) + " to " + newName)
}

// Symlink is refused.
func (n *node) Symlink(_ context.Context, _, name string, _ *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	return nil, n.fs.refuse("symlink " + n.childRel(name))
}

// Link is refused.
func (n *node) Link(_ context.Context, _ fs.InodeEmbedder, name string, _ *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	return nil, n.fs.refuse("link " + n.childRel(name))
}

// Setattr is refused: it would change the mode, owner, times or size.
func (n *node) Setattr(_ context.Context, _ fs.FileHandle, _ *fuse.SetAttrIn, _ *fuse.AttrOut) syscall.Errno {
	return n.fs.refuse("setattr " + n.rel())
}

// Setxattr is refused.
func (n *node) Setxattr(_ context.Context, attr string, _ []byte, _ uint32) syscall.Errno {
	return n.fs.refuse("setxattr " + n.rel() + " " + attr)
}

// Removexattr is refused.
func (n *node) Removexattr(_ context.Context, attr string) syscall.Errno {
	return n.fs.refuse("removexattr " + n.rel() + " " + attr)
}

// CopyFileRange is refused: it writes the destination.
func (n *node) CopyFileRange(_ context.Context, _ fs.FileHandle, _ uint64, _ *fs.Inode, _ fs.FileHandle, _ uint64, _ uint64, _ uint64) (uint32, syscall.Errno) {
	return 0, n.fs.refuse("copy_file_range to " + n.rel())
}

// file is an open backing file that fails as its Fault says.
type file struct {
	fd  int
	fs  *FS
	rel string
}

// Read reads from the backing file, failing as the fault says.
func (h *file) Read(_ context.Context, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	ft := h.fs.fault(h.rel)
	if ft.Gone {
		return nil, syscall.ENOENT
	}
	n := len(dest)
	if ft.ReadErr != 0 && off+int64(n) > ft.ReadErrFrom && (ft.ReadErrTo == 0 || off < ft.ReadErrTo) {
		return nil, ft.ReadErr
	}
	if ft.ShortReads > 0 && n > ft.ShortReads {
		n = ft.ShortReads
	}
	if ft.ShrinkAfter > 0 && h.fs.Reads(h.rel) >= ft.ShrinkAfter {
		n = int(max(0, min(int64(n), ft.ShrinkTo-off)))
	}
	got, err := syscall.Pread(h.fd, dest[:n], off)
	if err != nil {
		return nil, fs.ToErrno(err)
	}
	h.fs.mu.Lock()
	h.fs.reads[h.rel]++
	h.fs.mu.Unlock()
	return fuse.ReadResultData(dest[:got]), 0
}

// Getattr is fstat of the backing file, with a shrunk file's size.
func (h *file) Getattr(_ context.Context, out *fuse.AttrOut) syscall.Errno {
	var st syscall.Stat_t
	if err := syscall.Fstat(h.fd, &st); err != nil {
		return fs.ToErrno(err)
	}
	out.FromStat(&st)
	shrink(&out.Attr, h.fs, h.rel)
	return 0
}

// Write is refused.
func (h *file) Write(_ context.Context, _ []byte, off int64) (uint32, syscall.Errno) {
	return 0, h.fs.refuse(fmt.Sprintf("write %s at %d", h.rel, off))
}

// Flush does nothing: the file was opened read-only.
func (h *file) Flush(context.Context) syscall.Errno { return 0 }

// Fsync does nothing: the file was opened read-only.
func (h *file) Fsync(context.Context, uint32) syscall.Errno { return 0 }

// Release closes the backing file.
func (h *file) Release(context.Context) syscall.Errno {
	if err := syscall.Close(h.fd); err != nil {
		return fs.ToErrno(err)
	}
	return 0
}

// Unavailable returns why this machine cannot mount a faultfs, or nil; a
// non-empty LDBCOMPAT_NO_FUSE says why not (compat-arm64 sets it under qemu).
func Unavailable() error {
	if runtime.GOOS != "linux" {
		return fmt.Errorf("FUSE mounts are tested on Linux only, not %s", runtime.GOOS)
	}
	if why := os.Getenv("LDBCOMPAT_NO_FUSE"); why != "" {
		return fmt.Errorf("LDBCOMPAT_NO_FUSE says: %s", why)
	}
	if _, err := os.Stat("/dev/fuse"); err != nil {
		return fmt.Errorf("no FUSE device: %w", err)
	}
	if os.Geteuid() != 0 {
		if _, err := exec.LookPath("fusermount3"); err != nil {
			return errors.New("not root, and no fusermount3 on the PATH")
		}
	}
	return nil
}

// MountT mounts a faultfs serving backing at a temporary directory for the
// test; where FUSE cannot be mounted it skips the test, or fails it with
// LDBCOMPAT_REQUIRE_FUSE=1. Read the mount through a memory map only in a
// child process: a page fault can block every P, the server's goroutines too.
func MountT(t testing.TB, backing string) *FS {
	t.Helper()
	why := Unavailable()
	var f *FS
	if why == nil {
		var err error
		if f, err = Mount(backing, t.TempDir()); err != nil {
			why = err
		}
	}
	if why != nil {
		if os.Getenv("LDBCOMPAT_REQUIRE_FUSE") == "1" {
			t.Fatalf("cannot mount a FUSE file system, and LDBCOMPAT_REQUIRE_FUSE=1: %v", why)
		}
		t.Skipf("skipped: cannot mount a FUSE file system here: %v", why)
	}
	t.Cleanup(func() {
		if err := f.Unmount(); err != nil {
			t.Error(err)
		}
	})
	return f
}
