package verify

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/ldbcompat/ldbcompat/internal/logfile"
)

// reportOf is the report of a log whose bytes are data, its verdicts set
// under mode.
func reportOf(data []byte, mode Mode) *LogReport {
	l := &LogReport{Path: "/db/000007.log", Number: 7, Recovery: logfile.Recover(bytes.NewReader(data), "/db/000007.log", logfile.Options{})}
	l.setMode(mode)
	return l
}

// TestLogVerdicts: what the open does with logs written here (batchA: 22
// bytes, sequence 5, 2 ops at offset 0; batchB: 16 bytes, sequence 7, 1 op
// at offset 29), under each option set: db/log_reader.cc's drops and ends,
// DBImpl::RecoverLogFile's "log record too small" and MaybeIgnoreError
// (a drop or a malformed batch fails the open only with paranoid checks).
func TestLogVerdicts(t *testing.T) {
	const (
		opens     = "; upstream opens the database without them, saying so only in its info log"
		seqLost   = " (puts and deletes, by the sequence numbers of the writes around the damage)"
		recsLost  = " (records found in the bytes dropped)"
		flip      = "; one flipped bit explains it: bit 4 of the byte at offset 56, in the record's data (a single flipped bit points at memory or storage, not at the writer)"
		one       = "2 writes (1 record, 22 bytes) replayed"
		firstFlip = "; one flipped bit explains it: bit 0 of the byte at offset 21, in the record's data (a single flipped bit points at memory or storage, not at the writer)"
	)
	damagedDef := "1 write lost" + seqLost + "; 40027 bytes dropped in 2 places, the first at offset 29 (Corruption: checksum mismatch)" + flip + "; 3 writes (2 records, 39 bytes) replayed" + opens
	damagedPar := "Corruption: checksum mismatch (000007.log, offset 29)" + flip
	badDef := "0 writes lost" + recsLost + "; 1 write batch malformed, applied in part, the first at offset 29 (Corruption: WriteBatch has wrong count: 1 of 3 operations applied); 3 writes (2 records, 39 bytes) replayed" + opens
	badPar := "Corruption: WriteBatch has wrong count (000007.log, offset 29)"
	for _, tc := range []struct {
		name         string
		def, par     LogVerdict
		detail       string // under LevelDB's defaults, with paranoid checks' where it differs
		lost         int
		atLeast      bool
		paranoidStat string
	}{
		{"clean", Replayed, Replayed, "3 writes (2 records, 38 bytes) replayed", 0, false, ""},
		{"empty", Replayed, Replayed, "empty, nothing to replay", 0, false, ""},
		// A record cut short at the end: a write in progress, not a loss.
		{"torn", Replayed, Replayed, one + "; the last 9 bytes, at offset 29, are a record cut short by the end of the file: a write in progress, which upstream takes for the end of the log", 1, false, ""},
		// Sequence 9 after 5+2: the writes numbered 7 and 8 are missing.
		{"gap", WritesDropped, WritesDropped, "2 writes lost" + seqLost + "; 3 writes (2 records, 38 bytes) replayed" + opens, 2, false, ""},
		// The checksum fails in the big record's first fragment at 29: the
		// rest of block 0 (32768-29 bytes) and its last fragment (40020-32732
		// bytes) in block 1 are dropped; sequence 8 follows 7.
		{"damaged", WritesDropped, OpenFails, damagedDef + "; with paranoid checks: open-fails: " + damagedPar, 1, false, "Corruption: checksum mismatch"},
		// A zeroed header at 29: the rest of the block (7 bytes and batchB's
		// 23) skipped without a report, in either option set.
		{"hidden", WritesDropped, WritesDropped, "1 write lost" + recsLost + "; 30 bytes at offset 29 skipped unreported (a header of type 0, length 0: preallocated space), holding 1 record; " + one + opens, 1, false, ""},
		{"bad", WritesDropped, OpenFails, badDef + "; with paranoid checks: open-fails: " + badPar, 0, false, "Corruption: WriteBatch has wrong count"},
		// Bit 6 of batchB's length: it runs past the end of the file, and
		// flipped back it fits with its checksum: damage, not a write in progress.
		{"lenflip", WritesDropped, WritesDropped, "1 write lost" + recsLost + "; " + one + opens + "; the last 23 bytes, at offset 29, are a record cut short by the end of the file: a write in progress, which upstream takes for the end of the log", 1, false, ""},
		// A type 5 record ends reading (kEof): a whole record after it is lost.
		{"marker", WritesDropped, WritesDropped, "1 write lost" + recsLost + "; " + one + opens, 1, false, ""},
		{"markerjunk", Replayed, Replayed, one, 0, true, ""},
		// batchA's checksum fails: the whole block (both records) dropped.
		{"firstbad", WritesDropped, OpenFails, "2 writes lost" + recsLost + "; 52 bytes dropped in 1 place, the first at offset 0 (Corruption: checksum mismatch)" + firstFlip +
			"; 0 writes (0 records, 0 bytes) replayed" + opens + "; with paranoid checks: open-fails: Corruption: checksum mismatch (000007.log, offset 0)" + firstFlip, 2, false, "Corruption: checksum mismatch"},
		// Zeroes from 29 to the end of block 0 (nothing in them), then a
		// zeroed header at 32768 before batchB: only the second loses a record.
		{"twoskips", WritesDropped, WritesDropped, "1 write lost" + recsLost + "; 30 bytes at offset 32768 skipped unreported (a header of type 0, length 0: preallocated space), holding 1 record; " + one + opens, 1, false, ""},
	} {
		data := logScenarios()[tc.name]
		l := reportOf(data, Defaults)
		if l.Verdict != tc.def || l.verdictIn(Paranoid) != tc.par {
			t.Errorf("%s: verdicts %s, %s; want %s, %s", tc.name, l.Verdict, l.verdictIn(Paranoid), tc.def, tc.par)
		}
		wantOther := LogVerdict("")
		if tc.par != tc.def {
			wantOther = tc.par
		}
		if l.Other != wantOther {
			t.Errorf("%s: other %q, want %q", tc.name, l.Other, wantOther)
		}
		if got := l.Detail(); got != tc.detail {
			t.Errorf("%s: detail\n%s\nwant\n%s", tc.name, got, tc.detail)
		}
		if n, al := l.LostWrites(); n != tc.lost || al != tc.atLeast {
			t.Errorf("%s: lost %d, %v; want %d, %v", tc.name, n, al, tc.lost, tc.atLeast)
		}
		if got := l.ParanoidStatus(); got != tc.paranoidStat {
			t.Errorf("%s: paranoid status %q, want %q", tc.name, got, tc.paranoidStat)
		}
		if got, want := l.Line(), l.Path+": "+string(tc.def)+": "+tc.detail; got != want {
			t.Errorf("%s: line %q, want %q", tc.name, got, want)
		}
	}
}

// TestLogMalformedMiddle: a malformed batch between well-formed ones
// whose sequence numbers leave no gap: the loss is not explained by them.
func TestLogMalformedMiddle(t *testing.T) {
	l := reportOf(logScenarios()["badmid"], Defaults)
	if d := l.Detail(); l.Verdict != WritesDropped || !strings.Contains(d, "(records found in the bytes dropped)") || strings.Contains(d, "sequence numbers") {
		t.Errorf("%s: %s", l.Verdict, d)
	}
}

// TestLogUnread: a log that cannot be read (Recovery nil): every write in
// it lost with LevelDB's defaults, the open failing with paranoid checks.
func TestLogUnread(t *testing.T) {
	l := &LogReport{Path: "/db/000007.log", Err: errors.New("not a regular file"), Status: "IO error: /db/000007.log: not a regular file"}
	l.setMode(Paranoid)
	if l.Verdict != OpenFails || l.Other != WritesDropped || l.ParanoidStatus() != l.Status {
		t.Errorf("verdicts %s, %s; paranoid status %q", l.Verdict, l.Other, l.ParanoidStatus())
	}
	want := "the log cannot be read (not a regular file): the open fails: IO error: /db/000007.log: not a regular file; with LevelDB's default options: writes-dropped: the log cannot be read (not a regular file): upstream ignores it: every write in it is lost"
	if got := l.Detail(); got != want {
		t.Errorf("detail\n%s\nwant\n%s", got, want)
	}
	if n, al := l.LostWrites(); n != 0 || !al {
		t.Errorf("lost %d, %v; want 0, at least", n, al)
	}
	l.Status = ""
	if got, want := l.detailIn(Paranoid, OpenFails), "the log cannot be read (not a regular file): the open fails"; got != want {
		t.Errorf("without a status: %q, want %q", got, want)
	}
	j := logOf(l, Paranoid, OpenFails)
	if !j.OpenFails || j.Records != 0 || len(j.DropList) != 0 {
		t.Errorf("paranoid JSON %+v", j)
	}
	if j := logOf(l, Defaults, WritesDropped); j.OpenFails || j.Status != "" {
		t.Errorf("defaults JSON %+v", j)
	}
}

// TestLogJSON: a log's JSON form under each option set.
func TestLogJSON(t *testing.T) {
	l := reportOf(logScenarios()["damaged"], Defaults)
	j := logOf(l, Defaults, WritesDropped)
	if j.Records != 2 || j.Bytes != 39 || j.Writes != 3 || j.Drops != 2 || j.DroppedBytes != 40027 || j.FirstDropOffset == nil || *j.FirstDropOffset != 29 ||
		j.OpenFails || j.Status != "" || j.LostWrites != 1 || j.LostWritesAtLeast || len(j.DropList) != 2 || j.DropList[0].Flip == nil || j.TornOffset != nil || j.Options != Defaults.Name() {
		t.Errorf("defaults: %+v", j)
	}
	// Paranoid: the reader reads on through block 1's drop to the next
	// record before RecoverLogFile's loop sees the failed status.
	j = logOf(l, Paranoid, OpenFails)
	if j.Records != 1 || j.Writes != 2 || j.Drops != 2 || j.FirstDropOffset == nil || *j.FirstDropOffset != 29 || !j.OpenFails || j.Status != "Corruption: checksum mismatch" || j.Options != Paranoid.Name() {
		t.Errorf("paranoid: %+v", j)
	}
	// Replayed: nothing lost, though the torn record is counted as a record at the end.
	l = reportOf(logScenarios()["torn"], Defaults)
	j = logOf(l, Defaults, Replayed)
	if j.LostWrites != 0 || j.FirstDropOffset != nil || j.TornBytes != 9 || j.TornOffset == nil || *j.TornOffset != 29 {
		t.Errorf("torn: %+v", j)
	}
	l = reportOf(logScenarios()["firstbad"], Defaults)
	if j := logOf(l, Defaults, WritesDropped); j.FirstDropOffset == nil || *j.FirstDropOffset != 0 {
		t.Errorf("firstbad: %+v", j)
	}
	l = reportOf(logScenarios()["gap"], Paranoid)
	if j := logOf(l, Paranoid, WritesDropped); j.LostWrites != 2 || j.OpenFails || j.TornBytes != 0 {
		t.Errorf("gap: %+v", j)
	}
}

func logScenarios() map[string][]byte {
	big := batchOf(7, 1, testOp{key: "big", value: strings.Repeat("v", 40000)})
	damaged := logfile.WriteLog([][]byte{batchA, big, batchOf(8, 1, testOp{key: "d", value: "w"})})
	damaged[7+len(batchA)+7+20] ^= 0x10
	lenflip := logfile.WriteLog([][]byte{batchA, batchB})
	lenflip[7+len(batchA)+4] ^= 1 << 6
	firstbad := logfile.WriteLog([][]byte{batchA, batchB})
	firstbad[7+12+2] ^= 1 // batchA's first key
	twoskips := append(logfile.WriteLog([][]byte{batchA}), make([]byte, logfile.BlockSize-7-len(batchA)+7)...)
	return map[string][]byte{
		"firstbad":   firstbad,
		"badmid":     logfile.WriteLog([][]byte{batchA, batchOf(7, 3, testOp{key: "k", value: "v"}), batchOf(7, 1, testOp{key: "m"})}),
		"twoskips":   append(twoskips, physical(1, batchB)...),
		"clean":      logfile.WriteLog([][]byte{batchA, batchB}),
		"empty":      nil,
		"torn":       logfile.WriteLog([][]byte{batchA, batchB})[:7+len(batchA)+9],
		"gap":        logfile.WriteLog([][]byte{batchA, batchOf(9, 1, testOp{key: "c"})}),
		"damaged":    damaged,
		"hidden":     append(append(logfile.WriteLog([][]byte{batchA}), make([]byte, 7)...), physical(1, batchB)...),
		"bad":        logfile.WriteLog([][]byte{batchA, batchOf(7, 3, testOp{key: "k", value: "v"})}),
		"lenflip":    lenflip,
		"marker":     append(append(logfile.WriteLog([][]byte{batchA}), physical(5, nil)...), physical(1, batchB)...),
		"markerjunk": append(append(logfile.WriteLog([][]byte{batchA}), physical(5, nil)...), 1, 2, 3, 4),
	}
}
