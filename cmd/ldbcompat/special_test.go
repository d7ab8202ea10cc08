//go:build unix

package main

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/internal/manifest/manifesttest"
	"github.com/ldbcompat/ldbcompat/internal/table"
	"github.com/ldbcompat/ldbcompat/internal/table/tabletest"
	"github.com/ldbcompat/ldbcompat/internal/verify"
)

// runWithin is runCmd failing the test when the command has not returned
// after 20 s, rather than hanging the suite.
func runWithin(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	type result struct {
		code           int
		stdout, stderr string
	}
	done := make(chan result, 1)
	go func() {
		var r result
		r.code, r.stdout, r.stderr = runCmd(t, args...)
		done <- r
	}()
	select {
	case r := <-done:
		return r.code, r.stdout, r.stderr
	case <-time.After(20 * time.Second):
		t.Fatalf("%q: still running after 20 s", args)
		return 0, "", ""
	}
}

// mkfifo makes a named pipe at path, in place of what is there.
func mkfifo(t *testing.T, path string) {
	t.Helper()
	os.Remove(path)
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
}

// TestPipesInTree: a named pipe in place of CURRENT, the MANIFEST, the
// log or a live table of one database among others blocks nothing: it is
// named for what it is, and the good database beside it is checked.
func TestPipesInTree(t *testing.T) {
	for _, file := range []string{"CURRENT", "MANIFEST-000002", "000010.log", "000007.ldb"} {
		t.Run(file, func(t *testing.T) {
			root := t.TempDir()
			copyTree(t, filepath.Join(fixtures, "b1-bs128-none"), filepath.Join(root, "a-bad"))
			copyTree(t, filepath.Join(fixtures, "b1-bs128-none"), filepath.Join(root, "b-good"))
			mkfifo(t, filepath.Join(root, "a-bad", file))
			for _, args := range [][]string{{"verify", root}, {"verify", "--json", root}, {"dump", "--samples", "10", root}} {
				code, stdout, _ := runWithin(t, args...)
				if code != verify.ExitError || !strings.Contains(stdout, "named pipe") || !strings.Contains(stdout, filepath.Join(root, "b-good", "000012.ldb")) {
					t.Errorf("%q: exit %d; want %d, the pipe named and the good database's tables\n%s", args, code, verify.ExitError, stdout)
				}
			}
		})
	}
}

// TestTableTurnsPipe forces the race of a live table replaced by a named
// pipe between the listing (and stat) that found it a regular file and
// its open: the open does not block, and the table is unreadable, a
// named pipe.
func TestTableTurnsPipe(t *testing.T) {
	dir := copyDB(t, "b1-bs128-none")
	victim := filepath.Join(dir, "000007.ldb")
	saved := openFile
	t.Cleanup(func() { openFile = saved })
	openFile = func(path string) (verify.File, error) {
		if path == victim {
			mkfifo(t, path)
		}
		return verify.OpenFile(path)
	}
	code, stdout, _ := runWithin(t, "verify", dir)
	if want := victim + ": unreadable: upstream cannot open it: (no status); " + victim + ": not a regular file but a named pipe"; code != verify.ExitError || !strings.Contains(stdout, want) {
		t.Errorf("exit %d; want %d and %q\n%s", code, verify.ExitError, want, stdout)
	}
}

// TestSpecialFilesNamed: a device or a named pipe named on the command
// line is no table, whatever its name, with the exit status of any other
// file that is none.
func TestSpecialFilesNamed(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "000005.ldb")
	mkfifo(t, fifo)
	for path, what := range map[string]string{"/dev/zero": "a character device", "/dev/null": "a character device", fifo: "a named pipe"} {
		code, stdout, _ := runWithin(t, "verify", path)
		if want := "not a table: not a regular file but " + what; code != verify.ExitPath || !strings.Contains(stdout, want) {
			t.Errorf("verify %s: exit %d; want %d and %q\n%s", path, code, verify.ExitPath, want, stdout)
		}
	}
}

// TestOutsideInTree: a database whose CURRENT names a file outside it
// (/proc/kmsg, which blocks a read forever as root, or another
// database's MANIFEST), or is a symbolic link out of it, is a finding:
// nothing there is read, and the good database beside it is checked.
func TestOutsideInTree(t *testing.T) {
	for name, tc := range map[string]struct {
		make func(t *testing.T, bad string)
		want string
	}{
		"proc": {func(t *testing.T, bad string) {
			if _, err := os.Lstat("/proc/kmsg"); err != nil {
				t.Skipf("no /proc/kmsg here: %v", err)
			}
			writeFile(t, filepath.Join(bad, "CURRENT"), []byte(strings.Repeat("../", 20)+"proc/kmsg\n"))
		}, `which is /proc/kmsg, outside the database directory: upstream would open it; not read`},
		"etc": {func(t *testing.T, bad string) {
			writeFile(t, filepath.Join(bad, "CURRENT"), []byte(strings.Repeat("../", 20)+"etc/passwd\n"))
		}, `which is /etc/passwd, outside the database directory`},
		"other database": {func(t *testing.T, bad string) {
			writeFile(t, filepath.Join(bad, "CURRENT"), []byte("../b-good/MANIFEST-000002\n"))
		}, `CURRENT names "../b-good/MANIFEST-000002"`},
		"CURRENT links out": {func(t *testing.T, bad string) {
			os.Remove(filepath.Join(bad, "CURRENT"))
			if err := os.Symlink("../b-good/CURRENT", filepath.Join(bad, "CURRENT")); err != nil {
				t.Fatal(err)
			}
		}, `CURRENT: offset 0: a symbolic link to `},
	} {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			bad := filepath.Join(root, "a-bad")
			copyTree(t, filepath.Join(fixtures, "b1-bs128-none"), bad)
			copyTree(t, filepath.Join(fixtures, "b1-bs128-none"), filepath.Join(root, "b-good"))
			tc.make(t, bad)
			code, stdout, _ := runWithin(t, "verify", root)
			if code != verify.ExitError || !strings.Contains(stdout, bad+": database: not checked: ") || !strings.Contains(stdout, tc.want) ||
				!strings.Contains(stdout, filepath.Join(root, "b-good", "000012.ldb")+": ok") {
				t.Errorf("exit %d; want %d, %s not checked: %s, and the good database checked\n%s", code, verify.ExitError, bad, tc.want, stdout)
			}
		})
	}
}

// TestLinksNamed: CURRENT, the MANIFEST, a log and a live table that are
// symbolic links (within the database) are read through, and named as
// links in the text and in the JSON.
func TestLinksNamed(t *testing.T) {
	dir := copyDB(t, "b1-bs128-none")
	for _, name := range []string{"CURRENT", "MANIFEST-000002", "000010.log", "000007.ldb"} {
		p := filepath.Join(dir, name)
		if err := os.Rename(p, filepath.Join(dir, "real-"+name)); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("real-"+name, p); err != nil {
			t.Fatal(err)
		}
	}
	code, stdout, _ := runWithin(t, "verify", dir)
	for _, want := range []string{"; CURRENT is a symbolic link to real-CURRENT; MANIFEST-000002 is a symbolic link to real-MANIFEST-000002\n",
		"000010.log: replayed: ", "; a symbolic link to real-000010.log\n", "000007.ldb: ok: ", "; a symbolic link to real-000007.ldb\n"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q\n%s", want, stdout)
		}
	}
	if code != verify.ExitOK {
		t.Errorf("exit %d, want %d", code, verify.ExitOK)
	}
	_, js, _ := runWithin(t, "verify", "--json", dir)
	for _, want := range []string{`"current_link":"real-CURRENT"`, `"manifest_link":"real-MANIFEST-000002"`, `"link":"real-000010.log"`, `"link":"real-000007.ldb"`} {
		if !strings.Contains(strings.ReplaceAll(js, " ", ""), want) {
			t.Errorf("JSON lacks %s\n%s", want, js)
		}
	}
}

// TestManyMissing: a MANIFEST listing 10,000 live tables that are all
// missing is checked in time linear in it (the MANIFEST read again once,
// not once a table: that took 53 s), every table named missing.
func TestManyMissing(t *testing.T) {
	dir := t.TempDir()
	var tables []manifesttest.Table
	for i := 0; i < 10000; i++ {
		tables = append(tables, manifesttest.Table{Level: 1 + i%6, Number: uint64(10 + i), Size: 1000})
	}
	if err := manifesttest.WriteDB(dir, 2, tables...); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	code, stdout, _ := runWithin(t, "verify", dir)
	took := time.Since(start)
	n := len(regexp.MustCompile(`(?m)^[^ ]+\.ldb: missing: `).FindAllString(stdout, -1))
	if code != verify.ExitError || n != 10000 || !strings.Contains(stdout, "Corruption: 10000 missing files") {
		t.Errorf("exit %d, %d missing; want %d and 10000 missing\n%.2000s", code, n, verify.ExitError, stdout)
	}
	if took > 10*time.Second {
		t.Errorf("took %v; want seconds", took)
	}
	t.Logf("took %v", took)
}

// TestLongKeyDump: dump of a table holding one 4 MiB key among short
// ones takes what a table of ordinary keys takes (each sample as long as
// the stored key it was drawn for took past a minute of 10,000 samples),
// and says how many samples were cut short.
func TestLongKeyDump(t *testing.T) {
	long := bytes.Repeat([]byte("k"), 4<<20)
	entries := []table.Entry{{Key: table.InternalKey{UserKey: []byte("a"), Seq: 1, Kind: table.KindValue}, Value: []byte("v")},
		{Key: table.InternalKey{UserKey: long, Seq: 2, Kind: table.KindValue}, Value: []byte("v")}}
	path := filepath.Join(t.TempDir(), "000005.ldb")
	writeFile(t, path, tabletest.Build(entries, tabletest.Options{Snappy: true, Policy: bloom.NewPolicy(10)}))
	start := time.Now()
	code, stdout, _ := runWithin(t, "dump", "--samples", "10000", path)
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("took %v; want seconds", took)
	}
	if want := "of 10000 absent keys, "; code != verify.ExitOK || !strings.Contains(stdout, want) || !strings.Contains(stdout, " of them cut to 1024 bytes") {
		t.Errorf("exit %d; want 0 and samples cut to 1024 bytes\n%s", code, stdout)
	}
	_, js, _ := runWithin(t, "dump", "--json", "--samples", "10000", path)
	if !regexp.MustCompile(`"shortened": *[1-9][0-9]*`).MatchString(js) {
		t.Errorf("JSON lacks shortened\n%s", js)
	}
}

// TestUnsearchableDatabase: a database directory readable but not
// searchable (r without x), as a user other than root, lists CURRENT but
// cannot look at it: a permission error, not a lost CURRENT file.
func TestUnsearchableDatabase(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root searches any directory")
	}
	dir := copyDB(t, "b1-bs128-none")
	if err := os.Chmod(dir, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	code, stdout, _ := runWithin(t, "verify", dir)
	if want := "CURRENT is there but cannot be looked at: permission denied"; code != verify.ExitError || !strings.Contains(stdout, want) || strings.Contains(stdout, "lost its CURRENT") {
		t.Errorf("exit %d; want %d and %q\n%s", code, verify.ExitError, want, stdout)
	}
}

// TestJSONKeepsBytes: names that are not valid UTF-8 (a database's
// directory, a table file's name, a comparator's name) keep every byte in
// the JSON, in hex beside the name, where the name itself has U+FFFD.
func TestJSONKeepsBytes(t *testing.T) {
	root := t.TempDir()
	db := filepath.Join(root, "db\xfe")
	copyTree(t, filepath.Join(fixtures, "b1-bs128-none"), db)
	named := filepath.Join(root, "t\xff.ldb")
	data, err := os.ReadFile(filepath.Join(db, "000007.ldb"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, named, data)
	cmpDB := filepath.Join(root, "cmp")
	if err := os.Mkdir(cmpDB, 0o755); err != nil {
		t.Fatal(err)
	}
	var w manifesttest.Log
	w.Add(new(manifesttest.Edit).Comparator("c\xff").B)
	w.Add(new(manifesttest.Edit).Counters(3, 1000, 100).B)
	writeFile(t, filepath.Join(cmpDB, "MANIFEST-000002"), w.Bytes())
	writeFile(t, filepath.Join(cmpDB, "CURRENT"), []byte("MANIFEST-000002\n"))
	link := filepath.Join(root, "link.ldb")
	if err := os.Symlink(named, link); err != nil {
		t.Fatal(err)
	}
	_, stdout, _ := runWithin(t, "verify", "--json", db, named, cmpDB, link)
	var out struct {
		Databases []struct {
			PathHex       string `json:"path_hex"`
			ComparatorHex string `json:"comparator_hex"`
			Tables        []struct {
				PathHex string `json:"path_hex"`
			}
		}
		Tables []struct {
			PathHex string `json:"path_hex"`
			LinkHex string `json:"link_hex"`
		}
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	unhex := func(s string) string {
		b, err := hex.DecodeString(s)
		if err != nil {
			t.Errorf("%q: %v", s, err)
		}
		return string(b)
	}
	if len(out.Databases) != 2 || len(out.Tables) != 2 || len(out.Databases[0].Tables) == 0 {
		t.Fatalf("want 2 databases, one with tables, and a table\n%s", stdout)
	}
	for _, c := range []struct{ hex, want string }{
		{out.Databases[0].PathHex, db},
		{out.Databases[0].Tables[0].PathHex, filepath.Join(db, "000007.ldb")},
		{out.Tables[0].PathHex, named},
		{out.Databases[1].ComparatorHex, "c\xff"},
		{out.Tables[1].LinkHex, named}, // where the link leads
	} {
		if got := unhex(c.hex); got != c.want {
			t.Errorf("hex %q is %q; want %q", c.hex, got, c.want)
		}
	}
	if out.Databases[1].PathHex != "" {
		t.Errorf("a valid UTF-8 path has path_hex %q", out.Databases[1].PathHex)
	}
}
