package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ldbcompat/ldbcompat/internal/manifest/manifesttest"
)

// The committed databases' MANIFESTs are upstream's: which of their tables
// are live is LevelDB's word, and every table file in them is live.

// TestVerifyLiveTables: table files that are not live tables of the
// database (one LevelDB is writing, one it has yet to delete, a stray
// file) are skipped, not read; the live ones are checked.
func TestVerifyLiveTables(t *testing.T) {
	dir := copyDB(t, "b10-bs4096-none")
	live, _ := filepath.Glob(filepath.Join(dir, "*.ldb"))
	data, err := os.ReadFile(live[0])
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "000099.ldb"), data[:len(data)/2]) // being written
	writeFile(t, filepath.Join(dir, "000003.ldb"), data)               // obsolete
	writeFile(t, filepath.Join(dir, "backup.ldb"), data)               // not LevelDB's
	code, stdout, stderr := runCmd(t, "verify", dir)
	if code != exitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for _, want := range []string{
		"000099.ldb: skipped: not a live table of MANIFEST-000002: LevelDB is still writing it, or has yet to delete it",
		"000003.ldb: skipped: not a live table of MANIFEST-000002",
		"backup.ldb: skipped: not a LevelDB table file name",
		fmt.Sprintf("%d tables: %d ok, 0 mismatch, 0 without filter; 3 table files skipped (not live)", len(live), len(live)),
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	code, v, _ := verifyJSONOf(t, dir)
	if code != exitOK || v.Summary.Skipped != 3 || v.Summary.OK != len(live) || len(v.Tables) != len(live)+3 {
		t.Fatalf("JSON: exit %d, %+v", code, v)
	}
	for _, tb := range v.Tables {
		skipped := strings.HasSuffix(tb.Path, "000099.ldb") || strings.HasSuffix(tb.Path, "000003.ldb") || strings.HasSuffix(tb.Path, "backup.ldb")
		if skipped != (tb.Status == "skipped") || skipped != (tb.Reason != "") {
			t.Errorf("table %s: status %q, reason %q", tb.Path, tb.Status, tb.Reason)
		}
	}
	code, stdout, _ = runCmd(t, "dump", dir)
	if code != exitOK || !strings.Contains(stdout, "000099.ldb\n  skipped: not a live table of MANIFEST-000002") {
		t.Errorf("dump: exit %d\n%s", code, stdout)
	}
}

// TestVerifyLiveTableDamage: a live table that is missing is an error (exit
// 2) naming it and the MANIFEST. One whose size is not the one the MANIFEST
// records is still read: when that fails, the error says what the MANIFEST
// knows; when it reads (another valid table put in its place), its verdict
// is printed with a warning. The other tables are checked as usual.
func TestVerifyLiveTableDamage(t *testing.T) {
	sizeWarning := func(path string, size, want int, what string) string {
		return regexp.QuoteMeta(fmt.Sprintf("%d bytes, but MANIFEST-000002 records %d for table", size, want)) + ` \d+: ` + what +
			regexp.QuoteMeta("; LevelDB would not read it as it is")
	}
	for _, tc := range []struct {
		name   string
		change func(path string, data, other []byte)
		code   int
		want   func(path string, size, other int) string // stderr, a regexp
		ok     int                                       // tables ok
	}{
		{"missing", func(path string, _, _ []byte) { os.Remove(path) }, exitError, func(path string, size, _ int) string {
			return "ldbcompat: " + regexp.QuoteMeta(path) + `: missing: MANIFEST-000002 lists table \d+ \(level \d, ` + fmt.Sprint(size) + ` bytes\) as live; LevelDB cannot read this database`
		}, 2},
		{"truncated", func(path string, data, _ []byte) { writeFile(t, path, data[:len(data)-10]) }, exitError, func(path string, size, _ int) string {
			return "ldbcompat: table " + regexp.QuoteMeta(path) + `: offset \d+: not a LevelDB table: bad magic number.*; the file is ` +
				sizeWarning(path, size-10, size, fmt.Sprintf("truncated: it ends at offset %d", size-10))
		}, 2},
		{"extended", func(path string, data, _ []byte) { writeFile(t, path, append(data, make([]byte, 10)...)) }, exitError, func(path string, size, _ int) string {
			return "ldbcompat: table " + regexp.QuoteMeta(path) + `: offset \d+: not a LevelDB table: bad magic number.*; the file is ` +
				sizeWarning(path, size+10, size, fmt.Sprintf("10 bytes past offset %d, where the table ends", size))
		}, 2},
		{"replaced", func(path string, _, other []byte) { writeFile(t, path, other) }, exitOK, func(path string, size, other int) string {
			return "ldbcompat: warning: " + regexp.QuoteMeta(path) + ": " + sizeWarning(path, other, size, `(truncated|\d+ bytes past).*`)
		}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyDB(t, "b5-bs1024-snappy")
			live, _ := filepath.Glob(filepath.Join(dir, "*.ldb"))
			data, err := os.ReadFile(live[0])
			if err != nil {
				t.Fatal(err)
			}
			other, err := os.ReadFile(live[1])
			if err != nil || len(other) == len(data) {
				t.Fatalf("setup: %v, sizes %d %d", err, len(data), len(other))
			}
			tc.change(live[0], data, other)
			want := regexp.MustCompile(tc.want(live[0], len(data), len(other)))
			code, stdout, stderr := runCmd(t, "verify", dir)
			if code != tc.code || !want.MatchString(stderr) ||
				!strings.Contains(stdout, fmt.Sprintf("tables: %d ok", tc.ok)) {
				t.Errorf("exit %d; want %d, %d ok and %v\nstdout:\n%s\nstderr:\n%s", code, tc.code, tc.ok, want, stdout, stderr)
			}
			if tc.name == "replaced" {
				code, v, _ := verifyJSONOf(t, dir)
				if code != exitOK || v.Tables[0].Status != "ok" || !strings.Contains(v.Tables[0].Warning, "LevelDB would not read it as it is") {
					t.Errorf("JSON: exit %d, %+v", code, v.Tables[0])
				}
			}
		})
	}
}

// TestVerifyBadManifest: when the MANIFEST cannot be read, verify warns
// (naming the file and offset) and checks every table file, as it would
// a directory of tables; the tables decide the exit status.
func TestVerifyBadManifest(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(dir string)
		want   string
	}{
		{"checksum", func(dir string) {
			p := filepath.Join(dir, "MANIFEST-000002")
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			b[9] ^= 1 // in the first record's data
			writeFile(t, p, b)
		}, "MANIFEST-000002: offset 0: record checksum mismatch"},
		{"missing", func(dir string) { os.Remove(filepath.Join(dir, "MANIFEST-000002")) }, "MANIFEST named by " + "CURRENT-PATH" + ": "},
		{"CURRENT without newline", func(dir string) { writeFile(t, filepath.Join(dir, "CURRENT"), []byte("MANIFEST-000002")) }, "CURRENT: offset 15: does not end with a newline"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyDB(t, "b1-bs128-none")
			tc.change(dir)
			writeFile(t, filepath.Join(dir, "000099.ldb"), []byte("not a table")) // read: no MANIFEST to skip it by
			live, _ := filepath.Glob(filepath.Join(dir, "*.ldb"))
			want := regexp.MustCompile("ldbcompat: warning: " + regexp.QuoteMeta(dir+": cannot tell which tables are live, so every table file is checked: ") +
				".*" + regexp.QuoteMeta(strings.ReplaceAll(tc.want, "CURRENT-PATH", filepath.Join(dir, "CURRENT"))))
			code, stdout, stderr := runCmd(t, "verify", dir)
			if code != exitError || !want.MatchString(stderr) || !strings.Contains(stderr, "000099.ldb: offset 0: file is 11 bytes, too short for a table") ||
				!strings.Contains(stdout, fmt.Sprintf("%d tables: %d ok", len(live)-1, len(live)-1)) {
				t.Errorf("exit %d; want 2 (000099.ldb) and %v\nstdout:\n%s\nstderr:\n%s", code, want, stdout, stderr)
			}
			os.Remove(filepath.Join(dir, "000099.ldb"))
			code, v, _ := verifyJSONOf(t, dir)
			if code != exitOK || len(v.Warnings) != 1 || !strings.Contains(v.Warnings[0], tc.want[:10]) || v.Summary.OK != len(live)-1 {
				t.Errorf("JSON: exit %d, %+v", code, v)
			}
		})
	}
}

// TestVerifyTableDeletedMeanwhile: LevelDB deletes the tables a compaction
// replaced. One that vanishes while verify runs, and that the MANIFEST no
// longer lists when read again, is skipped; one that vanishes while still
// listed is an error.
func TestVerifyTableDeletedMeanwhile(t *testing.T) {
	src := firstTable(t, filepath.Join(fixtures, "b10-bs4096-none"))
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	size := uint64(len(data))
	for _, compacted := range []bool{true, false} {
		t.Run(fmt.Sprintf("compacted=%v", compacted), func(t *testing.T) {
			db := t.TempDir()
			if err := manifesttest.WriteDB(db, 2, manifesttest.Table{Level: 0, Number: 5, Size: size}, manifesttest.Table{Level: 1, Number: 9, Size: size}); err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(db, "000005.ldb"), data)
			writeFile(t, filepath.Join(db, "000009.ldb"), data)
			old := openFile
			t.Cleanup(func() { openFile = old })
			openFile = func(path string) (tableFile, error) {
				if filepath.Base(path) == "000009.ldb" {
					if compacted { // table 9 replaced by table 12
						writeFile(t, filepath.Join(db, "000012.ldb"), data)
						if err := manifesttest.WriteDB(db, 2, manifesttest.Table{Level: 0, Number: 5, Size: size}, manifesttest.Table{Level: 2, Number: 12, Size: size}); err != nil {
							t.Error(err)
						}
					}
					os.Remove(path)
				}
				return old(path)
			}
			code, stdout, stderr := runCmd(t, "verify", db)
			if compacted {
				want := "000009.ldb: skipped: LevelDB deleted it while it was being checked: no longer a live table of MANIFEST-000002"
				if code != exitOK || !strings.Contains(stdout, want) || !strings.Contains(stdout, "1 tables: 1 ok") {
					t.Errorf("exit %d; want 0 and %q\nstdout:\n%s\nstderr:\n%s", code, want, stdout, stderr)
				}
				return
			}
			if code != exitError || !strings.Contains(stderr, "000009.ldb: no such file or directory") {
				t.Errorf("exit %d; want 2 and no such file\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
		})
	}
}
