package cases

import (
	"bytes"
	"os"
	"testing"

	"github.com/ldbcompat/ldbcompat/internal/table"
)

// loadTableVectors reads the committed table vectors.
func loadTableVectors(t *testing.T) *TableVectors {
	t.Helper()
	v, err := LoadTableVectors(os.DirFS("../.."), VectorDir)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestTableVectorsRecovered: every table case's vector yields upstream's
// table (the reference writer reproduces each digest), and this module's
// reader reads every entry of it back.
func TestTableVectorsRecovered(t *testing.T) {
	v := loadTableVectors(t)
	for _, c := range TableCases() {
		data, err := v.Table(c)
		if err != nil {
			t.Errorf("%s: %v", c.Name, err)
			continue
		}
		entries, status, err := RefRead(data)
		if err != nil || status != "" || len(entries) != len(c.Keys) {
			t.Errorf("%s: internal/table reads upstream's table with status %q, error %v, %d of %d entries", c.Name, status, err, len(entries), len(c.Keys))
			continue
		}
		for i, e := range entries {
			if !bytes.Equal(e[0], c.Keys[i]) || !bytes.Equal(e[1], c.Values[i]) {
				t.Errorf("%s: entry %d differs", c.Name, i)
				break
			}
		}
	}
}

// TestDamagedTablesVerdict: on every damaged table, this module's reader
// (which judges a port's tables without C++) gives upstream's verdict:
// its status and the entries it returns.
func TestDamagedTablesVerdict(t *testing.T) {
	v := loadTableVectors(t)
	corrupt := 0
	for _, d := range DamagedTables() {
		data, want, err := v.Damaged(d)
		if err != nil {
			t.Errorf("%s: %v", d.Name, err)
			continue
		}
		entries, status, err := RefRead(data)
		if err != nil {
			t.Errorf("%s: %v", d.Name, err)
			continue
		}
		if got := NewTableVerdict(status, entries); got != want {
			t.Errorf("%s: internal/table %+v, upstream %+v", d.Name, got, want)
		}
		if want.Status != "" {
			corrupt++
		}
	}
	if corrupt == 0 || corrupt == len(DamagedTables()) {
		t.Errorf("upstream reports %d of %d damaged tables corrupt: the set should hold both kinds", corrupt, len(DamagedTables()))
	}
}

// TestSnappyTablesCompressed: upstream stored some data blocks of the
// snappy cases compressed (the build links snappy), so that reading them
// is checked.
func TestSnappyTablesCompressed(t *testing.T) {
	v := loadTableVectors(t)
	compressed := 0
	for _, c := range TableCases() {
		if !c.Snappy {
			continue
		}
		data, err := v.Table(c)
		if err != nil {
			t.Fatal(err)
		}
		tb, err := table.OpenBytes(c.Name, data, int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range tb.Index() {
			if data[e.Handle.Offset+e.Handle.Size] == table.SnappyCompression {
				compressed++
			}
		}
	}
	if compressed == 0 {
		t.Error("no data block of upstream's snappy tables is compressed")
	}
}
