package compat_test

import (
	"bytes"
	"testing"

	"github.com/ldbcompat/ldbcompat/compat"
	"github.com/ldbcompat/ldbcompat/internal/logfile"
)

// TestCaseLogInputs checks the log reproducers' inputs: the records of a
// case, its clean log as log::Writer writes them, a damaged log differing
// from the clean one, and a panic on an unknown name.
func TestCaseLogInputs(t *testing.T) {
	recs := compat.CaseRecords("log/read-write")
	if want := compat.HexKeys("666f6f", "626172", "", "78787878"); len(recs) != len(want) || !bytes.Equal(recs[3], want[3]) {
		t.Fatalf("CaseRecords(log/read-write) = %q", recs)
	}
	// log_test.cc ReadWrite's log: 4 headers and 10 bytes of data.
	if log := compat.CaseLog("log/read-write"); len(log) != 4*logfile.HeaderSize+10 || !bytes.Equal(log, logfile.WriteLog(recs)) {
		t.Errorf("CaseLog(log/read-write) = % x", log)
	}
	clean := logfile.WriteLog(compat.CaseRecords("log/damaged/header-checksum"))
	damaged := compat.CaseLog("log/damaged/header-checksum")
	if len(damaged) != len(clean) || bytes.Equal(damaged, clean) {
		t.Errorf("CaseLog of a damaged case: %d bytes, the clean log %d, equal %v", len(damaged), len(clean), bytes.Equal(damaged, clean))
	}
	defer func() {
		if recover() == nil {
			t.Error("CaseLog of an unknown case does not panic")
		}
	}()
	compat.CaseLog("log/none")
}
