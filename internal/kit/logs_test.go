package kit

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/internal/crc"
	"github.com/ldbcompat/ldbcompat/internal/logfile"
)

// The log properties on ports with known mistakes: each caught, with its
// harm, and a correct port passing.

// logPort is a port with only log hooks (and the required NewPolicy).
func logPort(write func([][]byte) ([]byte, error), read func([]byte) ([][]byte, error)) Port {
	return Port{Name: "log port", NewPolicy: bloom.NewPolicy, WriteLog: write, ReadLog: read}
}

func refWrite(recs [][]byte) ([]byte, error) { return logfile.WriteLog(recs), nil }

func refRead(data []byte) ([][]byte, error) {
	recs, _, err := refReadLog(data)
	return recs, err
}

// mutantWriter is log::Writer with a mistake: when exactly 7 bytes are
// left in a block, zeros7 fills them with zeros instead of an empty FIRST
// fragment; unmasked stores the crc32c unmasked; padFF fills a block's
// trailer with 0xff instead of zeros.
type mutantWriter struct{ zeros7, unmasked, padFF bool }

func (m mutantWriter) write(recs [][]byte) ([]byte, error) {
	const B, H = logfile.BlockSize, logfile.HeaderSize
	var out []byte
	for _, rec := range recs {
		begin := true
		for {
			if left := B - len(out)%B; left < H || (m.zeros7 && left == H) {
				pad := byte(0)
				if m.padFF && left < H {
					pad = 0xff
				}
				out = append(out, bytes.Repeat([]byte{pad}, left)...)
			}
			n := min(len(rec), B-len(out)%B-H)
			end := n == len(rec)
			typ := byte(logfile.TypeMiddle)
			switch {
			case begin && end:
				typ = logfile.TypeFull
			case begin:
				typ = logfile.TypeFirst
			case end:
				typ = logfile.TypeLast
			}
			sum := crc.Extend(crc.Value([]byte{typ}), rec[:n])
			if !m.unmasked {
				sum = crc.Mask(sum)
			}
			out = binary.LittleEndian.AppendUint32(out, sum)
			out = binary.LittleEndian.AppendUint16(out, uint16(n))
			out = append(append(out, typ), rec[:n]...)
			rec, begin = rec[n:], false
			if end {
				break
			}
		}
	}
	return out, nil
}

// stopAtDamage reads a log with logfile's reader but gives up at the first
// drop or skip, returning the records before it, where upstream drops the
// damaged bytes and goes on.
func stopAtDamage(data []byte) ([][]byte, error) {
	damaged := false
	r := logfile.NewReader(bytes.NewReader(data), "log", logfile.Options{
		OnDrop: func(logfile.Drop) { damaged = true },
		OnSkip: func(logfile.Skip) { damaged = true },
	})
	var out [][]byte
	for {
		rec, err := r.Next()
		if damaged {
			return out, errors.New("log corrupt")
		}
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, bytes.Clone(rec.Data))
	}
}

// logResults runs the kit's log properties on p.
func logResults(t *testing.T, p Port) map[Property]PropertyResult {
	t.Helper()
	r := check(p, kitConfig{endToEndOnly: true, live: Live})
	for _, e := range r.Errors {
		t.Errorf("suite error: %s", e)
	}
	out := map[Property]PropertyResult{}
	for _, c := range r.Results {
		out[c.Property] = c
	}
	return out
}

// failureOf returns the failure of case name in c.
func failureOf(t *testing.T, c PropertyResult, name string) Failure {
	t.Helper()
	for _, f := range c.Failures {
		if f.Case == name {
			return f
		}
	}
	t.Fatalf("%s: no failure of case %s among %d", c.Property, name, len(c.Failures))
	return Failure{}
}

func TestLogPortPasses(t *testing.T) {
	rs := logResults(t, logPort(refWrite, refRead))
	for _, prop := range []Property{PropLogBytes, PropReadLog} {
		c := rs[prop]
		if c.Outcome != Pass || c.Cases < 20 || c.Uncompared > 0 {
			t.Errorf("%s: %s on %d cases (%d uncompared), want a pass: %v", prop, c.Outcome, c.Cases, c.Uncompared, c.Failures)
		}
	}
}

func TestLogSkippedWithoutHooks(t *testing.T) {
	rs := logResults(t, logPort(nil, nil))
	for _, prop := range []Property{PropLogBytes, PropReadLog} {
		if rs[prop].Outcome != Skip {
			t.Errorf("%s: %s without its hook, want skipped", prop, rs[prop].Outcome)
		}
	}
}

// TestLogZerosForEmptyFirst: a writer that zero-fills a block's last 7
// bytes instead of writing an empty FIRST fragment there is caught, and
// judged harmless: upstream's reader skips the zeros (type 0, length 0)
// and reads every record.
func TestLogZerosForEmptyFirst(t *testing.T) {
	rs := logResults(t, logPort(mutantWriter{zeros7: true}.write, refRead))
	c := rs[PropLogBytes]
	if c.Outcome != Fail {
		t.Fatalf("log bytes: %s, want a failure", c.Outcome)
	}
	for _, f := range c.Failures {
		if f.Harm != HarmBytesOnly {
			t.Errorf("%s: harm %s, want %s: %s", f.Case, f.Harm, HarmBytesOnly, f.Detail)
		}
	}
	f := failureOf(t, c, "log/left-7")
	for _, want := range []string{"block 0, offset 32761", "header checksum of physical record 1 (FIRST, length 0, of logical record 1)", "harmless", "reads every record"} {
		if !strings.Contains(f.Detail, want) {
			t.Errorf("detail lacks %q:\n%s", want, f.Detail)
		}
	}
	judge := "package logfile's reader (which follows upstream's log::Reader"
	if liveRan() {
		judge = "upstream's log::Reader (live"
	}
	if !strings.Contains(f.Detail, judge) {
		t.Errorf("detail does not name the reader that judged, %s:\n%s", judge, f.Detail)
	}
	if f.Repro != `WriteLog(compat.CaseRecords("log/left-7"))` {
		t.Errorf("reproducer %q", f.Repro)
	}
	w := mutantWriter{zeros7: true}
	if got, _ := w.write(CaseRecords("log/left-7")); bytes.Equal(got, logfile.WriteLog(CaseRecords("log/left-7"))) {
		t.Error("the reproducer's input does not show the difference")
	}
	if rs[PropReadLog].Outcome != Pass {
		t.Errorf("reads upstream's logs: %s, want a pass", rs[PropReadLog].Outcome)
	}
}

// TestLogTrailerPadding: a writer that pads a block's trailer with 0xff
// is caught at the trailer, and judged harmless: upstream's reader skips
// a block's last 6 bytes or fewer, whatever they hold.
func TestLogTrailerPadding(t *testing.T) {
	rs := logResults(t, logPort(mutantWriter{padFF: true}.write, nil))
	f := failureOf(t, rs[PropLogBytes], "log/left-3")
	if f.Harm != HarmBytesOnly || !strings.Contains(f.Detail, "block 0, offset 32765 (file offset 32765), the trailer padding of the block (its last 3 bytes") {
		t.Errorf("harm %s, detail:\n%s", f.Harm, f.Detail)
	}
}

// TestLogUnmaskedChecksums: a writer that stores checksums unmasked is
// harmful: upstream's reader drops every record as corrupt.
func TestLogUnmaskedChecksums(t *testing.T) {
	rs := logResults(t, logPort(mutantWriter{unmasked: true}.write, refRead))
	f := failureOf(t, rs[PropLogBytes], "log/read-write")
	if f.Harm != HarmFalseNegatives || !strings.Contains(f.Detail, "header checksum of physical record 0") || !strings.Contains(f.Detail, "4 missing") {
		t.Errorf("harm %s, detail:\n%s", f.Harm, f.Detail)
	}
	if !strings.HasPrefix(f.Repro, `WriteLog(compat.HexKeys("666f6f", "626172", "", "78787878"))`) {
		t.Errorf("reproducer %q", f.Repro)
	}
}

// TestLogReaderStopsAtDamage: a reader that stops at the first damaged
// record, where upstream drops the rest of that block and goes on, is
// caught as harmful: it misses records upstream recovers.
func TestLogReaderStopsAtDamage(t *testing.T) {
	rs := logResults(t, logPort(refWrite, stopAtDamage))
	c := rs[PropReadLog]
	if c.Outcome != Fail {
		t.Fatalf("reads upstream's logs: %s, want a failure", c.Outcome)
	}
	f := failureOf(t, c, "log/damaged/header-checksum")
	if f.Harm != HarmFalseNegatives || !strings.Contains(f.Effect, "writes are lost") {
		t.Errorf("harm %s, effect %q", f.Harm, f.Effect)
	}
	for _, want := range []string{"upstream's log::Reader returns 7", "ReadLog returns 1", "6 missing", "the port's error: log corrupt"} {
		if !strings.Contains(f.Detail, want) {
			t.Errorf("detail lacks %q:\n%s", want, f.Detail)
		}
	}
	if f.Repro != `ReadLog(compat.CaseLog("log/damaged/header-checksum"))` {
		t.Errorf("reproducer %q", f.Repro)
	}
	if got, _ := stopAtDamage(CaseLog("log/damaged/header-checksum")); len(got) != 1 {
		t.Errorf("the reproducer's log gives the broken reader %d records, want 1", len(got))
	}
	for _, f := range c.Failures {
		if !strings.HasPrefix(f.Case, "log/damaged/") {
			t.Errorf("a clean log fails: %s", f)
		}
	}
	if rs[PropLogBytes].Outcome != Pass {
		t.Errorf("log bytes: %s, want a pass", rs[PropLogBytes].Outcome)
	}
}

// TestLogReaderFailures: a reader failing on clean logs, and one
// returning records upstream's reader drops.
func TestLogReaderFailures(t *testing.T) {
	failing := func(data []byte) ([][]byte, error) {
		recs, err := refRead(data)
		if len(recs) > 3 {
			return recs[:3], errors.New("too many")
		}
		return recs, err
	}
	f := failureOf(t, logResults(t, logPort(nil, failing))[PropReadLog], "log/many-blocks")
	if f.Harm != HarmFails || !strings.Contains(f.Detail, "too many") {
		t.Errorf("failing reader: harm %s, detail:\n%s", f.Harm, f.Detail)
	}
	// A reader that ignores checksums returns the damaged record.
	lax := func(data []byte) ([][]byte, error) {
		var out [][]byte
		for pos := 0; pos+logfile.HeaderSize <= len(data); {
			if left := logfile.BlockSize - pos%logfile.BlockSize; left < logfile.HeaderSize {
				pos += left
				continue
			}
			n := int(binary.LittleEndian.Uint16(data[pos+4:]))
			if pos+logfile.HeaderSize+n > len(data) {
				break
			}
			if data[pos+6] == logfile.TypeFull {
				out = append(out, data[pos+logfile.HeaderSize:pos+logfile.HeaderSize+n])
			}
			pos += logfile.HeaderSize + n
		}
		return out, nil
	}
	f = failureOf(t, logResults(t, logPort(nil, lax))[PropReadLog], "log/damaged/payload")
	if f.Harm != HarmWrongAnswers || !strings.Contains(f.Detail, "is not record 0 of those upstream's reader returns") {
		t.Errorf("lax reader: harm %s, detail:\n%s", f.Harm, f.Detail)
	}
}

// TestLogPanics: a panicking hook fails its property.
func TestLogPanics(t *testing.T) {
	rs := logResults(t, logPort(func([][]byte) ([]byte, error) { panic("w") }, func([]byte) ([][]byte, error) { panic(errors.New("r")) }))
	for _, prop := range []Property{PropLogBytes, PropReadLog} {
		if c := rs[prop]; c.Outcome != Fail || c.Failures[0].Harm != HarmCrash {
			t.Errorf("%s: %s, want a crash", prop, c.Outcome)
		}
	}
}
