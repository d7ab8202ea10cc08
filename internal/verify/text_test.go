package verify_test

import (
	"errors"
	"testing"

	"github.com/ldbcompat/ldbcompat/internal/logfile"
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
