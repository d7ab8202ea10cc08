package compat

import (
	"bytes"
	"testing"

	"github.com/ldbcompat/ldbcompat/internal/table"
)

// TestCaseTableInputs: the inputs a table reproducer names are the kit's:
// upstream's table for a case holds exactly CaseEntries, and a damaged
// copy differs from it.
func TestCaseTableInputs(t *testing.T) {
	const name = "table/bs1024-r16-none-b10"
	entries := CaseEntries(name)
	data := CaseTable(name)
	tb, err := table.OpenBytes(name, data, int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	i := 0
	err = tb.Scan(func(e table.ScanEntry) error {
		if i >= len(entries) || !bytes.Equal(e.Key, entries[i].Key) || !bytes.Equal(e.Value, entries[i].Value) {
			t.Fatalf("entry %d of upstream's table is not CaseEntries' entry %d", i, i)
		}
		i++
		return nil
	})
	if err != nil || i != len(entries) || i == 0 {
		t.Fatalf("read %d of %d entries: %v", i, len(entries), err)
	}
	damaged := CaseTable(name + "/damaged-data1-at7-bit3")
	if len(damaged) != len(data) || bytes.Equal(damaged, data) {
		t.Errorf("the damaged copy is %d bytes, upstream's %d, equal %v", len(damaged), len(data), bytes.Equal(damaged, data))
	}
}
