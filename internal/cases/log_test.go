package cases_test

import (
	"bytes"
	"io"
	"io/fs"
	"path"
	"strings"
	"testing"

	"github.com/ldbcompat/ldbcompat"
	"github.com/ldbcompat/ldbcompat/internal/cases"
	"github.com/ldbcompat/ldbcompat/internal/logfile"
)

// readLog returns the records package logfile's reader, which follows
// log::Reader, returns from data.
func readLog(data []byte) ([][]byte, error) {
	r := logfile.NewReader(bytes.NewReader(data), "log", logfile.Options{NoDiagnosis: true})
	var out [][]byte
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, bytes.Clone(rec.Data))
	}
}

// TestLogVectors checks every log case against the committed vectors:
// logfile.WriteLog writes upstream's clean log (its digest), and
// logfile's reader returns from it, damaged or not, the records
// upstream's reader returned.
func TestLogVectors(t *testing.T) {
	vs, err := cases.LoadLogVectors(ldbcompat.TestData, cases.VectorDir)
	if err != nil {
		t.Fatal(err)
	}
	cs := cases.LogCases()
	if len(vs) != len(cs) {
		t.Errorf("%d log vectors, %d log cases", len(vs), len(cs))
	}
	damaged := 0
	for _, c := range cs {
		r, err := vs.Lookup(c)
		if err != nil {
			t.Error(err)
			continue
		}
		log := logfile.WriteLog(c.Records)
		if vs.Upstream(r, log) == nil {
			t.Errorf("%s: logfile.WriteLog's log (%s) is not upstream's (%s)", c.Name, cases.EncodeBytes(log), r.Out)
			continue
		}
		data, err := c.Damage(log)
		if err != nil {
			t.Fatal(err)
		}
		if c.Damaged() {
			damaged++
			if bytes.Equal(data, log) {
				t.Errorf("%s: the edits leave the log as it was", c.Name)
			}
		}
		recs, err := readLog(data)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		if got := cases.EncodeRecords(recs); got != r.Ans {
			t.Errorf("%s: logfile reads %s, upstream %s", c.Name, got, r.Ans)
		}
		if !c.Damaged() && len(recs) != len(c.Records) {
			t.Errorf("%s: upstream's reader returns %d of the %d records of its clean log", c.Name, len(recs), len(c.Records))
		}
	}
	if damaged < 20 {
		t.Errorf("only %d damaged log cases", damaged)
	}
}

// TestLogDamageOutside checks that an edit outside the log is an error.
func TestLogDamageOutside(t *testing.T) {
	c := cases.LogCase{Name: "x", Records: [][]byte{[]byte("foo")}, Edits: []cases.LogEdit{{Op: cases.EditXor, Frag: 1}}}
	if _, err := c.Damage(logfile.WriteLog(c.Records)); err == nil {
		t.Error("an edit of a second physical record of a log of one: no error")
	}
	c.Edits = []cases.LogEdit{{Op: cases.EditSet, Frag: -1, Off: 10}}
	if _, err := c.Damage(logfile.WriteLog(c.Records)); err == nil {
		t.Error("an edit at the end of the log: no error")
	}
}

// TestFindLog checks that log cases of each kind are found by their
// names.
func TestFindLog(t *testing.T) {
	all := append(cases.LogCases(), cases.LiveLogCases()...)
	for i, c := range all {
		if i%7 != 0 && i != len(all)-1 {
			continue // a sample: each lookup makes its kind's cases
		}
		if got, ok := cases.FindLog(c.Name); !ok || got.In() != c.In() {
			t.Errorf("FindLog(%q) = %q, %v", c.Name, got.Name, ok)
		}
	}
	if _, ok := cases.FindLog("log/none"); ok {
		t.Error("FindLog found a case that does not exist")
	}
}

// TestLogVectorsVerbatim records the log vectors with package logfile's
// writer and reader and compares them with the committed file line by
// line: the file logfile would write is upstream's.
func TestLogVectorsVerbatim(t *testing.T) {
	committed, err := fs.ReadFile(ldbcompat.TestData, path.Join(cases.VectorDir, cases.LogVectorFile))
	if err != nil {
		t.Fatal(err)
	}
	read := func(data []byte) ([][]byte, error) { return readLog(data) }
	data, err := cases.RecordLogVectors(logfile.WriteLog, read, cases.Provenance{})
	if err != nil {
		t.Fatal(err)
	}
	got, want := strings.Split(string(data), "\n"), strings.Split(string(committed), "\n")
	if len(got) != len(want) {
		t.Errorf("logfile records %d lines, upstream %d", len(got), len(want))
	}
	for i := 0; i < len(got) && i < len(want); i++ {
		if got[i] != want[i] && !strings.HasPrefix(want[i], "# ") {
			t.Errorf("%d: logfile and upstream differ:\n  upstream: %.300s\n  logfile:  %.300s", i+1, want[i], got[i])
		}
	}
}
