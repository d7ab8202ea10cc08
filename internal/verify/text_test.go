package verify_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/ldbcompat/ldbcompat/internal/logfile"
	"github.com/ldbcompat/ldbcompat/internal/manifest"
	"github.com/ldbcompat/ldbcompat/internal/table"
	"github.com/ldbcompat/ldbcompat/internal/verify"
)

// TestEscape: each control byte, line or format character and byte of
// invalid UTF-8 is written as a Go string literal writes it, a backslash
// is doubled, and printable text, multi-byte letters included, is kept.
func TestEscape(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"plain name 000005.ldb ~", "plain name 000005.ldb ~"},
		// Each alone: the scan for something to escape must find it.
		{"\n", `\n`},
		{"\t", `\t`},
		{"\r", `\r`},
		{"\x00", `\x00`},
		{"\x1b", `\x1b`},
		{"\x1f", `\x1f`},
		{"\x7f", `\x7f`},
		{"\\", `\\`},
		{"\x80", `\x80`},
		{"\xff", `\xff`},
		{"\u0080", `\u0080`},
		{"\u009f", `\u009f`},
		{"\u2028", `\u2028`},
		{"\u2029", `\u2029`},
		{"\u202e", `\u202e`}, // right-to-left override, a format character
		{"\u200b", `\u200b`}, // zero width space, a format character
		// Kept as they are, around something escaped.
		{"a b\x1b[31m", `a b\x1b[31m`},
		{"é\n", "é" + `\n`},
		{"\u00a0\\", "\u00a0" + `\\`}, // no-break space: not a C1 control
		{"\u00ff\t", "\u00ff" + `\t`},
		{"\ufffd\xfe", "\ufffd" + `\xfe`}, // U+FFFD itself is valid UTF-8
		{"key\xc3", `key\xc3`},            // a sequence cut short
		{"日本\x01", "日本" + `\x01`},
	} {
		if got := verify.Escape(tc.in); got != tc.want {
			t.Errorf("Escape(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestSummaryAdd: each item is counted under what it is, and a table or
// log whose verdict with LevelDB's default options exits non-zero while
// the reports follow paranoid checks counts as harm with the defaults.
func TestSummaryAdd(t *testing.T) {
	var s verify.Summary
	db := &verify.Database{Dir: "db", Logs: []*verify.LogReport{
		// Reports that follow paranoid checks: harm with the defaults
		// only where the other verdict exits non-zero.
		{Mode: verify.Paranoid, Verdict: verify.OpenFails, Other: verify.WritesDropped, Recovery: &logfile.Recovery{}},
		{Mode: verify.Paranoid, Verdict: verify.OpenFails, Other: verify.WritesDropped, Recovery: &logfile.Recovery{}},
		{Mode: verify.Paranoid, Verdict: verify.OpenFails, Other: verify.Replayed, Recovery: &logfile.Recovery{}},
		{Mode: verify.Paranoid, Verdict: verify.Replayed, Other: "", Recovery: &logfile.Recovery{}},
		// Following the defaults, the other verdict is paranoid's.
		{Mode: verify.Defaults, Verdict: verify.Replayed, Other: verify.OpenFails, Recovery: &logfile.Recovery{}},
	}}
	s.Add(verify.Item{Database: db}, nil)
	s.Add(verify.Item{Database: &verify.Database{Dir: "bad", Err: errors.New("no CURRENT")}}, nil)
	s.Add(verify.Item{PathErr: errors.New("missing"), Path: "p"}, nil)
	s.Add(verify.Item{Note: "a link not followed", Path: "l"}, nil)
	s.Add(verify.Item{Table: &verify.Target{Path: "x"}}, &verify.TableReport{Path: "x", NotTable: true, Skipped: "not a table: a directory"})
	s.Add(verify.Item{Table: &verify.Target{Path: "y"}}, &verify.TableReport{Path: "y", Skipped: "not live"})
	for _, o := range []*verify.TableReport{
		{Mode: verify.Defaults, Verdict: verify.SilentCorruption}, // harm
		{Mode: verify.Defaults, Verdict: verify.Mismatch},         // harm
		{Mode: verify.Defaults, Verdict: verify.OK},
		{Mode: verify.Paranoid, Verdict: verify.Unreadable}, // not the defaults
		nil,
	} {
		s.Add(verify.Item{Table: &verify.Target{Path: "t"}}, &verify.TableReport{Path: "t", Mode: verify.Paranoid, Verdict: verify.BadChecksum, Other: o})
	}
	s.Add(verify.Item{Path: "nothing"}, nil)
	want := verify.Summary{
		Tables: 5, Verdicts: map[verify.Verdict]int{verify.BadChecksum: 5},
		Skipped: 1, NotTables: 1, Databases: 2, NotOpened: 1, PathErrors: 1,
		Logs: 5, LogVerdicts: map[verify.LogVerdict]int{verify.OpenFails: 3, verify.Replayed: 2},
		DefaultsHarm: 4,
	}
	if got := s.String(); got != want.String() {
		t.Errorf("summary %q, want %q", got, want.String())
	}
	if s.Tables != want.Tables || s.Skipped != want.Skipped || s.NotTables != want.NotTables ||
		s.Databases != want.Databases || s.NotOpened != want.NotOpened || s.PathErrors != want.PathErrors ||
		s.Logs != want.Logs || s.DefaultsHarm != want.DefaultsHarm ||
		len(s.Verdicts) != 1 || s.Verdicts[verify.BadChecksum] != 5 ||
		len(s.LogVerdicts) != 2 || s.LogVerdicts[verify.OpenFails] != 3 || s.LogVerdicts[verify.Replayed] != 2 {
		t.Errorf("summary %+v, want %+v", s, want)
	}
}

// TestSummaryLogs: log verdicts count toward the exit code and the line
// only where some log has them.
func TestSummaryLogs(t *testing.T) {
	s := verify.Summary{Databases: 1, Logs: 2, LogVerdicts: map[verify.LogVerdict]int{
		verify.Replayed: 1, verify.WritesDropped: 0, verify.OpenFails: 1}}
	if got, want := s.String(), "0 tables; 2 logs: 1 replayed, 1 open-fails"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if got := s.ExitCode(); got != verify.ExitError {
		t.Errorf("exit %d, want %d (a log the open fails on)", got, verify.ExitError)
	}
	s.LogVerdicts = map[verify.LogVerdict]int{verify.Replayed: 2, verify.OpenFails: 0}
	if got := s.ExitCode(); got != verify.ExitOK {
		t.Errorf("exit %d, want %d (every log replayed)", got, verify.ExitOK)
	}
}

// TestModeNames: the option sets as text and JSON name them.
func TestModeNames(t *testing.T) {
	for _, tc := range []struct {
		m          verify.Mode
		text, name string
	}{
		{verify.Defaults, "with LevelDB's default options", "defaults"},
		{verify.Paranoid, "with paranoid checks", "paranoid"},
	} {
		if got := tc.m.String(); got != tc.text {
			t.Errorf("%d.String() = %q, want %q", tc.m, got, tc.text)
		}
		if got := tc.m.Name(); got != tc.name {
			t.Errorf("%d.Name() = %q, want %q", tc.m, got, tc.name)
		}
	}
}

// TestDamageDetail: each block that fails its checksum is named with its
// handle and both checksums, separated by "; ", with the flipped bit that
// explains it where one does (the entry and its user key, or the restart
// point, it lies in); a report whose verdict is not about the damage says
// that upstream reads the blocks unchecked.
func TestDamageDetail(t *testing.T) {
	tag := []byte{1, 0, 0, 0, 0, 0, 0, 0} // an internal key's 8-byte tag
	rep := &verify.TableReport{Path: "t.ldb", Mode: verify.Defaults, Verdict: verify.NoFilter, DataBlocks: 1, Keys: 2, FileSize: -1,
		Damage: &verify.Damage{Blocks: []table.ChecksumFailure{
			{What: "data block 0", Handle: table.BlockHandle{Offset: 0, Size: 50}, Stored: 0xdeadbeef, Computed: 0x12345678,
				Site: &table.FlipSite{Offset: 7, Bit: 3, Field: table.FlipValue, Entry: 0, Key: append([]byte("k1"), tag...), Restart: -1}},
			{What: "data block 1", Handle: table.BlockHandle{Offset: 55, Size: 40}, Stored: 1, Computed: 2,
				Site: &table.FlipSite{Offset: 90, Bit: 0, Field: table.FlipRestart, Entry: -1, Restart: 0}},
			{What: "index block", Handle: table.BlockHandle{Offset: 100, Size: 20}, Stored: 3, Computed: 4,
				Site: &table.FlipSite{Offset: 101, Bit: 7, Field: table.FlipUnknown, Entry: -1, Restart: -1}},
			{What: "filter block", Handle: table.BlockHandle{Offset: 125, Size: 9}, Stored: 5, Computed: 6},
		}}}
	flip := " (a single flipped bit points at memory or storage, not at the writer)"
	want := "no filter block, 1 data block, 2 keys; upstream reads the table without a filter; " +
		"data block 0 0+50 fails its checksum (stored 0xdeadbeef, computed 0x12345678): one flipped bit explains it, bit 3 of the byte at offset 7, in the " +
		table.FlipValue.String() + " of entry 0 (key 6b31 as written)" + flip + "; " +
		"data block 1 55+40 fails its checksum (stored 0x00000001, computed 0x00000002): one flipped bit explains it, bit 0 of the byte at offset 90, in the " +
		table.FlipRestart.String() + " (restart point 0)" + flip + "; " +
		"index block 100+20 fails its checksum (stored 0x00000003, computed 0x00000004): one flipped bit explains it, bit 7 of the byte at offset 101, in the " +
		table.FlipUnknown.String() + flip + "; " +
		"filter block 125+9 fails its checksum (stored 0x00000005, computed 0x00000006), and no single flipped bit explains it" +
		"; with LevelDB's default options upstream reads them unchecked"
	if got := rep.Detail(); got != want {
		t.Errorf("Detail:\n got %q\nwant %q", got, want)
	}
}

// TestBadChecksumDetail: a table whose blocks fail their checksums but
// read as written says so, then what its filter is without the damage,
// then what upstream does under the other option set.
func TestBadChecksumDetail(t *testing.T) {
	rep := &verify.TableReport{Path: "t.ldb", Mode: verify.Defaults, Verdict: verify.BadChecksum, DataBlocks: 1, Keys: 1, FileSize: -1,
		Damage: &verify.Damage{Blocks: []table.ChecksumFailure{
			{What: "filter block", Handle: table.BlockHandle{Offset: 100, Size: 20}, Stored: 1, Computed: 2},
		}, Known: true, Entries: 1, Written: 1, Verdict: verify.NoFilter},
		Other: &verify.TableReport{Path: "t.ldb", Mode: verify.Paranoid, Verdict: verify.Unchecked, Err: errors.New("why")},
	}
	want := "filter block 100+20 fails its checksum (stored 0x00000001, computed 0x00000002), and no single flipped bit explains it" +
		"; with LevelDB's default options upstream reads it unchecked: its full scan returns 1 entry, every one as written, and every lookup finds its key" +
		"; the filter: no filter block, 1 data block, 1 key; upstream reads the table without a filter" +
		"; with paranoid checks: unchecked: not checked: why"
	if got := rep.Detail(); got != want {
		t.Errorf("Detail:\n got %q\nwant %q", got, want)
	}
	rep.Damage.Entries = 3
	rep.Damage.Verdict = ""
	rep.Other = nil
	want = "filter block 100+20 fails its checksum (stored 0x00000001, computed 0x00000002), and no single flipped bit explains it" +
		"; with LevelDB's default options upstream reads it unchecked: its full scan returns 3 entries, every one as written, and every lookup finds its key"
	if got := rep.Detail(); got != want {
		t.Errorf("Detail:\n got %q\nwant %q", got, want)
	}
}

// failWriter fails every write with its error.
type failWriter struct{ err error }

func (w failWriter) Write([]byte) (int, error) { return 0, w.err }

// TestTextWriterItem: a database's line and its logs' go to Out, a blank
// line before each database but the first; a path's error and a note go to
// Err after "ldbcompat: "; a table's line to Out; every line escaped.
func TestTextWriterItem(t *testing.T) {
	var out, errs strings.Builder
	w := &verify.TextWriter{Out: &out, Err: &errs}
	db := &verify.Database{Dir: "d\x1b", Status: "Corruption: x", Err: errors.New("bad\nCURRENT")}
	w.Item(verify.Item{Database: db}, nil)
	w.Item(verify.Item{PathErr: errors.New("p: no such file"), Path: "p"}, nil)
	w.Item(verify.Item{Note: "a link\tnot followed", Path: "l"}, nil)
	rep := &verify.TableReport{Path: "t\n.ldb", Skipped: "not live"}
	w.Item(verify.Item{Table: &verify.Target{Path: rep.Path}}, rep)
	w.Item(verify.Item{Database: &verify.Database{Dir: "e", Err: errors.New("gone")}}, nil)
	w.Item(verify.Item{Path: "nothing"}, nil)
	wantOut := `d\x1b: database: upstream cannot open it: Corruption: x (bad\nCURRENT); every table file in it is checked, at its own size` + "\n" +
		`t\n.ldb: skipped: not live` + "\n" +
		"\n" +
		"e: database: upstream cannot open it (gone); every table file in it is checked, at its own size\n"
	if out.String() != wantOut {
		t.Errorf("Out:\n got %q\nwant %q", out.String(), wantOut)
	}
	wantErr := "ldbcompat: p: no such file\n" + `ldbcompat: l: a link\tnot followed` + "\n"
	if errs.String() != wantErr {
		t.Errorf("Err:\n got %q\nwant %q", errs.String(), wantErr)
	}
	if err := w.WriteErr(); err != nil {
		t.Errorf("WriteErr() = %v after writes that succeeded", err)
	}
}

// TestTextWriterErr: WriteErr is the first error of the writes, through
// Line and through Stdout.
func TestTextWriterErr(t *testing.T) {
	first, second := errors.New("first"), errors.New("second")
	w := &verify.TextWriter{Out: failWriter{first}, Err: failWriter{second}}
	w.Line(w.Out, "a")
	w.Line(w.Err, "b")
	if err := w.WriteErr(); err != first {
		t.Errorf("WriteErr() = %v, want %v", err, first)
	}
	w = &verify.TextWriter{Out: failWriter{first}}
	if _, err := w.Stdout().Write([]byte("x")); err != first {
		t.Errorf("Stdout().Write: %v, want %v", err, first)
	}
	w.Out = failWriter{second}
	w.Stdout().Write([]byte("y"))
	if err := w.WriteErr(); err != first {
		t.Errorf("WriteErr() = %v, want %v", err, first)
	}
	var ok strings.Builder
	w = &verify.TextWriter{Out: &ok}
	if n, err := w.Stdout().Write([]byte("xyz")); n != 3 || err != nil || ok.String() != "xyz" || w.WriteErr() != nil {
		t.Errorf("Stdout().Write: %d, %v, wrote %q, WriteErr %v", n, err, ok.String(), w.WriteErr())
	}
}

// TestDatabaseDetail: what upstream does with a database, and what its
// MANIFEST records: the comparator (unless the default's status is given
// instead), the live tables, the logs to replay when there are any, and
// where CURRENT and the MANIFEST lead when they are links.
func TestDatabaseDetail(t *testing.T) {
	replayed := func() *verify.LogReport {
		return &verify.LogReport{Path: "d/000007.log", Recovery: &logfile.Recovery{}}
	}
	for _, tc := range []struct {
		db   verify.Database
		want string
	}{
		{verify.Database{Dir: "d", Manifest: "d/MANIFEST-000005", Version: &manifest.Version{}, Comparator: "leveldb.BytewiseComparator", Live: 2,
			Logs: []*verify.LogReport{replayed()}},
			"upstream opens it; MANIFEST-000005, comparator leveldb.BytewiseComparator, 2 live tables, 1 log to replay"},
		{verify.Database{Dir: "d", Manifest: "d/MANIFEST-000005", Version: &manifest.Version{}, Live: 1},
			"upstream opens it; MANIFEST-000005, no comparator recorded, 1 live table"},
		{verify.Database{Dir: "d", Manifest: "d/MANIFEST-000005", Version: &manifest.Version{}, Comparator: "my.cmp", DefaultStatus: "Invalid argument: x", Live: 0,
			ManifestLink: "/elsewhere/MANIFEST-000005", CurrentLink: "/elsewhere/CURRENT"},
			`upstream opens it with the application's comparator "my.cmp", which its MANIFEST records (with LevelDB's default comparator: Invalid argument: x); the tables' filters do not depend on the comparator` +
				"; MANIFEST-000005, 0 live tables; CURRENT is a symbolic link to /elsewhere/CURRENT; MANIFEST-000005 is a symbolic link to /elsewhere/MANIFEST-000005"},
		{verify.Database{Dir: "d", Err: errors.New("no CURRENT")},
			"upstream cannot open it (no CURRENT); every table file in it is checked, at its own size"},
	} {
		if got := tc.db.Detail(); got != tc.want {
			t.Errorf("Detail:\n got %q\nwant %q", got, tc.want)
		}
	}
}

// TestVerifyJSONItems: a table of a database added before it goes under
// that database, any other table at the top; path errors and notes in
// their lists; a skipped table has no option set, an examined one its
// own; a log whose verdict differs under the other option set has it.
func TestVerifyJSONItems(t *testing.T) {
	d1 := &verify.Database{Dir: "d1", Err: errors.New("x"), Logs: []*verify.LogReport{
		{Path: "d1/000003.log", Number: 3, Mode: verify.Defaults, Verdict: verify.Replayed, Recovery: &logfile.Recovery{}},
		{Path: "d1/000004.log", Number: 4, Mode: verify.Defaults, Verdict: verify.WritesDropped, Other: verify.OpenFails},
	}}
	d2 := &verify.Database{Dir: "d2"} // never added
	var j verify.VerifyJSON
	j.Add(verify.Item{Database: d1}, nil)
	j.Add(verify.Item{PathErr: errors.New("p: missing"), Path: "p"}, nil)
	j.Add(verify.Item{Note: "not followed", Path: "l"}, nil)
	in1 := &verify.TableReport{Path: "d1/000005.ldb", Mode: verify.Paranoid, Verdict: verify.Unchecked, Err: errors.New("why")}
	j.Add(verify.Item{Table: &verify.Target{Path: in1.Path, DB: d1}}, in1)
	in2 := &verify.TableReport{Path: "d2/000006.ldb", Skipped: "not live"}
	j.Add(verify.Item{Table: &verify.Target{Path: in2.Path, DB: d2}}, in2)
	named := &verify.TableReport{Path: "t.ldb", Skipped: "not live"}
	j.Add(verify.Item{Table: &verify.Target{Path: named.Path}}, named)
	var buf strings.Builder
	if err := j.Write(&buf, "tool", verify.Summary{}, 0); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Databases []struct {
			Tables []map[string]any
			Logs   []map[string]any
		}
		Tables     []map[string]any
		PathErrors []map[string]any `json:"path_errors"`
		Notes      []map[string]any
	}
	if err := json.Unmarshal([]byte(buf.String()), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Databases) != 1 || len(doc.Databases[0].Tables) != 1 || doc.Databases[0].Tables[0]["path"] != in1.Path {
		t.Fatalf("databases: %+v, want d1 with %s", doc.Databases, in1.Path)
	}
	if got := doc.Databases[0].Tables[0]["options"]; got != "paranoid" {
		t.Errorf("options of an examined table: %v, want paranoid", got)
	}
	if len(doc.Tables) != 2 || doc.Tables[0]["path"] != in2.Path || doc.Tables[1]["path"] != named.Path {
		t.Fatalf("tables: %+v, want %s and %s", doc.Tables, in2.Path, named.Path)
	}
	if o, ok := doc.Tables[0]["options"]; ok {
		t.Errorf("a skipped table has options %v", o)
	}
	if len(doc.PathErrors) != 1 || doc.PathErrors[0]["path"] != "p" || doc.PathErrors[0]["error"] != "p: missing" {
		t.Errorf("path_errors: %+v", doc.PathErrors)
	}
	if len(doc.Notes) != 1 || doc.Notes[0]["path"] != "l" || doc.Notes[0]["note"] != "not followed" {
		t.Errorf("notes: %+v", doc.Notes)
	}
	logs := doc.Databases[0].Logs
	if len(logs) != 2 {
		t.Fatalf("logs: %+v", logs)
	}
	if o, ok := logs[0]["other_options"]; ok {
		t.Errorf("log replayed under both option sets has other_options %v", o)
	}
	o, _ := logs[1]["other_options"].(map[string]any)
	if o == nil || o["options"] != "paranoid" || o["verdict"] != string(verify.OpenFails) || logs[1]["options"] != "defaults" {
		t.Errorf("log 4: %+v, want other_options under paranoid: open-fails", logs[1])
	}
}

// TestLogFlipDetail: a log that fails the open names the status, the file
// and the offset, with the flipped bit that explains the drop at that
// offset, not another's.
func TestLogFlipDetail(t *testing.T) {
	l := &verify.LogReport{Path: "d/000003.log", Mode: verify.Paranoid, Verdict: verify.OpenFails, Recovery: &logfile.Recovery{
		Paranoid: logfile.Outcome{Failed: true, Status: "Corruption: checksum mismatch", FailOffset: 32768, FirstDrop: 32768},
		Defaults: logfile.Outcome{FirstDrop: -1},
		Drops: []logfile.Drop{
			{Offset: 7, Start: 7, Status: "Corruption: bad record length", Flip: &logfile.Flip{Field: logfile.FlipLength, Offset: 11, Bit: 1}},
			{Offset: 32768, Start: 32768, Status: "Corruption: checksum mismatch", Flip: &logfile.Flip{Field: logfile.FlipData, Offset: 32790, Bit: 5}},
		},
	}}
	want := "Corruption: checksum mismatch (000003.log, offset 32768); one flipped bit explains it: bit 5 of the byte at offset 32790, in the record's " +
		logfile.FlipData.String() + " (a single flipped bit points at memory or storage, not at the writer)"
	if got := l.Detail(); got != want {
		t.Errorf("Detail:\n got %q\nwant %q", got, want)
	}
}
