package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ldbcompat/ldbcompat/internal/verify"
)

// TestNoRawControlBytes: names from the file system (a directory, a table
// file) holding an escape sequence that sets a terminal's title and a
// newline that would forge a line are printed escaped, as Go escapes them
// in a string: no byte below 0x20 but the lines' own newlines, no DEL, and
// no line that starts with the forged text.
func TestNoRawControlBytes(t *testing.T) {
	root := t.TempDir()
	evil := "db\x1b]0;owned\x07\nx.ldb: ok: injected line"
	dir := filepath.Join(root, evil)
	copyTree(t, filepath.Join(fixtures, "b1-bs128-none"), dir)
	data, err := os.ReadFile(filepath.Join(dir, "000007.ldb"))
	if err != nil {
		t.Fatal(err)
	}
	named := filepath.Join(t.TempDir(), "t\x1b[31m\x7f\xff.ldb")
	writeFile(t, named, data)
	for _, args := range [][]string{{"verify", root, named}, {"dump", "--samples", "10", root, named}} {
		_, stdout, stderr := runCmd(t, args...)
		for _, out := range []string{stdout, stderr} {
			for i := 0; i < len(out); i++ {
				if c := out[i]; (c < 0x20 && c != '\n') || c == 0x7f || c == 0xff {
					t.Errorf("%s: raw byte 0x%02x at %d:\n%q", args[0], c, i, out)
					break
				}
			}
			if strings.Contains(out, "\nx.ldb: ok: injected line") {
				t.Errorf("%s: a forged line:\n%s", args[0], out)
			}
		}
		for _, want := range []string{`db\x1b]0;owned\x07\nx.ldb: ok: injected line`, `t\x1b[31m\x7f\xff.ldb`} {
			if !strings.Contains(stdout, want) {
				t.Errorf("%s: output lacks %s escaped as %q:\n%s", args[0], want, want, stdout)
			}
		}
	}
}

// failingWriter fails every write, as stdout does on a full disk.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// TestReportNotWritten: a report that cannot be written (stdout full or
// closed) is an error, exit 3 with a message on stderr, in text and JSON
// alike, whatever the verdicts.
func TestReportNotWritten(t *testing.T) {
	dir := copyDB(t, "b1-bs128-none")
	for _, args := range [][]string{{"verify", dir}, {"verify", "--json", dir}, {"dump", dir}, {"dump", "--json", dir}} {
		var stderr strings.Builder
		if code := run(args, failingWriter{}, &stderr); code != verify.ExitPath || !strings.Contains(stderr.String(), "no space left on device") {
			t.Errorf("%q: exit %d, stderr %q; want %d and the write's error", args, code, stderr.String(), verify.ExitPath)
		}
	}
}

// TestSparseManifest: a MANIFEST grown to 100 GB of holes (a sparse file:
// zeros that take no disk) beside a good database's records is read as
// upstream reads it, the zeros skipped, in seconds and without allocating
// its size: the database opens and its tables are checked.
func TestSparseManifest(t *testing.T) {
	dir := copyDB(t, "b1-bs128-none")
	m := filepath.Join(dir, "MANIFEST-000002")
	if err := os.Truncate(m, 100<<30); err != nil {
		t.Skipf("no sparse file of 100 GB here: %v", err)
	}
	start := time.Now()
	code, stdout, stderr := runCmd(t, "verify", dir)
	if code != verify.ExitOK || !strings.Contains(stdout, ": database: upstream opens it;") || !strings.Contains(stdout, "3 tables: 3 ok") {
		t.Errorf("exit %d\n%s%s", code, stdout, stderr)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("a sparse 100 GB MANIFEST took %v", d)
	}
}
