package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/internal/base"
	"github.com/ldbcompat/ldbcompat/internal/manifest/manifesttest"
	"github.com/ldbcompat/ldbcompat/internal/table"
	"github.com/ldbcompat/ldbcompat/internal/table/tabletest"
	"github.com/ldbcompat/ldbcompat/internal/verify"
)

// The CLI with bad input: every path or table that cannot be read gives a
// message naming the file (and the offset, when the file could be opened)
// and exit status 2, for verify and dump alike; nothing hangs. A table's
// message is its line on stdout; a path's that is neither a table nor a
// database is on stderr.

// runBoth runs verify and dump on args, each with a deadline: a command
// that hangs fails the test instead of stalling it. It returns each one's
// exit code and its output, stdout then stderr.
func runBoth(t *testing.T, args ...string) (verifyCode int, verifyOut string, dumpCode int, dumpOut string) {
	t.Helper()
	type out struct {
		code   int
		output string
	}
	do := func(cmd string) out {
		done := make(chan out, 1)
		argv := []string{cmd}
		if cmd == "dump" {
			argv = append(argv, "--samples", "50")
		}
		argv = append(argv, args...)
		go func() {
			var o, e bytes.Buffer
			code := run(argv, &o, &e)
			done <- out{code, o.String() + e.String()}
		}()
		select {
		case r := <-done:
			return r
		case <-time.After(30 * time.Second):
			t.Fatalf("ldbcompat %s %q did not finish in 30s", cmd, args)
		}
		return out{}
	}
	v, d := do("verify"), do("dump")
	return v.code, v.output, d.code, d.output
}

// wantError requires exit status code from verify and dump and a line
// naming path and matching each pattern: the table's line (for dump, the
// line after the path), or "ldbcompat: " and the error on stderr for a
// path that could not be examined.
func wantError(t *testing.T, code int, path string, patterns ...string) {
	t.Helper()
	vc, ve, dc, de := runBoth(t, path)
	for _, r := range []struct {
		cmd    string
		code   int
		output string
	}{{"verify", vc, ve}, {"dump", dc, de}} {
		if r.code != code {
			t.Errorf("%s %s: exit %d, want %d\noutput: %s", r.cmd, path, r.code, code, r.output)
		}
		line := ""
		for _, l := range strings.Split(r.output, "\n") {
			if (strings.HasPrefix(l, "ldbcompat: ") || strings.HasPrefix(l, path+": ") || strings.HasPrefix(l, "  unreadable: ") || strings.HasPrefix(l, "  unchecked: ") || strings.HasPrefix(l, "  skipped: ")) && (strings.Contains(l, path) || strings.HasPrefix(l, "  ")) {
				line = l
			}
		}
		if line == "" {
			t.Errorf("%s %s: no error line naming the file:\n%s", r.cmd, path, r.output)
			continue
		}
		for _, p := range patterns {
			if !regexp.MustCompile(p).MatchString(line) {
				t.Errorf("%s %s: error %q does not match %q", r.cmd, path, line, p)
			}
		}
	}
}

func TestBadPaths(t *testing.T) {
	src := firstTable(t, filepath.Join(fixtures, "b10-bs4096-none"))
	data := tabletest.ReadFile(t, src)
	dir := t.TempDir()
	file := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		writeFile(t, p, b)
		return p
	}
	noise := make([]byte, 4096)
	for i := range noise {
		noise[i] = byte(i * 7919 >> 3)
	}
	t.Run("missing", func(t *testing.T) {
		wantError(t, verify.ExitPath, filepath.Join(dir, "nope.ldb"), "no such file or directory")
	})
	t.Run("empty file", func(t *testing.T) {
		wantError(t, verify.ExitError, file("empty.ldb", nil), `offset 0: file is 0 bytes, too short for a table`)
	})
	t.Run("text file", func(t *testing.T) {
		// Named neither *.ldb nor *.sst, nor ending in a table's magic
		// number: no table, and nothing else was named.
		wantError(t, verify.ExitPath, file("CURRENT", bytes.Repeat([]byte("MANIFEST-000002\n"), 10)), `skipped: not a table: its name does not end in \.ldb or \.sst, nor its contents in a table's magic number`)
	})
	t.Run("noise", func(t *testing.T) {
		wantError(t, verify.ExitError, file("noise.ldb", noise), `offset 4088: not a LevelDB table: bad magic number`)
	})
	t.Run("log file", func(t *testing.T) {
		// A write-ahead log is not a table: verify skips it; dump
		// prints its records, here one whose checksum fails (exit 2).
		p := file("000003.log", append([]byte{0x8f, 0x32, 0x8c, 0x1a, 0x24, 0, 1}, bytes.Repeat([]byte("x"), 100)...))
		if code, stdout, _ := runCmd(t, "verify", p); code != verify.ExitPath || !strings.Contains(stdout, p+": skipped: not a table but a log") {
			t.Errorf("verify: exit %d\n%s", code, stdout)
		}
		if code, stdout, _ := runCmd(t, "dump", p); code != verify.ExitError || !strings.Contains(stdout, "  dropped at offset 0: 107 bytes (Corruption: checksum mismatch)") {
			t.Errorf("dump: exit %d\n%s", code, stdout)
		}
	})
	t.Run("footer only", func(t *testing.T) {
		wantError(t, verify.ExitError, file("footer.ldb", data[len(data)-table.FooterSize:]), `offset 48: index block handle \d+\+\d+: block and its 5-byte trailer run past the end of the 48-byte file`)
	})
	t.Run("directory without CURRENT", func(t *testing.T) {
		d := filepath.Join(dir, "notdb")
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(d, "000005.ldb"), data)
		wantError(t, verify.ExitPath, d, "no LevelDB database in it or below it .*; 1 table file outside any database: name it to check it")
	})
	t.Run("database without a MANIFEST", func(t *testing.T) {
		d := filepath.Join(dir, "empty-db")
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(d, "CURRENT"), []byte("MANIFEST-000002\n"))
		writeFile(t, filepath.Join(d, "000003.log"), nil)
		wantError(t, verify.ExitError, d, "database: upstream cannot open it: Corruption: CURRENT points to a non-existent file")
	})
}

// TestUnreadableTables covers tables that cannot be opened or read: file
// permissions (when not root), dangling symbolic links, named pipes and
// directories named like tables, and read errors.
func TestUnreadableTables(t *testing.T) {
	src := firstTable(t, filepath.Join(fixtures, "b10-bs4096-none"))
	data := tabletest.ReadFile(t, src)
	t.Run("permission denied", func(t *testing.T) {
		if os.Geteuid() == 0 {
			t.Skip("running as root, which reads files whatever their mode; the dangling link, pipe and read-error cases cover unreadable tables")
		}
		p := filepath.Join(t.TempDir(), "000005.ldb")
		writeFile(t, p, data)
		if err := os.Chmod(p, 0); err != nil {
			t.Fatal(err)
		}
		wantError(t, verify.ExitError, p, "permission denied")
	})
	// Each odd entry in a database directory that also holds a good
	// table: the good one is still checked, the odd one named, exit 2.
	for _, tc := range []struct {
		name   string
		make   func(t *testing.T, path string)
		want   string
		direct string // the error when the entry is named directly, if not want
		// directCode is the exit code then: a path that cannot be
		// examined (gone, a loop, a directory with no database), or a
		// special file, which is no table whatever its name, is not an
		// unreadable table.
		directCode int
	}{
		{"dangling symbolic link", func(t *testing.T, p string) {
			if err := os.Symlink(filepath.Join(filepath.Dir(p), "gone.ldb"), p); err != nil {
				t.Fatal(err)
			}
		}, "no such file or directory", "", verify.ExitPath},
		{"named pipe", func(t *testing.T, p string) {
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
		}, "not a regular file but a named pipe", "not a table: not a regular file but a named pipe", verify.ExitPath},
		{"symbolic link to a named pipe", func(t *testing.T, p string) {
			fifo := filepath.Join(filepath.Dir(p), "pipe")
			if err := syscall.Mkfifo(fifo, 0o644); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
			if err := os.Symlink(fifo, p); err != nil {
				t.Fatal(err)
			}
		}, "not a regular file but a named pipe", "not a table: not a regular file but a named pipe", verify.ExitPath},
		{"directory", func(t *testing.T, p string) {
			if err := os.Mkdir(p, 0o755); err != nil {
				t.Fatal(err)
			}
		}, "not a regular file but a directory", "no LevelDB database in it or below it", verify.ExitPath},
		{"symbolic link loop", func(t *testing.T, p string) {
			if err := os.Symlink(p, p); err != nil {
				t.Fatal(err)
			}
		}, "too many levels of symbolic links", "", verify.ExitPath},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Both tables are live, as a MANIFEST says.
			db := t.TempDir()
			if err := manifesttest.WriteDB(db, 2, manifesttest.Table{Level: 0, Number: 5, Size: uint64(len(data))},
				manifesttest.Table{Level: 1, Number: 9, Size: uint64(len(data))}); err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(db, "000005.ldb"), data)
			odd := filepath.Join(db, "000009.ldb")
			tc.make(t, odd)
			code, stdout, stderr := runCmd(t, "verify", db)
			if code != verify.ExitError || !strings.Contains(stdout, "000005.ldb: ok") || !strings.Contains(stdout, "2 tables: 1 ok, 1 unreadable\n") || stderr != "" ||
				!regexp.MustCompile("(?m)^"+regexp.QuoteMeta(odd)+": unreadable: upstream cannot open it: .*"+tc.want).MatchString(stdout) {
				t.Errorf("verify %s: exit %d; want 2, the good table ok and %q\nstdout: %s\nstderr: %s", db, code, tc.want, stdout, stderr)
			}
			// Named directly, not through its database.
			direct := tc.want
			if tc.direct != "" {
				direct = tc.direct
			}
			wantError(t, tc.directCode, odd, direct)
		})
	}
}

// hookedFile is a table file whose reads go through hook first.
type hookedFile struct {
	*os.File
	hook func(p []byte, off int64) (n int, err error, handled bool)
}

func (f *hookedFile) ReadAt(p []byte, off int64) (int, error) {
	if n, err, ok := f.hook(p, off); ok {
		return n, err
	}
	return f.File.ReadAt(p, off)
}

// withOpenHook makes openFile wrap every file it opens in a hookedFile
// built by mk, until the test ends.
func withOpenHook(t *testing.T, mk func(path string, f *os.File) *hookedFile) {
	t.Helper()
	saved := openFile
	t.Cleanup(func() { openFile = saved })
	openFile = func(path string) (verify.File, error) {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		return mk(path, f), nil
	}
}

// TestTableReadErrors simulates I/O errors and tables that change while
// they are read, through the openFile hook.
func TestTableReadErrors(t *testing.T) {
	src := firstTable(t, filepath.Join(fixtures, "b10-bs4096-none"))
	data := tabletest.ReadFile(t, src)
	size := int64(len(data))
	tb, _ := openTable(t, src)
	ih := tb.IndexHandle()

	t.Run("I/O error", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "000005.ldb")
		writeFile(t, p, data)
		withOpenHook(t, func(path string, f *os.File) *hookedFile {
			return &hookedFile{f, func(b []byte, off int64) (int, error, bool) {
				if off < size-table.FooterSize {
					return 0, &fs.PathError{Op: "read", Path: path, Err: syscall.EIO}, true
				}
				return 0, nil, false
			}}
		})
		wantError(t, verify.ExitError, p, fmt.Sprintf(`table .*000005.ldb: offset %d: reading index block \(%d bytes\): read .*: input/output error`, ih.Offset, ih.Size+table.TrailerSize))
	})
	// The file changes after its footer has been read.
	for _, tc := range []struct {
		name   string
		change func(path string) error
		want   []string
	}{
		{"truncated while read", func(p string) error { return os.Truncate(p, size/2) },
			[]string{fmt.Sprintf(`offset %d: reading index block .*unexpected EOF`, ih.Offset), fmt.Sprintf(`changed while it was read \(%d bytes, .* when opened; %d bytes`, size, size/2)}},
		{"overwritten while read", func(p string) error {
			return os.WriteFile(p, bytes.Repeat([]byte{0x5a}, len(data)), 0o644)
		}, []string{fmt.Sprintf(`offset %d: index block .*checksum mismatch`, ih.Offset), `changed while it was read`}},
		{"grown while read", func(p string) error {
			f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				return err
			}
			defer f.Close()
			_, err = f.Write(make([]byte, 4096))
			return err
		}, []string{fmt.Sprintf(`changed while it was read \(%d bytes, .* when opened; %d bytes`, size, size+4096), "is LevelDB still writing it"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "000005.ldb")
			withOpenHook(t, func(path string, f *os.File) *hookedFile {
				var once sync.Once
				return &hookedFile{f, func(b []byte, off int64) (int, error, bool) {
					if off == size-table.FooterSize {
						return 0, nil, false // the footer: read it as it was
					}
					var err error
					once.Do(func() {
						// Make sure the modification time moves on
						// coarse-grained file systems.
						time.Sleep(10 * time.Millisecond)
						err = tc.change(path)
					})
					if err != nil {
						return 0, err, true
					}
					return 0, nil, false
				}}
			})
			for _, cmd := range []string{"verify", "dump"} {
				writeFile(t, p, data)
				// With paranoid checks, where a checksum fails a read.
				code, stdout, stderr := runCmd(t, cmd, "--paranoid", p)
				if code != verify.ExitError {
					t.Errorf("%s: exit %d, want 2\nstdout: %s\nstderr: %s", cmd, code, stdout, stderr)
				}
				first := "(?m)^" + regexp.QuoteMeta(p) + ": unchecked: not checked: "
				if cmd == "dump" {
					first = "(?m)^" + regexp.QuoteMeta(p) + "\n  unchecked: not checked: "
				}
				for _, w := range append(tc.want, first) {
					if !regexp.MustCompile(w).MatchString(stdout) {
						t.Errorf("%s: stdout %q does not match %q", cmd, stdout, w)
					}
				}
			}
		})
	}
}

// TestBitFlipCLI runs verify and dump on copies of a fixture table with one
// bit flipped, for a sample of bits (every bit of the footer, one byte in
// 97 elsewhere). With paranoid checks: exactly the undamaged table's output
// (exit 0); or, for a flip in the filter block, the metaindex block or the
// metaindex handle, which upstream's Table::ReadMeta survives by reading the
// table without its filter, filter-unusable (exit 1); or unreadable, with
// the file and an offset named (exit 2). With LevelDB's default options,
// which compute no checksum: exit 0 exactly where paranoid checks give 0 (a
// flip no check notices changes nothing); a flip that one notices is
// bad-checksum, mismatch or filter-unusable (1), or silent-corruption or
// unreadable (2), never harmless.
func TestBitFlipCLI(t *testing.T) {
	src := firstTable(t, filepath.Join(fixtures, "b16-bs128-snappy"))
	data := tabletest.ReadFile(t, src)
	p := filepath.Join(t.TempDir(), "000005.ldb")
	writeFile(t, p, data)
	_, wantOut, _ := runCmd(t, "verify", "--paranoid", p)
	_, wantDump, _ := runCmd(t, "dump", "--paranoid", "--samples", "100", p)
	defaultsOut := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(p) + `: (bad-checksum|mismatch|filter-unusable|silent-corruption|unreadable): `)
	stride := 97
	if testing.Short() {
		stride = 997
	}
	var bits []int
	for i := range data {
		switch {
		case i >= len(data)-table.FooterSize:
			for b := 0; b < 8; b++ {
				bits = append(bits, 8*i+b)
			}
		case i%stride == 0:
			bits = append(bits, 8*i+i/stride%8)
		}
	}
	unreadable := regexp.MustCompile(`(?m)^(` + regexp.QuoteMeta(p) + `: |  )unreadable: .*table ` + regexp.QuoteMeta(p) + `: offset (\d+): `)
	unusable := regexp.MustCompile(`(?m)^(` + regexp.QuoteMeta(p) + `: |  )filter-unusable: `)
	tb, err := table.Open(p, bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	fh, _ := tb.FilterHandle()
	mh := tb.MetaindexHandle()
	footer := uint64(len(data) - table.FooterSize)
	inMeta := func(off int) bool {
		o := uint64(off)
		return (o >= fh.Offset && o < fh.End()) || (o >= mh.Offset && o < mh.End()) ||
			(o >= footer && o < footer+uint64(len(table.AppendBlockHandle(nil, mh)))) // the metaindex handle
	}
	same, unusables := 0, 0
	for _, bit := range bits {
		damaged := bytes.Clone(data)
		damaged[bit/8] ^= 1 << (bit % 8)
		writeFile(t, p, damaged)
		code, stdout, stderr := runCmd(t, "verify", p)
		paranoid, _, _ := runCmd(t, "verify", "--paranoid", p)
		switch {
		case (code == verify.ExitOK) != (paranoid == verify.ExitOK):
			t.Errorf("bit %d of byte %d flipped: exit %d with the default options, %d with paranoid checks\n%s%s", bit%8, bit/8, code, paranoid, stdout, stderr)
		case code == verify.ExitOK && stdout != wantOut:
			t.Errorf("bit %d of byte %d flipped: verify exit 0 with different output:\n%s\nundamaged:\n%s", bit%8, bit/8, stdout, wantOut)
		case code != verify.ExitOK && (code > verify.ExitError || !defaultsOut.MatchString(stdout)):
			t.Errorf("bit %d of byte %d flipped: verify exit %d with the default options:\n%s%s", bit%8, bit/8, code, stdout, stderr)
		}
		for _, args := range [][]string{{"verify", "--paranoid", p}, {"dump", "--paranoid", "--samples", "100", p}} {
			code, stdout, stderr := runCmd(t, args...)
			want := map[string]string{"verify": wantOut, "dump": wantDump}[args[0]]
			switch code {
			case verify.ExitOK:
				if stdout != want {
					t.Errorf("bit %d of byte %d flipped: %s exit 0 with different output:\n%s\nundamaged:\n%s", bit%8, bit/8, args[0], stdout, want)
				}
				same++
			case verify.ExitDamage:
				if !inMeta(bit/8) || !unusable.MatchString(stdout) {
					t.Errorf("bit %d of byte %d flipped (in the filter or metaindex block: %v): %s exit 1\n%s%s", bit%8, bit/8, inMeta(bit/8), args[0], stdout, stderr)
				}
				unusables++
			case verify.ExitError:
				if !unreadable.MatchString(stdout) {
					t.Errorf("bit %d of byte %d flipped: %s: stdout %q does not name the file and an offset", bit%8, bit/8, args[0], stdout)
				}
			default:
				t.Errorf("bit %d of byte %d flipped: %s exit %d\n%s%s", bit%8, bit/8, args[0], code, stdout, stderr)
			}
		}
	}
	if same == 0 || unusables == 0 {
		t.Errorf("%d runs gave the undamaged output (the footer padding should), %d filter-unusable (a flip in the filter block should)", same, unusables)
	}
	t.Logf("%d bits flipped; %d runs gave the undamaged output, %d filter-unusable", len(bits), same, unusables)
}

// TestErrorsUnwrap checks that a table's error keeps the underlying
// *base.Error for callers that look for it.
func TestErrorsUnwrap(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.ldb")
	writeFile(t, p, []byte("short"))
	rep := verify.Examine(&verify.Target{Path: p}, options(false, false))
	var te *base.Error
	if rep.Verdict != verify.Unreadable || !errors.As(rep.Err, &te) || te.File != p {
		t.Fatalf("verdict %s, error %v (%T): want a *base.Error for %s", rep.Verdict, rep.Err, rep.Err, p)
	}
}

// fuzzBase is the table FuzzCLI stores arbitrary filter blocks in: 40
// entries in a few data blocks across several 2 KiB ranges.
var fuzzBase = sync.OnceValue(func() []byte {
	var es []table.Entry
	for i := 0; i < 40; i++ {
		k := table.InternalKey{UserKey: []byte(fmt.Sprintf("key%02d\x80", i/2)), Seq: uint64(100 - i), Kind: table.Kind(i % 2)}
		es = append(es, table.Entry{Key: k, Value: bytes.Repeat([]byte{'v'}, i*5)})
	}
	return tabletest.Build(es, tabletest.Options{BlockSize: 200, Policy: bloom.NewPolicy(10)})
})

// FuzzCLI runs verify and dump, as text and as JSON, on a table whose
// filter block is arbitrary bytes behind a valid checksum, so that the
// fuzzer reaches the formatting of every kind of result: the table is
// readable, so the exit status is 0 or 1, the same for both commands, and
// the JSON parses.
func FuzzCLI(f *testing.F) {
	tb, err := table.Open("base", bytes.NewReader(fuzzBase()), int64(len(fuzzBase())))
	if err != nil {
		f.Fatal(err)
	}
	_, real, _ := tb.FilterBlock()
	f.Add(real, uint8(0))
	f.Add(real, uint8(1))
	f.Add([]byte{0, 0, 0, 0, 11}, uint8(0))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 40, 0, 0, 0, 0, 0xff, 0, 0, 0, 10, 0, 0, 0, 63}, uint8(1))
	f.Add([]byte{1, 2, 3, 4}, uint8(2))
	f.Fuzz(func(t *testing.T, contents []byte, sel uint8) {
		name := []string{bloom.PolicyName, bloom.LegacyPolicyName, "leveldb.OtherFilter", ""}[sel%4]
		data, err := tabletest.ReplaceFilter(fuzzBase(), name, contents)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(t.TempDir(), "000005.ldb")
		writeFile(t, p, data)
		codes := map[string]int{}
		for _, args := range [][]string{{"verify", p}, {"verify", "--json", p}, {"dump", "--samples", "20", p}, {"dump", "--json", "--samples", "20", p}} {
			code, stdout, stderr := runCmd(t, args...)
			if code != verify.ExitOK && code != verify.ExitDamage {
				t.Fatalf("%q: exit %d\n%s%s", args, code, stdout, stderr)
			}
			codes[args[0]] = code
			if args[1] == "--json" && !json.Valid([]byte(stdout)) {
				t.Fatalf("%q: invalid JSON:\n%s", args, stdout)
			}
		}
		if codes["verify"] != codes["dump"] {
			t.Fatalf("verify exit %d, dump exit %d", codes["verify"], codes["dump"])
		}
	})
}
