package tabletest

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/ldbcompat/ldbcompat/internal/table"
)

// Fixture is one table of testdata/tables, written by C++ LevelDB through
// `make fixtures`, with the bits per key of its database's filter policy.
type Fixture struct {
	Name       string // database/file, such as "b10-bs4096-none/000007.ldb"
	BitsPerKey int
	Data       []byte
}

// Fixtures reads every table that <name>.json in dir (testdata/tables,
// relative to the calling test's package) lists, with the bits per key
// recorded there. It fails the test when there is none.
func Fixtures(t testing.TB, dir string) []Fixture {
	t.Helper()
	infos, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(infos) == 0 {
		t.Fatalf("no fixtures in %s; run make fixtures", dir)
	}
	var all []Fixture
	for _, p := range infos {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var info struct {
			Name       string `json:"name"`
			BitsPerKey int    `json:"bits_per_key"`
			Tables     []struct {
				File string `json:"file"`
			} `json:"tables"`
		}
		if err := json.Unmarshal(raw, &info); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		for _, tb := range info.Tables {
			data, err := os.ReadFile(filepath.Join(dir, info.Name, tb.File))
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, Fixture{Name: info.Name + "/" + tb.File, BitsPerKey: info.BitsPerKey, Data: data})
		}
	}
	return all
}

// Open opens the fixture's table.
func (f Fixture) Open(t testing.TB) *table.Table {
	t.Helper()
	tb, err := table.Open(f.Name, bytes.NewReader(f.Data), int64(len(f.Data)))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return tb
}
