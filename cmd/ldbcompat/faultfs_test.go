package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ldbcompat/ldbcompat/internal/faultfs"
	"github.com/ldbcompat/ldbcompat/internal/table"
	"github.com/ldbcompat/ldbcompat/internal/verify"
)

// TestMain runs the command itself when the test binary is started by
// runChild: code under test that reads a FUSE mount through a memory map
// must not run in the process serving that mount (package faultfs).
func TestMain(m *testing.M) {
	if os.Getenv("LDBCOMPAT_TEST_RUN_MAIN") == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// runChild runs the command in a child process (this test binary, through
// TestMain) and returns its exit code and output. It skips the test where
// the binary cannot start itself (under qemu-user without binfmt_misc).
func runChild(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(os.Environ(), "LDBCOMPAT_TEST_RUN_MAIN=1")
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee) && ee.Exited():
		code = ee.ExitCode()
	case errors.Is(err, syscall.ENOEXEC):
		t.Skipf("skipped: this test binary cannot start itself here: %v", err)
	default:
		t.Fatalf("ldbcompat %s: %v (it did not exit by itself)\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, &o, &e)
	}
	return code, o.String(), e.String()
}

// treeState is every file under a directory: its contents' digest, size,
// mode and modification time, for proving that nothing was written.
func treeState(t *testing.T, dir string) map[string]string {
	t.Helper()
	st := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		s := fmt.Sprintf("%v %d %s", fi.Mode(), fi.Size(), fi.ModTime().Format(time.RFC3339Nano))
		if fi.Mode().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			s += fmt.Sprintf(" %x", sha256.Sum256(data))
		}
		st[rel] = s
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// faultJSON is what the test reads of `verify --json`.
type faultJSON struct {
	Databases []struct {
		Opened bool             `json:"opened"`
		Status string           `json:"status"`
		Tables []faultTableJSON `json:"tables"`
	} `json:"databases"`
	Tables []faultTableJSON `json:"tables"`
}

// allTables lists the tables of doc, in its databases or named directly.
func (doc faultJSON) allTables() []faultTableJSON {
	all := doc.Tables
	for _, d := range doc.Databases {
		all = append(all, d.Tables...)
	}
	return all
}

// faultTableJSON is what the test reads of a table in `verify --json`.
type faultTableJSON struct {
	Path    string `json:"path"`
	Verdict string `json:"verdict"`
	Status  string `json:"status"`
	Offset  *int64 `json:"offset"`
	IOError bool   `json:"io_error"`
}

// span is a byte range of a table file.
type span struct{ from, to int64 }

// pages is the range of whole 4 KiB pages s touches: where a device that
// fails s fails, since the kernel reads a file page by page.
func (s span) pages() span { return span{s.from &^ 4095, (s.to + 4095) &^ 4095} }

func (s span) overlaps(o span) bool { return s.from < o.to && o.from < s.to }

// tableSpans returns where the footer, the index, metaindex and filter
// blocks of the table file at path lie (each with its 5-byte trailer), and
// a data block sharing no page with any of them.
func tableSpans(t *testing.T, path string) (footer, index, metaindex, filter, data span) {
	t.Helper()
	tb, _ := openTable(t, path)
	of := func(h table.BlockHandle) span {
		return span{int64(h.Offset), int64(h.Offset + h.Size + table.TrailerSize)}
	}
	footer = span{tb.Size() - table.FooterSize, tb.Size()}
	index, metaindex = of(tb.IndexHandle()), of(tb.MetaindexHandle())
	fh, ok := tb.FilterHandle()
	if !ok {
		t.Fatalf("%s: no filter block", path)
	}
	filter = of(fh)
	for _, e := range tb.Index() {
		d := of(e.Handle)
		clear := true
		for _, o := range []span{footer, index, metaindex, filter} {
			clear = clear && !d.pages().overlaps(o.pages())
		}
		if clear && d.pages().from > 0 {
			return footer, index, metaindex, filter, d
		}
	}
	t.Fatalf("%s: every data block shares a page with another block", path)
	return
}

// mountedLine returns the line of verify's text output about the table file
// name, with the mount point replaced by MNT.
func mountedLine(out, mnt, name string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, filepath.Join(mnt, name)+": ") {
			return strings.ReplaceAll(l, mnt, "MNT")
		}
	}
	return ""
}

// TestFaultyStorage runs verify and dump on a database upstream 1.23
// wrote, served by a FUSE file system that fails as a failing device
// does, one fault at a time: whatever the device does, the table gets a
// verdict naming the file, the offset and the error, the other tables are
// still judged, the exit code is the verdict's, nothing panics and nothing
// is written.
func TestFaultyStorage(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped with -short: mounts FUSE file systems")
	}
	const (
		victim = "000009.ldb"
		db     = "b10-bs4096-snappy"
	)
	footer, index, metaindex, filter, data := tableSpans(t, filepath.Join(fixtures, db, victim))
	fi, err := os.Stat(filepath.Join(fixtures, db, victim))
	if err != nil {
		t.Fatal(err)
	}
	size := fi.Size()
	eio := func(s span) faultfs.Fault {
		return faultfs.Fault{ReadErr: syscall.EIO, ReadErrFrom: s.from, ReadErrTo: s.to}
	}
	// The verdicts, from first principles: a table the device fails to
	// read is unreadable with the device's error at an offset in the
	// pages that fail (upstream, which maps tables, dies of SIGBUS
	// there; through pread(2) it reports "IO error: FILE: <strerror>",
	// util/env_posix.cc's PosixError); a table cut short while read is
	// unchecked; one gone or refused at open has upstream's open error.
	device := func(s span) func(*testing.T, string, faultTableJSON) {
		return func(t *testing.T, line string, j faultTableJSON) {
			if j.Verdict != "unreadable" || !j.IOError || j.Offset == nil ||
				*j.Offset < s.pages().from || *j.Offset >= s.pages().to ||
				j.Status != "IO error: MNT/"+victim+": Input/output error" ||
				!strings.Contains(line, "unreadable: the storage cannot read it (IO error: MNT/"+victim+": Input/output error)") ||
				!strings.Contains(line, "input/output error") {
				t.Errorf("want unreadable, an I/O error at an offset in %d..%d; got %+v\n%s", s.pages().from, s.pages().to, j, line)
			}
		}
	}
	type faultCase struct {
		name  string
		file  string
		fault faultfs.Fault
		// exit is verify's exit code; check judges the victim's verdict.
		exit  int
		check func(t *testing.T, line string, j faultTableJSON)
		// dbStatus, when set, is what the database line must say.
		dbStatus string
	}
	cases := []faultCase{
		{name: "EIO at the footer", file: victim, fault: eio(footer), exit: verify.ExitError, check: device(footer)},
		{name: "EIO in the index block", file: victim, fault: eio(index), exit: verify.ExitError, check: device(index)},
		{name: "EIO in a data block", file: victim, fault: eio(data), exit: verify.ExitError, check: device(data)},
		{name: "EIO in the filter block", file: victim, fault: eio(filter), exit: verify.ExitError, check: device(span{min(filter.from, metaindex.from), max(filter.to, metaindex.to)})},
		{name: "EIO from byte 0", file: victim, fault: eio(span{0, size}), exit: verify.ExitError, check: device(span{0, size})},
		{name: "EIO from the middle", file: victim, fault: eio(span{size / 2, size}), exit: verify.ExitError, check: device(span{size / 2, size})},
		{name: "short reads", file: victim, fault: faultfs.Fault{ShortReads: 1000}, exit: verify.ExitError,
			check: func(t *testing.T, line string, j faultTableJSON) {
				// The kernel takes a short read for the end of the file
				// and fills the rest of the page with zeros: upstream,
				// reading through the same kernel, gets the same bytes,
				// whose checks fail.
				if j.Verdict != "unreadable" || j.IOError || !strings.HasPrefix(j.Status, "Corruption: ") || j.Offset == nil {
					t.Errorf("want unreadable, a corruption; got %+v\n%s", j, line)
				}
			}},
		{name: "shrinks while read", file: victim, fault: faultfs.Fault{ShrinkAfter: 2, ShrinkTo: size / 3}, exit: verify.ExitError,
			check: func(t *testing.T, line string, j faultTableJSON) {
				if j.Verdict != "unchecked" || !strings.Contains(line, "changed while it was read") {
					t.Errorf("want unchecked, changed while read; got %+v\n%s", j, line)
				}
			}},
		{name: "vanishes", file: victim, fault: faultfs.Fault{Gone: true}, exit: verify.ExitError,
			check: func(t *testing.T, line string, j faultTableJSON) {
				if j.Verdict != "unreadable" || j.Status != "NotFound: MNT/"+victim+": No such file or directory" {
					t.Errorf("want unreadable, NotFound; got %+v\n%s", j, line)
				}
			}},
		{name: "permission denied", file: victim, fault: faultfs.Fault{OpenErr: syscall.EACCES}, exit: verify.ExitError,
			check: func(t *testing.T, line string, j faultTableJSON) {
				if j.Verdict != "unreadable" || j.Status != "IO error: MNT/"+victim+": Permission denied" ||
					!strings.Contains(line, "upstream cannot open it: IO error: MNT/"+victim+": Permission denied") {
					t.Errorf("want unreadable, permission denied; got %+v\n%s", j, line)
				}
			}},
		{name: "EIO on CURRENT", file: "CURRENT", fault: faultfs.Fault{ReadErr: syscall.EIO}, exit: verify.ExitError,
			dbStatus: "IO error: MNT/CURRENT: Input/output error"},
		{name: "EIO on the MANIFEST", file: "MANIFEST-000002", fault: faultfs.Fault{ReadErr: syscall.EIO}, exit: verify.ExitError,
			dbStatus: "IO error: MNT/MANIFEST-000002: Input/output error"},
	}
	backing := copyDB(t, db)
	before := treeState(t, backing)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := faultfs.MountT(t, backing)
			f.Set(c.file, c.fault)
			code, out, errOut := runChild(t, "verify", f.Dir)
			f.Set(c.file, c.fault) // counts reads afresh (ShrinkAfter)
			jcode, jout, _ := runChild(t, "verify", "--json", f.Dir)
			for _, s := range []string{out, errOut, jout} {
				if strings.Contains(s, "panic") || strings.Contains(s, "goroutine ") {
					t.Fatalf("a panic:\n%s", s)
				}
			}
			if code != c.exit || jcode != c.exit {
				t.Errorf("exit %d (--json: %d), want %d\n%s%s", code, jcode, c.exit, out, errOut)
			}
			var doc faultJSON
			if err := json.Unmarshal([]byte(strings.ReplaceAll(jout, f.Dir, "MNT")), &doc); err != nil {
				t.Fatalf("--json: %v\n%s", err, jout)
			}
			// Every other table is judged: ok, as upstream wrote it.
			for _, name := range []string{"000007.ldb", "000009.ldb", "000012.ldb"} {
				line := mountedLine(out, f.Dir, name)
				var j *faultTableJSON
				all := doc.allTables()
				for i := range all {
					if all[i].Path == "MNT/"+name {
						j = &all[i]
					}
				}
				if line == "" || j == nil {
					t.Errorf("no verdict for %s:\n%s", name, out)
					continue
				}
				if name == c.file {
					c.check(t, line, *j)
				} else if j.Verdict != "ok" {
					t.Errorf("%s: want ok, got %s", name, line)
				}
			}
			if c.dbStatus != "" {
				if len(doc.Databases) != 1 || doc.Databases[0].Opened || doc.Databases[0].Status != c.dbStatus {
					t.Errorf("database: want upstream not to open it, %q; got %+v", c.dbStatus, doc.Databases)
				}
			}
			// dump reads with read(2), not a map: the same verdict for an
			// I/O error, never a panic.
			if c.file == victim && c.fault.ReadErr != 0 {
				f.Set(c.file, c.fault)
				dcode, dout, derr := runChild(t, "dump", filepath.Join(f.Dir, victim))
				if dcode != verify.ExitError || strings.Contains(dout+derr, "panic") ||
					!strings.Contains(dout, "unreadable: the storage cannot read it (IO error: "+filepath.Join(f.Dir, victim)+": Input/output error)") {
					t.Errorf("dump: exit %d\n%s%s", dcode, dout, derr)
				}
			}
			if w := f.Writes(); len(w) > 0 {
				t.Errorf("requests that would write: %q", w)
			}
		})
	}
	if diff := diffState(before, treeState(t, backing)); diff != "" {
		t.Errorf("the database changed:\n%s", diff)
	}
}

// diffState lists the files whose state differs between a and b.
func diffState(a, b map[string]string) string {
	var d strings.Builder
	for k, v := range a {
		if b[k] != v {
			fmt.Fprintf(&d, "%s: %s, then %s\n", k, v, b[k])
		}
	}
	for k, v := range b {
		if _, ok := a[k]; !ok {
			fmt.Fprintf(&d, "%s: new, %s\n", k, v)
		}
	}
	return d.String()
}
