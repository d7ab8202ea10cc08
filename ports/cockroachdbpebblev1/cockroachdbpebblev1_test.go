package cockroachdbpebblev1

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/internal/cases"
	"github.com/ldbcompat/ldbcompat/internal/table"
	"github.com/ldbcompat/ldbcompat/ports/internal/porttest"
)

// TestWriteDBSameTables: WriteDB leaves the same table files on every
// run, so the report is the same from run to run.
func TestWriteDBSameTables(t *testing.T) { porttest.SameTables(t, Port().WriteDB) }

// TestLevelDBFormatTable: a table pebble v1 writes in LevelDB's table
// format with its bloom filter is a LevelDB table (ldbcompat's reader,
// which reads as upstream does, opens it and reads every key in order)
// whose metaindex names the filter "fullfilter.rocksdb.BuiltinBloomFilter"
// and holds no "filter." entry: upstream, which looks up
// "filter.leveldb.BuiltinBloomFilter2" (table/table.cc, Table::ReadMeta),
// finds no filter in it, as the adapter's notes and MoveTables say.
func TestLevelDBFormatTable(t *testing.T) {
	c := cases.DBCases()[0]
	path := filepath.Join(t.TempDir(), "000005.ldb")
	if err := writeLevelDBTable(path, c.KVs, c.BitsPerKey); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tb, err := table.Open(path, bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatalf("ldbcompat's reader refuses pebble's LevelDB-format table: %v", err)
	}
	var names []string
	full := false
	for _, m := range tb.Metaindex() {
		names = append(names, m.Name)
		if m.Name == "fullfilter.rocksdb.BuiltinBloomFilter" {
			full = true
		}
		if strings.HasPrefix(m.Name, table.FilterPrefix) {
			t.Errorf("metaindex entry %q: a LevelDB filter block, which the notes say pebble v1 never writes", m.Name)
		}
	}
	if !full {
		t.Errorf("metaindex %q holds no fullfilter.rocksdb.BuiltinBloomFilter", names)
	}
	if _, _, ok := tb.FilterBlock(); ok {
		t.Errorf("upstream would read a filter block named %s in it", bloom.PolicyName)
	}
	n := 0
	var last []byte
	err = tb.DataBlocks(func(b *table.DataBlock) error {
		for _, e := range b.Entries {
			if n > 0 && bytes.Compare(e.Key.UserKey, last) <= 0 {
				t.Errorf("entry %d: key %x not after %x", n, e.Key.UserKey, last)
			}
			last = append(last[:0], e.Key.UserKey...)
			n++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != len(c.KVs) {
		t.Errorf("the table holds %d entries; %d keys were written", n, len(c.KVs))
	}
}
