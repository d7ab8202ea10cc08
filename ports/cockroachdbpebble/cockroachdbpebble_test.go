package cockroachdbpebble

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/sstable"
	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/ldbcompat/ldbcompat"
	"github.com/ldbcompat/ldbcompat/internal/cases"
	"github.com/ldbcompat/ldbcompat/internal/fixtures"
)

// files returns the regular files in dir, by name.
func files(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out, err := fixtures.ReadFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func tables(fs map[string][]byte) []string {
	var out []string
	for n := range fs {
		if strings.HasSuffix(n, ".sst") {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// TestWriteDBSameTables: WriteDB of the kit's database leaves the same
// files, and the same tables byte for byte, on two runs, so the report is
// the same from run to run. (The MANIFEST differs: pebble records when
// each table was made.)
func TestWriteDBSameTables(t *testing.T) {
	c := cases.DBCases()[0]
	a, b := t.TempDir(), t.TempDir()
	for _, dir := range []string{a, b} {
		if err := Port().WriteDB(dir, c.KVs, c.BitsPerKey); err != nil {
			t.Fatal(err)
		}
	}
	fa, fb := files(t, a), files(t, b)
	if na, nb := names(fa), names(fb); na != nb {
		t.Fatalf("files differ between runs: %s and %s", na, nb)
	}
	ts := tables(fa)
	if len(ts) == 0 {
		t.Fatal("WriteDB left no table")
	}
	for _, n := range ts {
		if !bytes.Equal(fa[n], fb[n]) {
			t.Errorf("table %s differs between runs (%d and %d bytes)", n, len(fa[n]), len(fb[n]))
		}
	}
}

func names(fs map[string][]byte) string {
	var out []string
	for n := range fs {
		out = append(out, n)
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

// TestTablesHoldPolicyFilters: each table pebble writes holds one filter,
// named "fullfilter." and the policy's name, whose bytes are what the
// adapter's CreateFilter makes of the table's keys: the policy the kit
// checks is the filter pebble writes, not a reconstruction.
func TestTablesHoldPolicyFilters(t *testing.T) {
	c := cases.DBCases()[0]
	dir := t.TempDir()
	if err := Port().WriteDB(dir, c.KVs, c.BitsPerKey); err != nil {
		t.Fatal(err)
	}
	p := newPolicy(c.BitsPerKey)
	keys := 0
	for _, name := range tables(files(t, dir)) {
		path := filepath.Join(dir, name)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		open := func() sstable.ReadableFile {
			f, err := vfs.Default.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			return f
		}
		rd, err := sstable.NewSimpleReadable(open())
		if err != nil {
			t.Fatal(err)
		}
		r, err := sstable.NewReader(context.Background(), rd, sstable.ReaderOptions{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		layout, err := r.Layout()
		r.Close()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(layout.Filter) != 1 || layout.Filter[0].Name != "fullfilter.rocksdb.BuiltinBloomFilter" {
			t.Fatalf("%s: filters %+v, want one named fullfilter.rocksdb.BuiltinBloomFilter", name, layout.Filter)
		}
		h := layout.Filter[0].Handle
		stored := data[h.Offset : h.Offset+h.Length]

		rd, err = sstable.NewSimpleReadable(open())
		if err != nil {
			t.Fatal(err)
		}
		kvs, _, _, err := sstable.ReadAll(rd, sstable.ReaderOptions{}, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var userKeys [][]byte
		for _, kv := range kvs {
			userKeys = append(userKeys, kv.K.UserKey)
		}
		keys += len(userKeys)
		if got := p.CreateFilter(userKeys, nil); !bytes.Equal(got, stored) {
			t.Errorf("%s: stored filter of %d bytes, CreateFilter of its %d keys %d bytes, or other bytes", name, len(stored), len(userKeys), len(got))
		}
	}
	if keys != len(c.KVs) {
		t.Errorf("the tables hold %d keys, WriteDB put %d", keys, len(c.KVs))
	}
}

// TestReaderRefusesLevelDBTables: pebble's table reader refuses every
// table of the databases upstream LevelDB 1.23 wrote (testdata/tables), so
// the adapter has no way to put a LevelDB filter block to it (the reason
// its Notes give for the filter block reader).
func TestReaderRefusesLevelDBTables(t *testing.T) {
	var n int
	err := fs.WalkDir(ldbcompat.TestData, "testdata/tables", func(path string, d fs.DirEntry, err error) error {
		if err != nil || !strings.HasSuffix(path, ".ldb") {
			return err
		}
		n++
		data, err := fs.ReadFile(ldbcompat.TestData, path)
		if err != nil {
			return err
		}
		tmp := filepath.Join(t.TempDir(), "000001.ldb")
		if err := os.WriteFile(tmp, data, 0o644); err != nil {
			return err
		}
		f, err := vfs.Default.Open(tmp)
		if err != nil {
			return err
		}
		rd, err := sstable.NewSimpleReadable(f)
		if err != nil {
			return err
		}
		r, err := sstable.NewReader(context.Background(), rd, sstable.ReaderOptions{})
		if err == nil {
			r.Close()
			t.Errorf("%s: pebble's sstable.NewReader reads upstream's table: the adapter could reach the filter block reader through it", path)
			return nil
		}
		if !strings.Contains(err.Error(), "properties block") {
			t.Errorf("%s: sstable.NewReader: %v; the adapter's note says it refuses for want of a properties block", path, err)
		}
		return rd.Close()
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no upstream table in testdata/tables")
	}
}
