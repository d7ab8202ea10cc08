package verify_test

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/internal/faultfs"
	"github.com/ldbcompat/ldbcompat/internal/filtercheck"
	"github.com/ldbcompat/ldbcompat/internal/manifest/manifesttest"
	"github.com/ldbcompat/ldbcompat/internal/table"
	"github.com/ldbcompat/ldbcompat/internal/table/tabletest"
	"github.com/ldbcompat/ldbcompat/internal/verify"
)

// failingFile is a table file whose reads of the bytes from..to fail with
// errno, as a failing device's do through pread(2). It is no *os.File, so
// verify reads it into memory rather than mapping it.
type failingFile struct {
	*os.File
	from, to int64
	errno    syscall.Errno
}

func (f *failingFile) ReadAt(p []byte, off int64) (int, error) {
	if off < f.to && off+int64(len(p)) > f.from {
		return 0, &fs.PathError{Op: "read", Path: f.Name(), Err: f.errno}
	}
	return f.File.ReadAt(p, off)
}

// TestDeviceErrors: a table the storage fails to read is unreadable with
// the device's error and upstream's status for it (util/env_posix.cc's
// PosixError: "IO error: FILE: <strerror>"), wherever the failure is: in
// a data block, or in the filter block, which upstream, reading through
// its memory map, dies on (through pread(2) it would ignore the filter).
// An error that is no device's (ENOENT, the file gone) is not reported
// as one.
func TestDeviceErrors(t *testing.T) {
	file := tabletest.Build(entries(), tabletest.Options{BlockSize: 300, Policy: bloom.NewPolicy(10)})
	p := filepath.Join(t.TempDir(), "000005.ldb")
	if err := os.WriteFile(p, file, 0o644); err != nil {
		t.Fatal(err)
	}
	tb, err := table.Open(p, strings.NewReader(string(file)), int64(len(file)))
	if err != nil {
		t.Fatal(err)
	}
	fh, _ := tb.FilterHandle()
	data := tb.Index()[1].Handle
	for _, tc := range []struct {
		name     string
		from, to uint64
		errno    syscall.Errno
		verdict  verify.Verdict
		device   bool
	}{
		{"EIO in a data block", data.Offset, data.End(), syscall.EIO, verify.Unreadable, true},
		{"EIO in the filter block", fh.Offset, fh.End(), syscall.EIO, verify.Unreadable, true},
		{"ENOENT in the filter block", fh.Offset, fh.End(), syscall.ENOENT, verify.FilterUnusable, false},
		{"ENOENT in a data block", data.Offset, data.End(), syscall.ENOENT, verify.Unreadable, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := verify.Options{Open: func(path string) (verify.File, error) {
				f, err := os.Open(path)
				if err != nil {
					return nil, err
				}
				return &failingFile{File: f, from: int64(tc.from), to: int64(tc.to), errno: tc.errno}, nil
			}}
			r := verify.Examine(&verify.Target{Path: p}, o)
			if r.Verdict != tc.verdict || r.Device != tc.device {
				t.Fatalf("%s, device %v: %s; want %s, device %v", r.Verdict, r.Device, r.Detail(), tc.verdict, tc.device)
			}
			if tc.device {
				want := "IO error: " + p + ": Input/output error"
				if r.Status != want || !strings.Contains(r.Detail(), "the storage cannot read it ("+want+")") {
					t.Errorf("status %q, detail %s; want %q", r.Status, r.Detail(), want)
				}
			}
		})
	}
}

// TestNotRegular: a path named like a table that is no regular file is
// unreadable, saying what it is, as upstream fails to read it.
func TestNotRegular(t *testing.T) {
	dir := t.TempDir()
	pipe := filepath.Join(dir, "000005.ldb")
	if err := syscall.Mkfifo(pipe, 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	sock := filepath.Join(dir, "000006.ldb")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Skipf("no unix sockets here: %v", err)
	}
	defer l.Close()
	sub := filepath.Join(dir, "000007.ldb")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	for path, what := range map[string]string{pipe: "a named pipe", sock: "a socket", sub: "a directory", "/dev/null": "a character device"} {
		r := verify.Examine(&verify.Target{Path: path}, verify.Options{})
		if r.Verdict != verify.Unreadable || r.Err == nil || r.Err.Error() != path+": not a regular file but "+what {
			t.Errorf("%s: %s: %v; want unreadable, not a regular file but %s", path, r.Verdict, r.Err, what)
		}
		// No errno: upstream's status is not known.
		if want := "upstream cannot open it: (no status); " + r.Err.Error(); r.Detail() != want {
			t.Errorf("%s: %q, want %q", path, r.Detail(), want)
		}
	}
}

// TestVanished: a live table whose file is gone when it is read, and
// which the MANIFEST, read again, no longer lists, was deleted by LevelDB
// after a compaction: skipped, not unreadable. Still listed, it is
// unreadable, as upstream finds it missing.
func TestVanished(t *testing.T) {
	file := tabletest.Build(entries(), tabletest.Options{BlockSize: 300, Policy: bloom.NewPolicy(10)})
	for _, relisted := range []bool{false, true} {
		dir := t.TempDir()
		p := filepath.Join(dir, "000005.ldb")
		if err := os.WriteFile(p, file, 0o644); err != nil {
			t.Fatal(err)
		}
		tab := manifesttest.Table{Level: 1, Number: 5, Size: uint64(len(file))}
		if err := manifesttest.WriteDB(dir, 2, tab); err != nil {
			t.Fatal(err)
		}
		items := verify.Resolve([]string{dir})
		if len(items) != 2 || items[1].Table == nil || items[1].Table.Live == nil {
			t.Fatalf("items %+v; want the database and its live table", items)
		}
		// A compaction: the table deleted, a new MANIFEST (or the same
		// one) written.
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
		var after []manifesttest.Table
		if relisted {
			after = []manifesttest.Table{tab}
		}
		if err := manifesttest.WriteDB(dir, 3, after...); err != nil {
			t.Fatal(err)
		}
		r := verify.Examine(items[1].Table, verify.Options{})
		switch {
		case !relisted && (r.Verdict != "" || r.Skipped != "LevelDB deleted it while it was being checked: no longer a live table of MANIFEST-000003"):
			t.Errorf("deleted and no longer listed: %q %q", r.Verdict, r.Skipped)
		case relisted && (r.Verdict != verify.Unreadable || r.Status != "NotFound: "+p+": No such file or directory"):
			t.Errorf("deleted and still listed: %q %q", r.Verdict, r.Status)
		}
	}
	// The MANIFEST of an application's comparator is read again with it.
	{
		dir := t.TempDir()
		p := filepath.Join(dir, "000005.ldb")
		if err := os.WriteFile(p, file, 0o644); err != nil {
			t.Fatal(err)
		}
		write := func(number uint64, live bool) {
			var w manifesttest.Log
			w.Add(new(manifesttest.Edit).Comparator("app.Reverse").B)
			e := new(manifesttest.Edit).Counters(number+1, number+10, 1000)
			if live {
				e.NewFile(1, 5, uint64(len(file)), manifesttest.InternalKey("z", 2), manifesttest.InternalKey("a", 1))
			}
			w.Add(e.B)
			name := fmt.Sprintf("MANIFEST-%06d", number)
			if err := os.WriteFile(filepath.Join(dir, name), w.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "CURRENT"), []byte(name+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		write(2, true)
		items := verify.Resolve([]string{dir})
		if len(items) != 2 || items[1].Table == nil || items[1].Table.Live == nil {
			t.Fatalf("items %+v; want the database and its live table", items)
		}
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
		write(3, false)
		if r := verify.Examine(items[1].Table, verify.Options{}); r.Verdict != "" || !strings.Contains(r.Skipped, "LevelDB deleted it") {
			t.Errorf("an application's database, table deleted: %q %q", r.Verdict, r.Skipped)
		}
	}
	// A MANIFEST that cannot be read again says nothing: unreadable.
	dir := t.TempDir()
	p := filepath.Join(dir, "000005.ldb")
	if err := os.WriteFile(p, file, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := manifesttest.WriteDB(dir, 2, manifesttest.Table{Level: 1, Number: 5, Size: uint64(len(file))}); err != nil {
		t.Fatal(err)
	}
	items := verify.Resolve([]string{dir})
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "CURRENT"), []byte("MANIFEST-000099\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := verify.Examine(items[1].Table, verify.Options{}); r.Verdict != verify.Unreadable || r.Status != "NotFound: "+p+": No such file or directory" {
		t.Errorf("deleted, MANIFEST unreadable: %q %q", r.Verdict, r.Status)
	}
}

// plainFile is a table file that is no *os.File: verify reads it into
// memory instead of mapping it.
type plainFile struct{ *os.File }

// TestMemoryReuse: verify reads one table after another into the same
// memory (its map released, or its buffers reused): what a report keeps,
// the first key a filter rejects, must not change when the next table is
// read, whether the file was mapped or read; and no map of a file is left
// once its check is done.
func TestMemoryReuse(t *testing.T) {
	plain := tabletest.Build(entries(), tabletest.Options{BlockSize: 300})
	blocks := blocksOf(t, plain)
	zeroed := filtercheck.Build(blocks, bloom.NewPolicy(10))
	clear(zeroed[:10]) // the first filter's first bytes: keys of the first block rejected
	bad := withMeta(t, plain, []metaEntry{{name: bloom.PolicyName, contents: zeroed}}, false)
	var other []table.Entry
	for i := 0; i < 400; i++ {
		other = append(other, table.Entry{Key: table.InternalKey{UserKey: []byte(fmt.Sprintf("other%04d", i)), Seq: 1, Kind: table.KindValue}, Value: []byte("w")})
	}
	good := tabletest.Build(other, tabletest.Options{BlockSize: 300, Policy: bloom.NewPolicy(10)})
	dir := t.TempDir()
	badPath, goodPath := filepath.Join(dir, "000005.ldb"), filepath.Join(dir, "000006.ldb")
	for p, data := range map[string][]byte{badPath: bad, goodPath: good} {
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	read := verify.Options{Open: openAs(func(f *os.File) verify.File { return plainFile{f} })}
	// In turn, so that a table read into memory comes after a mapped one
	// and the other way round.
	for _, c := range []struct {
		name string
		o    verify.Options
	}{{"mapped", verify.Options{}}, {"read", read}, {"mapped again", verify.Options{}}, {"read again", read}} {
		name, o := c.name, c.o
		r := verify.Examine(&verify.Target{Path: badPath}, o)
		if r.Verdict != verify.Mismatch || r.FalseNegatives == nil || r.FalseNegatives.Rejected == 0 {
			t.Fatalf("%s: %s: %s; want a mismatch rejecting keys", name, r.Verdict, r.Detail())
		}
		first := bytes.Clone(r.FalseNegatives.FirstKey)
		for i := 0; i < 4; i++ {
			if g := verify.Examine(&verify.Target{Path: goodPath}, o); g.Verdict != verify.OK {
				t.Fatalf("%s: %s", name, g.Detail())
			}
		}
		if !bytes.Equal(r.FalseNegatives.FirstKey, first) || !bytes.Equal(first, blocks[0].Keys[0]) {
			t.Errorf("%s: the first rejected key is %q after other tables were read, %q before; want %q", name, r.FalseNegatives.FirstKey, first, blocks[0].Keys[0])
		}
	}
	if maps, err := os.ReadFile("/proc/self/maps"); err == nil && bytes.Contains(maps, []byte(dir)) {
		t.Errorf("a table file is still mapped once checked:\n%s", maps)
	}
}

// TestUnreadablePaths: a directory a search cannot list is an error of
// its own, the rest of the tree still searched; a file named directly
// that cannot be opened to read its last 8 bytes is examined, so that the
// error is reported (faultfs serves the tree, failing as told; nothing is
// read through a memory map here).
func TestUnreadablePaths(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped with -short: mounts a FUSE file system")
	}
	backing := t.TempDir()
	copyFixtureTo(t, "b10-bs4096-snappy", filepath.Join(backing, "tree", "a", "db"))
	writeTo(t, filepath.Join(backing, "tree", "b", "c", "x"), []byte("x"))
	writeTo(t, filepath.Join(backing, "named"), []byte("some file, whose last 8 bytes are not read"))
	f := faultfs.MountT(t, backing)
	f.Set("tree/b", faultfs.Fault{ListErr: syscall.EACCES})
	f.Set("named", faultfs.Fault{OpenErr: syscall.EACCES})
	items := verify.Resolve([]string{filepath.Join(f.Dir, "tree"), filepath.Join(f.Dir, "named")})
	var errs, dbs int
	for _, it := range items {
		switch {
		case it.PathErr != nil:
			errs++
			if want := "cannot search " + filepath.Join(f.Dir, "tree", "b") + " for databases: "; !strings.HasPrefix(it.PathErr.Error(), want) || !errors.Is(it.PathErr, syscall.EACCES) {
				t.Errorf("path error %v; want %q and permission denied", it.PathErr, want)
			}
		case it.Database != nil:
			dbs++
		}
	}
	if errs != 1 || dbs != 1 {
		t.Errorf("%d path errors, %d databases; want 1 of each: %+v", errs, dbs, items)
	}
	last := items[len(items)-1]
	if last.Table == nil || last.Table.NotTable {
		t.Fatalf("the file named: %+v; want examined", last)
	}
	if r := verify.Examine(last.Table, verify.Options{}); r.Verdict != verify.Unreadable || r.Status != "IO error: "+last.Path+": Permission denied" {
		t.Errorf("the file named: %s %q", r.Verdict, r.Status)
	}
}

// changingFile is a table file whose size, as Stat tells it, grows by a
// byte at every call after the first: a file written while it is read.
type changingFile struct {
	*os.File
	stats int
}

type grownInfo struct {
	fs.FileInfo
	by int64
}

func (g grownInfo) Size() int64 { return g.FileInfo.Size() + g.by }

func (f *changingFile) Stat() (fs.FileInfo, error) {
	fi, err := f.File.Stat()
	if err != nil {
		return nil, err
	}
	f.stats++
	return grownInfo{fi, int64(f.stats - 1)}, nil
}

// TestChangedWhileRead: a table whose file changes while it is read is
// unchecked, saying so; when reading it failed too (with paranoid checks,
// a data block's checksum), with that error first.
func TestChangedWhileRead(t *testing.T) {
	good := tabletest.Build(entries(), tabletest.Options{BlockSize: 300, Policy: bloom.NewPolicy(10)})
	bad := bytes.Clone(good)
	bad[100] ^= 0x40 // a data block's checksum fails
	for name, file := range map[string][]byte{"readable": good, "damaged": bad} {
		p := filepath.Join(t.TempDir(), "000005.ldb")
		if err := os.WriteFile(p, file, 0o644); err != nil {
			t.Fatal(err)
		}
		o := verify.Options{Open: openAs(func(f *os.File) verify.File { return &changingFile{File: f} }), Paranoid: true}
		r := verify.Examine(&verify.Target{Path: p}, o)
		msg := fmt.Sprint(r.Err)
		if r.Verdict != verify.Unchecked || !strings.Contains(msg, p+" changed while it was read") {
			t.Errorf("%s: %s: %s; want unchecked, changed while read", name, r.Verdict, msg)
		}
		if damaged := name == "damaged"; strings.HasPrefix(msg, p+" changed") == damaged || strings.Contains(msg, "%!") ||
			damaged != strings.Contains(msg, "block checksum mismatch") {
			t.Errorf("%s: %q; want the read's error first when there is one", name, msg)
		}
	}
}

// TestRunManyWorkers: with more tables than twice the workers, the tables
// ahead of the one emitted wait for it, and every report comes, in order
// (GOMAXPROCS 4 gives 4 workers, whatever the machine).
func TestRunManyWorkers(t *testing.T) {
	file := tabletest.Build(entries(), tabletest.Options{BlockSize: 300, Policy: bloom.NewPolicy(10)})
	dir := t.TempDir()
	var paths []string
	for i := 0; i < 13; i++ {
		p := filepath.Join(dir, fmt.Sprintf("%06d.ldb", i+5))
		if err := os.WriteFile(p, file, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	done := make(chan *verify.RunResult, 1)
	go func() { done <- verify.Run(paths, verify.Options{}) }()
	select {
	case r := <-done:
		for i, rep := range r.Reports {
			if rep == nil || rep.Path != paths[i] || rep.Verdict != verify.OK {
				t.Errorf("report %d: %+v; want %s ok", i, rep, paths[i])
			}
		}
	case <-time.After(time.Minute):
		t.Fatal("verify of 13 tables did not end in a minute")
	}
}

// TestDamageKeyOutlivesMap: the key of the entry a flipped bit lies in is
// kept by the report after its file's map is released (and other tables
// read): the first data block's first entry, its value's byte flipped.
func TestDamageKeyOutlivesMap(t *testing.T) {
	es := entries()
	file := tabletest.Build(es, tabletest.Options{BlockSize: 300, Policy: bloom.NewPolicy(10)})
	// Entry 0 of block 0: shared 0, non-shared 17 and value length 5
	// (one byte each), its 17-byte internal key, then its value.
	file[3+17+2] ^= 0x04
	good := tabletest.Build(es, tabletest.Options{BlockSize: 300, Policy: bloom.NewPolicy(10)})
	dir := t.TempDir()
	p, q := filepath.Join(dir, "000005.ldb"), filepath.Join(dir, "000006.ldb")
	writeTo(t, p, file)
	writeTo(t, q, good)
	r := verify.Examine(&verify.Target{Path: p}, verify.Options{})
	for i := 0; i < 3; i++ {
		verify.Examine(&verify.Target{Path: q}, verify.Options{})
	}
	if r.Damage == nil || len(r.Damage.Blocks) != 1 || r.Damage.Blocks[0].Site == nil {
		t.Fatalf("%s: %s; want one data block explained by a flipped bit", r.Verdict, r.Detail())
	}
	s := r.Damage.Blocks[0].Site
	want := es[0].Key.UserKey
	if s.Entry != 0 || s.Offset != 22 || len(s.Key) != len(want)+8 || !bytes.Equal(s.Key[:len(want)], want) {
		t.Errorf("flipped bit in entry %d at offset %d, key %q; want entry 0 at offset 22, key %q", s.Entry, s.Offset, s.Key, want)
	}
}
