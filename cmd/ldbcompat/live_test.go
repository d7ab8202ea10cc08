package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ldbcompat/ldbcompat/internal/manifest/manifesttest"
	"github.com/ldbcompat/ldbcompat/internal/table/tabletest"
	"github.com/ldbcompat/ldbcompat/internal/verify"
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
	if code != verify.ExitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for _, want := range []string{
		"000099.ldb: skipped: not listed in MANIFEST-000002, so upstream never reads it: a table LevelDB is still writing (if the database is open), or an obsolete one, which LevelDB deletes when it next opens the database",
		"000003.ldb: skipped: not listed in MANIFEST-000002",
		"backup.ldb: skipped: not a LevelDB table file name",
		fmt.Sprintf("%d tables: %d ok; 3 table files skipped (not live)\n", len(live), len(live)),
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	code, v, _ := verifyJSONOf(t, dir)
	if code != verify.ExitOK || v.Summary.Skipped != 3 || v.Summary.Tables != len(live) || v.Summary.Verdicts["ok"] != len(live) || len(v.Tables) != len(live)+3 {
		t.Fatalf("JSON: exit %d, %+v", code, v)
	}
	for _, tb := range v.Tables {
		skipped := strings.HasSuffix(tb.Path, "000099.ldb") || strings.HasSuffix(tb.Path, "000003.ldb") || strings.HasSuffix(tb.Path, "backup.ldb")
		if skipped != (tb.Verdict == "skipped") || (tb.Verdict != "skipped" && tb.Verdict != "ok") || (skipped && !strings.HasPrefix(tb.Detail, "not ")) {
			t.Errorf("table %s: verdict %q, detail %q", tb.Path, tb.Verdict, tb.Detail)
		}
	}
	code, stdout, _ = runCmd(t, "dump", dir)
	if code != verify.ExitOK || !strings.Contains(stdout, "000099.ldb\n  skipped: not listed in MANIFEST-000002") {
		t.Errorf("dump: exit %d\n%s", code, stdout)
	}
}

// TestVerifyLiveTableDamage: upstream reads a live table at the size its
// MANIFEST records. A live table that is missing is the missing verdict,
// and upstream cannot open the database (exit 2). A truncated table's
// footer lies past the end of the file: unreadable, with upstream's I/O
// error. Another valid table put in its place is read at the wrong size:
// unreadable. A table with bytes appended reads as it was written (the
// footer where the MANIFEST says): its verdict stands, with a note. The
// other tables are checked as usual.
func TestVerifyLiveTableDamage(t *testing.T) {
	sizes := func(size, want int) string {
		return regexp.QuoteMeta(fmt.Sprintf("the file has %d bytes, but MANIFEST-000002 records %d for table ", size, want)) + `\d+` +
			regexp.QuoteMeta(fmt.Sprintf(" (upstream opens it at %d bytes", want))
	}
	for _, tc := range []struct {
		name    string
		change  func(path string, data, other []byte)
		code    int
		want    func(path string, size, other int) string // the table's line, a regexp
		summary string
	}{
		{"missing", func(path string, _, _ []byte) { os.Remove(path) }, verify.ExitError, func(path string, size, _ int) string {
			return "^" + regexp.QuoteMeta(path+": missing: "+path+": missing: MANIFEST-000002 lists table ") + `\d+ \(level \d, ` + fmt.Sprint(size) +
				` bytes\) as live, and neither \d+\.ldb nor \d+\.sst is in .*; upstream cannot open the database \(Corruption: 1 missing files; e\.g\.: ` + regexp.QuoteMeta(path) + `\)$`
		}, "3 tables: 2 ok, 1 missing; 1 database upstream cannot open"},
		{"truncated", func(path string, data, _ []byte) { writeFile(t, path, data[:len(data)-10]) }, verify.ExitError, func(path string, size, _ int) string {
			return "^" + regexp.QuoteMeta(path+": unreadable: upstream cannot open it: IO error: "+path+": Invalid argument; table "+path) +
				fmt.Sprintf(`: offset %d: footer: 48 bytes at offset %d run past the end of the %d-byte file; `, size-48, size-48, size-10) + sizes(size-10, size) + `\)$`
		}, "3 tables: 2 ok, 1 unreadable"},
		{"replaced", func(path string, _, other []byte) { writeFile(t, path, other) }, verify.ExitError, func(path string, size, other int) string {
			return "^" + regexp.QuoteMeta(path+": unreadable: upstream cannot open it: ") + `.*; ` + sizes(other, size) + `.*\)$`
		}, "3 tables: 2 ok, 1 unreadable"},
		{"extended", func(path string, data, _ []byte) { writeFile(t, path, append(data, make([]byte, 10)...)) }, verify.ExitOK, func(path string, size, _ int) string {
			return "^" + regexp.QuoteMeta(path+": ok: ") + `.*; upstream uses the filter; note: ` + sizes(size+10, size) + `, ignoring the 10 after\)$`
		}, "3 tables: 3 ok"},
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
			want := regexp.MustCompile("(?m)" + tc.want(live[0], len(data), len(other)))
			code, stdout, stderr := runCmd(t, "verify", dir)
			if code != tc.code || !want.MatchString(stdout) || !strings.HasSuffix(stdout, "\n"+tc.summary+"\n") {
				t.Errorf("exit %d; want %d, %q and %v\nstdout:\n%s\nstderr:\n%s", code, tc.code, tc.summary, want, stdout, stderr)
			}
			code, v, _ := verifyJSONOf(t, dir)
			var tb *struct{ verdict string }
			for _, j := range v.Tables {
				if j.Path == live[0] {
					tb = &struct{ verdict string }{j.Verdict}
					if j.ManifestSize == nil || *j.ManifestSize != uint64(len(data)) {
						t.Errorf("JSON: manifest_size %v, want %d", j.ManifestSize, len(data))
					}
				}
			}
			if code != tc.code || tb == nil || !strings.Contains(tc.summary, "1 "+tb.verdict) && tb.verdict != "ok" {
				t.Errorf("JSON: exit %d, %+v", code, v)
			}
		})
	}
}

// TestVerifyBadManifest: when CURRENT or the MANIFEST cannot be read,
// upstream cannot open the database: its line says why (with upstream's
// status, the file and the offset), every table file in it is still
// checked at its own size, and the exit status is 2 whatever the tables.
func TestVerifyBadManifest(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(dir string)
		status string
		want   string
	}{
		{"checksum", func(dir string) {
			p := filepath.Join(dir, "MANIFEST-000002")
			b := tabletest.ReadFile(t, p)
			b[9] ^= 1 // in the first record's data
			writeFile(t, p, b)
		}, "Corruption: checksum mismatch", "MANIFEST-000002: offset 0: record checksum mismatch"},
		{"missing", func(dir string) { os.Remove(filepath.Join(dir, "MANIFEST-000002")) },
			"Corruption: CURRENT points to a non-existent file: NotFound: DIR/MANIFEST-000002: No such file or directory", "MANIFEST named by DIR/CURRENT: "},
		{"CURRENT without newline", func(dir string) { writeFile(t, filepath.Join(dir, "CURRENT"), []byte("MANIFEST-000002")) },
			"Corruption: CURRENT file does not end with newline", "CURRENT: offset 15: does not end with a newline"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyDB(t, "b1-bs128-none")
			tc.change(dir)
			writeFile(t, filepath.Join(dir, "000099.ldb"), []byte("not a table")) // read: no MANIFEST to skip it by
			live, _ := filepath.Glob(filepath.Join(dir, "*.ldb"))
			status := strings.ReplaceAll(tc.status, "DIR", dir)
			want := regexp.MustCompile("(?m)^" + regexp.QuoteMeta(dir+": database: upstream cannot open it: "+status+" (") +
				".*" + regexp.QuoteMeta(strings.ReplaceAll(tc.want, "DIR", dir)) + `.*` + regexp.QuoteMeta("); every table file in it is checked, at its own size") + "$")
			code, stdout, stderr := runCmd(t, "verify", dir)
			if code != verify.ExitError || !want.MatchString(stdout) || !strings.Contains(stdout, "000099.ldb: unreadable: upstream cannot open it: Corruption: file is too short to be an sstable; table ") ||
				!strings.Contains(stdout, fmt.Sprintf("%d tables: %d ok, 1 unreadable; 1 database upstream cannot open\n", len(live), len(live)-1)) {
				t.Errorf("exit %d; want 2 and %v\nstdout:\n%s\nstderr:\n%s", code, want, stdout, stderr)
			}
			os.Remove(filepath.Join(dir, "000099.ldb"))
			code, v, _ := verifyJSONOf(t, dir)
			if code != verify.ExitError || len(v.Databases) != 1 || v.Databases[0].Opens || v.Databases[0].Status != status ||
				!strings.Contains(v.Databases[0].Error, strings.ReplaceAll(tc.want, "DIR", dir)) || v.Summary.Verdicts["ok"] != len(live)-1 || v.Summary.DatabasesNotOpened != 1 {
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
	data := tabletest.ReadFile(t, src)
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
			openFile = func(path string) (verify.File, error) {
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
				if code != verify.ExitOK || !strings.Contains(stdout, want) || !strings.Contains(stdout, "1 table: 1 ok; 1 table file skipped (not live)\n") {
					t.Errorf("exit %d; want 0 and %q\nstdout:\n%s\nstderr:\n%s", code, want, stdout, stderr)
				}
				return
			}
			if code != verify.ExitError || !strings.Contains(stdout, "000009.ldb: unreadable: upstream cannot open it: NotFound: "+filepath.Join(db, "000009.ldb")+": No such file or directory; ") {
				t.Errorf("exit %d; want 2 and no such file\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
		})
	}
}
