package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/internal/filtercheck"
	testfixtures "github.com/ldbcompat/ldbcompat/internal/fixtures"
	"github.com/ldbcompat/ldbcompat/internal/table"
	"github.com/ldbcompat/ldbcompat/internal/table/tabletest"
	"github.com/ldbcompat/ldbcompat/internal/verify"
)

const fixtures = "../../testdata/tables"

// runCmd runs the command in-process and returns its exit code and output.
func runCmd(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = run(args, &o, &e)
	return code, o.String(), e.String()
}

// copyDB copies the committed fixture database name into a fresh temporary
// directory and returns its path.
func copyDB(t *testing.T, name string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), name)
	copyTree(t, filepath.Join(fixtures, name), dst)
	return dst
}

// copyTree copies the directory src into dst, which it makes.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	if err := testfixtures.CopyDir(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
}

// firstTable returns the path of the first table in dir.
func firstTable(t *testing.T, dir string) string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dir, "*.ldb"))
	if len(m) == 0 {
		t.Fatalf("no tables in %s", dir)
	}
	return m[0]
}

// openTable opens the table file at path.
func openTable(t *testing.T, path string) (*table.Table, []byte) {
	t.Helper()
	data := tabletest.ReadFile(t, path)
	tb, err := table.Open(path, bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	return tb, data
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestUsage(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{[]string{"--help"}, 0, "ldbcompat verify [--json] [--paranoid] PATH...", ""},
		{[]string{"help"}, 0, "Verdicts and exit status", ""},
		{[]string{"help", "dump"}, 0, "Usage: ldbcompat dump", ""},
		{[]string{"help", "frob"}, verify.ExitUsage, "", `unknown command "frob"`},
		{nil, verify.ExitUsage, "", "Usage:"},
		{[]string{"frobnicate"}, verify.ExitUsage, "", "ldbcompat: unknown command \"frobnicate\"\nRun 'ldbcompat help' for usage.\n"},
		{[]string{"--frob"}, verify.ExitUsage, "", "ldbcompat: unknown command \"--frob\"\nRun 'ldbcompat help' for usage.\n"},
		{[]string{"verify"}, verify.ExitUsage, "", "no PATH given"},
		{[]string{"verify", "--bogus", "x"}, verify.ExitUsage, "", "flag provided but not defined: -bogus\nRun 'ldbcompat help verify' for usage."},
		{[]string{"verify", "-h"}, verify.ExitOK, "Usage: ldbcompat verify [--json] [--paranoid] PATH...", ""},
		{[]string{"verify", "--help"}, verify.ExitOK, "Usage: ldbcompat verify [--json] [--paranoid] PATH...", ""},
		{[]string{"dump", "--help"}, verify.ExitOK, "Usage: ldbcompat dump", ""},
		{[]string{"dump", "--samples", "-3", "x"}, verify.ExitUsage, "", "must not be negative"},
		{[]string{"version"}, verify.ExitOK, "verdicts follow upstream LevelDB 1.23; JSON schema 2", ""},
		{[]string{"--version"}, verify.ExitOK, "ldbcompat ", ""},
		{[]string{"version", "x"}, verify.ExitUsage, "", "takes no arguments"},
	} {
		code, stdout, stderr := runCmd(t, tc.args...)
		if code != tc.code || !strings.Contains(stdout, tc.stdout) || !strings.Contains(stderr, tc.stderr) {
			t.Errorf("ldbcompat %q: exit %d, stdout %q, stderr %q; want exit %d, stdout with %q, stderr with %q",
				tc.args, code, stdout, stderr, tc.code, tc.stdout, tc.stderr)
		}
	}
}

func TestVerifyFixtures(t *testing.T) {
	dbs, _ := filepath.Glob(filepath.Join(fixtures, "*.json"))
	if len(dbs) == 0 {
		t.Fatal("no fixtures")
	}
	var dirs []string
	for _, j := range dbs {
		dirs = append(dirs, copyDB(t, strings.TrimSuffix(filepath.Base(j), ".json")))
	}
	before := treeState(t, filepath.Dir(dirs[0]))
	time.Sleep(10 * time.Millisecond)
	code, stdout, stderr := runCmd(t, append([]string{"verify"}, dirs...)...)
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	line := regexp.MustCompile(`^\S+\.ldb: ok: leveldb\.BuiltinBloomFilter2, bits/key \d+(\.\.\d+)?, k \d+, \d+ filters?, \d+ keys; upstream uses the filter$`)
	dbLine := regexp.MustCompile(`^\S+: database: upstream opens it; MANIFEST-\d+, comparator leveldb\.BytewiseComparator, \d+ live tables?, 1 log to replay$`)
	// Upstream's Close leaves the log it opened last, empty.
	logLine := regexp.MustCompile(`^\S+\.log: replayed: empty, nothing to replay$`)
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	tables, dbLines, logLines := 0, 0, 0
	for _, l := range lines[:len(lines)-1] {
		switch {
		case l == "": // between databases
		case line.MatchString(l):
			tables++
		case dbLine.MatchString(l):
			dbLines++
		case logLine.MatchString(l):
			logLines++
		default:
			t.Errorf("line %q matches none of %v, %v, %v", l, line, dbLine, logLine)
		}
	}
	if dbLines != len(dirs) || logLines != len(dirs) {
		t.Errorf("%d database lines and %d log lines for %d databases", dbLines, logLines, len(dirs))
	}
	if want := fmt.Sprintf("%d tables: %d ok", tables, tables); lines[len(lines)-1] != want {
		t.Errorf("summary %q, want %q", lines[len(lines)-1], want)
	}
	if !strings.Contains(stdout, "b10-bs4096-snappy/000007.ldb: ok: leveldb.BuiltinBloomFilter2, bits/key 10, k 6,") {
		t.Errorf("no exact bits/key for the 10 bits/key fixture:\n%s", stdout)
	}
	if diff := diffState(before, treeState(t, filepath.Dir(dirs[0]))); diff != "" {
		t.Errorf("verify changed the databases:\n%s", diff)
	}
}

// TestVerifyReadOnly checks a database whose files and directory are
// read-only, as an operator's live database may be.
func TestVerifyReadOnly(t *testing.T) {
	dir := copyDB(t, "b5-bs1024-snappy")
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if err := os.Chmod(filepath.Join(dir, e.Name()), 0o444); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	if code, stdout, stderr := runCmd(t, "verify", dir); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
}

// verifyJSON is what the tests read of `verify --json`, flattened: the
// tables of every database, in order, then the tables named directly, and
// the filter's fields beside the table's (verifyJSONOf converts the
// document, whose shape is rawVerifyJSON).
type verifyJSON struct {
	Databases []dbJSON
	Tables    []flatTableJSON
	Errors    []struct {
		Path  string `json:"path"`
		Error string `json:"error"`
	}
	Summary struct {
		Tables             int            `json:"tables"`
		Verdicts           map[string]int `json:"verdicts"`
		Skipped            int            `json:"skipped_not_live"`
		NotTables          int            `json:"skipped_not_tables"`
		Databases          int            `json:"databases"`
		DatabasesNotOpened int            `json:"databases_not_opened"`
		PathErrors         int            `json:"path_errors"`
	}
	ExitCode int
}

// dbJSON is a database of `verify --json`.
type dbJSON struct {
	Path       string `json:"path"`
	Opens      bool   `json:"opened"`
	Status     string `json:"status"`
	Error      string `json:"error"`
	Kind       string `json:"kind"`
	Comparator string `json:"comparator"`
	LiveTables int    `json:"live_tables"`
	Detail     string `json:"detail"`
	Tables     []rawTableJSON
}

// rawVerifyJSON is the document `verify --json` prints, as far as the
// tests read it.
type rawVerifyJSON struct {
	Schema    int `json:"schema"`
	Databases []struct {
		dbJSON
		Tables []rawTableJSON `json:"tables"`
	} `json:"databases"`
	Tables     []rawTableJSON `json:"tables"`
	PathErrors []struct {
		Path  string `json:"path"`
		Error string `json:"error"`
	} `json:"path_errors"`
	Summary  json.RawMessage `json:"summary"`
	ExitCode int             `json:"exit_code"`
}

// paramsFields are a filter's params in `verify --json`.
type paramsFields struct {
	BitsPerKey    int `json:"bits_per_key"`
	MinBitsPerKey int `json:"min_bits_per_key"`
	MaxBitsPerKey int `json:"max_bits_per_key"`
	K             int `json:"k"`
}

// tableFields are a table's own fields in `verify --json`.
type tableFields struct {
	Path           string  `json:"path"`
	Verdict        string  `json:"verdict"`
	Detail         string  `json:"detail"`
	Error          string  `json:"error"`
	Status         string  `json:"status"`
	Offset         *int64  `json:"offset"`
	ManifestSize   *uint64 `json:"manifest_size"`
	FileSize       *int64  `json:"file_size"`
	DataBlocks     int     `json:"data_blocks"`
	Keys           int     `json:"keys"`
	FilterError    string  `json:"filter_error"`
	FalseNegatives *struct {
		Hash             string  `json:"hash"`
		Keys             int     `json:"keys"`
		Rejected         int     `json:"rejected"`
		FirstKey         string  `json:"first_key"`
		FirstBlockOffset *uint64 `json:"first_data_block_offset"`
	} `json:"false_negatives"`
}

// rawTableJSON is a table of `verify --json`.
type rawTableJSON struct {
	tableFields
	Filter *struct {
		Policy  string        `json:"policy"`
		Hash    string        `json:"hash"`
		Filters int           `json:"filters"`
		Params  *paramsFields `json:"params"`
		Diff    *struct {
			Offset              uint64 `json:"offset"`
			OffsetInFilterBlock int    `json:"offset_in_filter_block"`
			Stored              int    `json:"stored"`
			Rebuilt             int    `json:"rebuilt"`
		} `json:"diff"`
	} `json:"filter"`
}

// flatTableJSON is a table with its filter's fields beside its own.
type flatTableJSON struct {
	tableFields
	Policy, Hash   string
	Filters        int
	Params         *paramsFields
	DiffFileOffset *uint64
	Diff           *struct{ Offset, Stored, Rebuilt int }
}

// flat flattens a table.
func (r rawTableJSON) flat() flatTableJSON {
	f := flatTableJSON{tableFields: r.tableFields}
	if r.Filter != nil {
		f.Policy, f.Hash, f.Filters, f.Params = r.Filter.Policy, r.Filter.Hash, r.Filter.Filters, r.Filter.Params
		if d := r.Filter.Diff; d != nil {
			off := d.Offset
			f.DiffFileOffset = &off
			f.Diff = &struct{ Offset, Stored, Rebuilt int }{d.OffsetInFilterBlock, d.Stored, d.Rebuilt}
		}
	}
	return f
}

func verifyJSONOf(t *testing.T, args ...string) (int, verifyJSON, string) {
	t.Helper()
	code, stdout, stderr := runCmd(t, append([]string{"verify", "--json"}, args...)...)
	var raw rawVerifyJSON
	if err := json.Unmarshal([]byte(stdout), &raw); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, stdout)
	}
	if raw.Schema != verify.JSONSchema {
		t.Errorf("schema %d, want %d", raw.Schema, verify.JSONSchema)
	}
	v := verifyJSON{ExitCode: raw.ExitCode, Errors: raw.PathErrors}
	if err := json.Unmarshal(raw.Summary, &v.Summary); err != nil {
		t.Fatal(err)
	}
	for _, d := range raw.Databases {
		db := d.dbJSON
		db.Tables = d.Tables
		v.Databases = append(v.Databases, db)
		for _, tb := range d.Tables {
			v.Tables = append(v.Tables, tb.flat())
		}
	}
	for _, tb := range raw.Tables {
		v.Tables = append(v.Tables, tb.flat())
	}
	if v.ExitCode != code {
		t.Errorf("exit_code %d, exit status %d", v.ExitCode, code)
	}
	return code, v, stderr
}

// TestArgs checks that flags may follow paths and that "--" ends flags.
func TestArgs(t *testing.T) {
	dir := copyDB(t, "b16-bs128-snappy")
	if code, stdout, _ := runCmd(t, "verify", dir, "--json"); code != 0 || !strings.HasPrefix(stdout, "{") {
		t.Errorf("flag after path: exit %d, %q", code, stdout)
	}
	dash := filepath.Join(t.TempDir(), "-x.ldb")
	data, _ := os.ReadFile(firstTable(t, dir))
	writeFile(t, dash, data)
	wd := mustGetwd(t)
	if err := os.Chdir(filepath.Dir(dash)); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	if code, stdout, stderr := runCmd(t, "verify", "--json", "--", "-x.ldb", "-x.ldb"); code != 0 || strings.Count(stdout, `"path": "-x.ldb"`) != 2 {
		t.Errorf("paths after --: exit %d\n%s%s", code, stdout, stderr)
	}
}

func mustGetwd(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return wd
}

func TestVerifyJSON(t *testing.T) {
	dir := copyDB(t, "b10-bs4096-snappy")
	code, v, _ := verifyJSONOf(t, dir)
	if code != 0 || len(v.Tables) != 3 || v.Summary.Tables != 3 || v.Summary.Verdicts["ok"] != 3 || len(v.Databases) != 1 || !v.Databases[0].Opens {
		t.Fatalf("exit %d, %+v", code, v)
	}
	for _, tb := range v.Tables {
		if tb.Verdict != "ok" || tb.Policy != bloom.PolicyName || tb.Params == nil || tb.Params.BitsPerKey != 10 ||
			tb.Params.MinBitsPerKey != 10 || tb.Params.MaxBitsPerKey != 10 || tb.Params.K != 6 ||
			tb.Filters == 0 || tb.Keys == 0 || tb.DataBlocks == 0 || tb.Diff != nil || !strings.HasPrefix(tb.Path, dir) {
			t.Errorf("table %+v", tb)
		}
	}
	// The raw shape: key names a consumer may rely on.
	_, stdout, _ := runCmd(t, "verify", "--json", firstTable(t, dir))
	for _, key := range []string{`"tables"`, `"path"`, `"verdict": "ok"`, `"policy": "leveldb.BuiltinBloomFilter2"`, `"bits_per_key": 10`, `"k": 6`, `"filters"`, `"keys"`, `"summary"`, `"exit_code": 0`} {
		if !strings.Contains(stdout, key) {
			t.Errorf("JSON lacks %s:\n%s", key, stdout)
		}
	}
}

// tamper flips one bit in the first non-empty filter of the table at path
// and repairs the filter block's checksum, so the table still reads. It
// returns the offset of the flipped byte in the filter block and the file.
func tamper(t *testing.T, path string) (blockOff int, fileOff uint64) {
	t.Helper()
	tb, data := openTable(t, path)
	fh, ok := tb.FilterHandle()
	if !ok {
		t.Fatal("no filter block")
	}
	_, contents, _ := tb.FilterBlock()
	l, err := filtercheck.ParseLayout(contents)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range l.Filters {
		if f.Len > 1 {
			blockOff = f.Offset + 1
			break
		}
	}
	fileOff = fh.Offset + uint64(blockOff)
	data[fileOff] ^= 0x10
	tabletest.FixChecksum(data, fh)
	writeFile(t, path, data)
	return blockOff, fileOff
}

func TestVerifyTampered(t *testing.T) {
	dir := copyDB(t, "b10-bs4096-none")
	path := firstTable(t, dir)
	orig, _ := os.ReadFile(path)
	blockOff, fileOff := tamper(t, path)
	want := fmt.Sprintf("%s: mismatch: leveldb.BuiltinBloomFilter2, bits/key 10, k 6, ", path)
	v := verifyFirstDifference(t, dir, path, want, blockOff, fileOff, int(orig[fileOff]^0x10), int(orig[fileOff]))
	if tb := v.Tables[0]; v.Summary.Verdicts["mismatch"] != 1 || tb.FalseNegatives == nil || tb.FalseNegatives.Keys != tb.Keys {
		t.Errorf("JSON %+v, summary %+v", tb, v.Summary)
	}
}

// verifyFirstDifference runs verify, text and JSON, on dir, where the filter
// block of the table at path first differs from the one rebuilt at byte
// blockOff (file offset fileOff), stored against rebuilt, and checks what
// both say of it; want starts the table's line. It returns the JSON.
func verifyFirstDifference(t *testing.T, dir, path, want string, blockOff int, fileOff uint64, stored, rebuilt int) verifyJSON {
	t.Helper()
	code, stdout, stderr := runCmd(t, "verify", dir)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, want) {
		t.Errorf("output lacks %q:\n%s", want, stdout)
	}
	diff := fmt.Sprintf("; first difference at filter block byte %d: stored 0x%02x, rebuilt 0x%02x (file offset %d); ",
		blockOff, stored, rebuilt, fileOff)
	if !strings.Contains(stdout, diff) {
		t.Errorf("output lacks %q:\n%s", diff, stdout)
	}
	if !strings.Contains(stdout, "3 tables: 2 ok, 1 mismatch\n") {
		t.Errorf("summary wrong:\n%s", stdout)
	}
	code, v, _ := verifyJSONOf(t, path)
	if code != 1 || len(v.Tables) != 1 {
		t.Fatalf("JSON: exit %d, %+v", code, v)
	}
	tb := v.Tables[0]
	if tb.Verdict != "mismatch" || tb.Diff == nil || tb.Diff.Offset != blockOff || tb.Diff.Stored != stored ||
		tb.Diff.Rebuilt != rebuilt || tb.DiffFileOffset == nil || *tb.DiffFileOffset != fileOff {
		t.Errorf("JSON: %+v, diff %+v; want offset %d (file offset %d)", tb, tb.Diff, blockOff, fileOff)
	}
	return v
}

// TestVerifyErrors covers paths that are not tables or databases (an error
// on stderr), tables upstream cannot read (an unreadable verdict, with
// upstream's status, the file and the offset) and a database upstream
// cannot open: each exits 2.
func TestVerifyErrors(t *testing.T) {
	dir := copyDB(t, "b1-bs128-none")
	path := firstTable(t, dir)
	data, _ := os.ReadFile(path)

	truncated := filepath.Join(t.TempDir(), "000099.ldb")
	writeFile(t, truncated, data[:len(data)-7])
	noDB := t.TempDir()
	writeFile(t, filepath.Join(noDB, "000005.ldb"), data)
	noManifest := t.TempDir()
	writeFile(t, filepath.Join(noManifest, "CURRENT"), []byte("MANIFEST-000002\n"))
	notTable := filepath.Join(t.TempDir(), "CURRENT")
	writeFile(t, notTable, bytes.Repeat([]byte("MANIFEST-000002\n"), 2))
	badBlock := filepath.Join(t.TempDir(), "000100.ldb")
	bad := bytes.Clone(data)
	bad[10] ^= 0xff
	writeFile(t, badBlock, bad)

	for _, tc := range []struct {
		name string
		path string
		// Where the message is: "table" (a table's line), "database" (a
		// database's line) or "path" (stderr).
		where  string
		want   string
		status string // upstream's, for a table
	}{
		{"truncated", truncated, "table", fmt.Sprintf("unreadable: upstream cannot open it: Corruption: not an sstable (bad magic number); table %s: offset %d: not a LevelDB table: bad magic number", truncated, len(data)-7-8),
			"Corruption: not an sstable (bad magic number)"},
		{"not a database", noDB, "path", noDB + ": no LevelDB database in it or below it (a database is a directory with a CURRENT file; 1 directory searched); 1 table file outside any database: name it to check it", ""},
		{"database without a MANIFEST", noManifest, "database", "database: upstream cannot open it: Corruption: CURRENT points to a non-existent file", ""},
		{"missing", filepath.Join(noDB, "nope"), "path", "no such file or directory", ""},
		{"not a table", notTable, "skipped", notTable + ": skipped: not a table: its name does not end in .ldb or .sst, nor its contents in a table's magic number", ""},
		// Eight flipped bits: what upstream returns with the default
		// options cannot be told right or wrong; with paranoid checks
		// (TestParanoid) its scan fails.
		{"bad data block", badBlock, "table", "silent-corruption: data block 0 0+", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// An unreadable table or database is exit 2; a path that
			// could not be examined, or nothing to examine, exit 3.
			want := map[string]int{"table": verify.ExitError, "database": verify.ExitError, "path": verify.ExitPath, "skipped": verify.ExitPath}[tc.where]
			code, stdout, stderr := runCmd(t, "verify", tc.path)
			out := stdout
			if tc.where == "path" {
				out = stderr
			}
			if code != want || !strings.Contains(out, tc.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d and %q", code, stdout, stderr, want, tc.want)
			}
			code, v, _ := verifyJSONOf(t, tc.path)
			ok := code == want
			switch tc.where {
			case "table":
				if tc.status == "" {
					ok = ok && len(v.Tables) == 1 && v.Tables[0].Verdict == "silent-corruption" && v.Summary.Verdicts["silent-corruption"] == 1
					break
				}
				ok = ok && len(v.Tables) == 1 && v.Tables[0].Verdict == "unreadable" && v.Tables[0].Status == tc.status &&
					strings.Contains(v.Tables[0].Detail, v.Tables[0].Error) && v.Tables[0].Offset != nil && v.Summary.Verdicts["unreadable"] == 1
			case "database":
				ok = ok && len(v.Databases) == 1 && !v.Databases[0].Opens && v.Summary.DatabasesNotOpened == 1 && len(v.Tables) == 0
			case "path":
				ok = ok && len(v.Errors) == 1 && strings.Contains(v.Errors[0].Error, tc.want) && v.Summary.PathErrors == 1 && v.Summary.Tables == 0
			case "skipped":
				ok = ok && len(v.Tables) == 1 && v.Tables[0].Verdict == "skipped" && v.Summary.NotTables == 1 && v.Summary.Tables == 0
			}
			if !ok {
				t.Errorf("JSON: exit %d, %+v", code, v)
			}
		})
	}
	// A readable mismatch and an unreadable table: the unreadable one wins.
	tamper(t, path)
	if code, stdout, stderr := runCmd(t, "verify", dir, truncated); code != 2 || !strings.Contains(stdout, ": mismatch: ") || !strings.Contains(stdout, ", 1 mismatch, 1 unreadable\n") {
		t.Errorf("mismatch + unreadable: exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestVerifyFilterKinds covers tables without a filter, with an unknown
// policy, and with legacy filters written by either hash.
func TestVerifyFilterKinds(t *testing.T) {
	src := firstTable(t, filepath.Join(fixtures, "b10-bs4096-none"))
	tb, data := openTable(t, src)
	blocks, err := filtercheck.ReadKeys(tb)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	mk := func(name, policy string, filter []byte) string {
		out, err := tabletest.ReplaceFilter(data, policy, filter)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		writeFile(t, p, out)
		return p
	}
	unsigned := filtercheck.Build(blocks, bloom.NewLegacyPolicy(10, false))
	signed := filtercheck.Build(blocks, bloom.NewLegacyPolicy(10, true))
	if bytes.Equal(signed, unsigned) {
		t.Fatal("fixture keys do not tell the legacy hashes apart")
	}
	neither := bytes.Clone(signed)
	neither[3] ^= 0x40
	// A table whose keys end in ASCII: both hashes agree.
	var ascii []table.Entry
	for i := 0; i < 50; i++ {
		ascii = append(ascii, table.Entry{Key: table.InternalKey{UserKey: []byte(fmt.Sprintf("key%03d", i)), Seq: 1, Kind: table.KindValue}})
	}
	either := filepath.Join(dir, "either.ldb")
	writeFile(t, either, tabletest.Build(ascii, tabletest.Options{Policy: bloom.NewLegacyPolicy(10, true)}))

	for _, tc := range []struct {
		path string
		code int
		want string
	}{
		{mk("nofilter.ldb", "", nil), 0, "nofilter.ldb: no-filter: no filter block, 6 data blocks, 185 keys; upstream reads the table without a filter"},
		{mk("custom.ldb", "my.CustomFilter", []byte("whatever")), 0, `custom.ldb: other-filter: filter of another policy, "my.CustomFilter" (not checked), 6 data blocks, 185 keys; upstream, with its bloom filter policy, ignores it`},
		{mk("unsigned.ldb", bloom.LegacyPolicyName, unsigned), 0, "unsigned.ldb: old-filter: leveldb.BuiltinBloomFilter (unsigned hash: LevelDB v1.17 or older where char is unsigned, such as ARM; or a port that kept the old name, such as goleveldb), bits/key 10, k 6, "},
		{mk("signed.ldb", bloom.LegacyPolicyName, signed), 0, "signed.ldb: old-filter: leveldb.BuiltinBloomFilter (signed-char hash: LevelDB v1.17 or older on x86), bits/key 10, k 6"},
		{mk("neither.ldb", bloom.LegacyPolicyName, neither), 1, "neither.ldb: mismatch: leveldb.BuiltinBloomFilter (neither hash of LevelDB v1.4 to v1.17 reproduces it)"},
		{either, 0, "either.ldb: old-filter: leveldb.BuiltinBloomFilter (either hash: no key has a tail byte of 0x80 or more, where they differ)"},
		{mk("tail.ldb", bloom.PolicyName, append(bytes.Clone(unsigned), 0)), 1, "tail.ldb: mismatch: leveldb.BuiltinBloomFilter2"},
	} {
		code, stdout, stderr := runCmd(t, "verify", tc.path)
		if code != tc.code || !strings.Contains(stdout, tc.want) {
			t.Errorf("verify %s: exit %d, stdout %q, stderr %q; want exit %d and %q", filepath.Base(tc.path), code, stdout, stderr, tc.code, tc.want)
		}
		if legacy := strings.Contains(tc.want, bloom.LegacyPolicyName+" "); legacy != strings.Contains(stdout, "; LevelDB 1.18 and later ignore it (they look up leveldb.BuiltinBloomFilter2): every lookup of an absent key reads a data block") {
			t.Errorf("verify %s: legacy %v, but stdout %q", filepath.Base(tc.path), legacy, stdout)
		}
	}
	code, v, _ := verifyJSONOf(t, filepath.Join(dir, "signed.ldb"), filepath.Join(dir, "nofilter.ldb"))
	if code != 0 || v.Tables[0].Hash != "signed" || v.Tables[0].Verdict != "old-filter" || v.Tables[1].Verdict != "no-filter" || v.Summary.Verdicts["no-filter"] != 1 {
		t.Errorf("JSON: exit %d, %+v", code, v)
	}
}

func TestProgress(t *testing.T) {
	dir := copyDB(t, "b30-bs1024-none")
	old := progressThreshold
	progressThreshold = 1
	defer func() { progressThreshold = old }()
	code, _, stderr := runCmd(t, "verify", dir)
	if code != 0 || !strings.Contains(stderr, "verified 3/3 tables\n") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	progressThreshold = 100
	if _, _, stderr := runCmd(t, "verify", dir); stderr != "" {
		t.Errorf("progress for 3 tables: %q", stderr)
	}
}

func TestDump(t *testing.T) {
	dir := copyDB(t, "b10-bs4096-snappy")
	code, stdout, stderr := runCmd(t, "dump", "--samples", "2000", dir)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	for _, re := range []string{
		`(?m)^\S+000007\.ldb$`,
		`(?m)^  filter policy    leveldb\.BuiltinBloomFilter2 \(verify: ok\)$`,
		`(?m)^  implies          bits/key 10, k 6$`,
		`(?m)^  filter block     \d+ bytes at offset \d+; \d+ filters \(\d+ empty\), one per 2048 bytes of data-block offsets$`,
		`(?m)^  false positives  measured \d+\.\d{3}% \(\d+ of 2000 absent keys\); expected of LevelDB's probe scheme \d+\.\d{3}% \(simulated\); independent-hash formula \d+\.\d{3}%$`,
		`(?m)^  per filter       \d+ rows, listed with --filters$`,
	} {
		if !regexp.MustCompile(re).MatchString(stdout) {
			t.Errorf("dump output does not match %s:\n%s", re, stdout)
		}
	}
	// A row per filter with --filters, and only then.
	perFilter := regexp.MustCompile(`(?m)^       0  0\.\.2047 +\d+ +\d+   6 +\d+\.\d$`)
	if perFilter.MatchString(stdout) {
		t.Errorf("dump prints the filters' rows without --filters:\n%s", stdout)
	}
	if _, stdout, _ := runCmd(t, "dump", "--filters", "--samples", "2000", dir); !perFilter.MatchString(stdout) {
		t.Errorf("dump --filters output does not match %s:\n%s", perFilter, stdout)
	}

	code, stdout, _ = runCmd(t, "dump", "--json", "--samples", "3000", firstTable(t, dir))
	var v struct {
		Tables []struct {
			Verdict string `json:"verdict"`
			Layout  struct {
				BaseLg  int `json:"base_lg"`
				Filters []struct {
					Index, Offset, Bytes, Keys, K int
				} `json:"filters"`
			} `json:"layout"`
			FPR struct {
				Samples         int     `json:"samples"`
				Measured        float64 `json:"measured"`
				Expected        float64 `json:"expected"`
				IndependentHash float64 `json:"independent_hash"`
			} `json:"fpr"`
		} `json:"tables"`
		ExitCode int `json:"exit_code"`
	}
	if err := json.Unmarshal([]byte(stdout), &v); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if code != 0 || len(v.Tables) != 1 {
		t.Fatalf("exit %d, %s", code, stdout)
	}
	d := v.Tables[0]
	keys := 0
	for _, f := range d.Layout.Filters {
		keys += f.Keys
		if f.Bytes > 0 && f.K != 6 {
			t.Errorf("filter %+v: k != 6", f)
		}
	}
	if d.Verdict != "ok" || d.Layout.BaseLg != 11 || keys == 0 || d.FPR.Samples != 3000 || d.FPR.Measured > 0.05 || d.FPR.IndependentHash <= 0 ||
		d.FPR.Expected <= 0 || d.FPR.Measured > 2*d.FPR.Expected {
		t.Errorf("dump JSON %+v", d)
	}
}

func TestDumpSpecialTables(t *testing.T) {
	src := firstTable(t, filepath.Join(fixtures, "b5-bs1024-snappy"))
	_, data := openTable(t, src)
	out, err := tabletest.ReplaceFilter(data, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "000001.ldb")
	writeFile(t, p, out)
	code, stdout, _ := runCmd(t, "dump", p)
	if code != 0 || !strings.Contains(stdout, "no-filter: no filter block, ") {
		t.Errorf("no filter: exit %d\n%s", code, stdout)
	}
	// A malformed filter block (array offset past the block) behind a
	// valid checksum: reported, exit 1.
	out, err = tabletest.ReplaceFilter(data, bloom.PolicyName, append(binary.LittleEndian.AppendUint32([]byte{1, 2, 3}, 99), 11))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, p, out)
	code, stdout, _ = runCmd(t, "dump", p)
	if code != 1 || !strings.Contains(stdout, "offset array at 99") {
		t.Errorf("malformed filter: exit %d\n%s", code, stdout)
	}
}
