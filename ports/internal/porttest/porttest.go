// Package porttest holds checks the adapters' tests share.
package porttest

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ldbcompat/ldbcompat/internal/base"
	"github.com/ldbcompat/ldbcompat/internal/cases"
	"github.com/ldbcompat/ldbcompat/internal/manifest"
)

// SameTables runs writeDB twice on the kit's first database case and
// fails t unless both runs leave the same live tables, byte for byte: the
// kit's write check takes each table as a case, so a port whose tables
// depend on when its background work runs would give another report on
// every run. The live tables are those the MANIFEST lists, read as
// upstream reads it (the kit checks those only: a table left over, not yet
// deleted, is not read); every table file when upstream cannot read the
// MANIFEST.
func SameTables(t *testing.T, writeDB func(dir string, kvs [][2][]byte, bitsPerKey int) error) {
	t.Helper()
	c := cases.DBCases()[0]
	var runs [2]map[string][]byte
	for i := range runs {
		dir := t.TempDir()
		if err := writeDB(dir, c.KVs, c.BitsPerKey); err != nil {
			t.Fatal(err)
		}
		runs[i] = tableFiles(t, dir)
	}
	a, b := names(runs[0]), names(runs[1])
	if strings.Join(a, " ") != strings.Join(b, " ") {
		t.Fatalf("table files differ between runs: %v and %v", a, b)
	}
	if len(a) == 0 {
		t.Fatal("WriteDB left no table")
	}
	for _, n := range a {
		if !bytes.Equal(runs[0][n], runs[1][n]) {
			t.Errorf("table %s differs between runs (%d and %d bytes)", n, len(runs[0][n]), len(runs[1][n]))
		}
	}
}

func tableFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	var live map[uint64]bool
	if v, err := manifest.Read(dir); err == nil {
		live = map[uint64]bool{}
		for _, f := range v.Files {
			live[f.Number] = true
		}
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, e := range ents {
		n := e.Name()
		if !e.Type().IsRegular() || !base.HasTableExt(n) {
			continue
		}
		if num, typ, ok := base.ParseFileName(n); ok && typ == base.TableFile && live != nil && !live[num] {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		out[n] = data
	}
	return out
}

func names(m map[string][]byte) []string {
	var out []string
	for n := range m {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
