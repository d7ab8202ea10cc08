package table_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/ldbcompat/ldbcompat/internal/fixtures"
	"github.com/ldbcompat/ldbcompat/internal/table"
	"github.com/ldbcompat/ldbcompat/internal/table/tabletest"
)

// fixtureDir holds the tables written by C++ LevelDB (internal/cmd/mkfixtures).
const fixtureDir = "../../testdata/tables"

// fixtureTable is one committed table and the options it was written with.
type fixtureTable struct {
	db   *fixtures.Info
	data []byte
	idx  int // index in db.Tables
}

// loadFixtures reads every committed table (tabletest.Fixtures).
func loadFixtures(t testing.TB) []fixtureTable {
	t.Helper()
	var all []fixtureTable
	for _, f := range tabletest.Fixtures(t, fixtureDir) {
		all = append(all, fixtureTable{db: f.DB, data: f.Data, idx: f.Index})
	}
	return all
}

func (f fixtureTable) name() string { return f.db.Name + "/" + f.db.Tables[f.idx].File }

func (f fixtureTable) open(t testing.TB) *table.Table {
	t.Helper()
	tb, err := table.Open(f.name(), bytes.NewReader(f.data), int64(len(f.data)))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return tb
}

// compareInternal orders internal keys as LevelDB's default comparator
// does: user keys ascending, then sequence numbers descending.
func compareInternal(a, b table.InternalKey) int {
	if c := bytes.Compare(a.UserKey, b.UserKey); c != 0 {
		return c
	}
	switch {
	case a.Seq > b.Seq:
		return -1
	case a.Seq < b.Seq:
		return 1
	}
	return 0
}

// TestFixtureTables reads every committed table and checks it against what
// mkfixtures recorded, and that the content covers what the fixtures are
// for.
func TestFixtureTables(t *testing.T) {
	var sawSnappy, sawHighByte, sawOddLen, sawBigValue, sawVersions, sawDeletion bool
	for _, f := range loadFixtures(t) {
		t.Run(f.name(), func(t *testing.T) {
			want := f.db.Tables[f.idx]
			sum := sha256.Sum256(f.data)
			if got := hex.EncodeToString(sum[:]); got != want.SHA256 {
				t.Fatalf("sha256 %s, recorded %s: fixture edited by hand?", got, want.SHA256)
			}
			tb := f.open(t)
			var blocks, snappyBlocks, entries, deletions int
			var prev *table.InternalKey
			versions := map[string]int{}
			err := tb.DataBlocks(func(b *table.DataBlock) error {
				blocks++
				if b.Compression == table.SnappyCompression {
					snappyBlocks++
				}
				for i := range b.Entries {
					e := &b.Entries[i]
					entries++
					if e.Key.Kind == table.KindDeletion {
						deletions++
						sawDeletion = true
					}
					if prev != nil && compareInternal(*prev, e.Key) >= 0 {
						t.Errorf("block %s: key %v not after %v", b.Handle, e.Key, *prev)
					}
					prev = &e.Key
					versions[string(e.Key.UserKey)]++
					if len(e.Key.UserKey)%4 != 0 {
						sawOddLen = true
					}
					for _, c := range e.Key.UserKey {
						if c >= 0x80 {
							sawHighByte = true
						}
					}
					if len(e.Value) > 2048 {
						sawBigValue = true
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range versions {
				if n > 1 {
					sawVersions = true
				}
			}
			sawSnappy = sawSnappy || snappyBlocks > 0
			if blocks != want.DataBlocks || snappyBlocks != want.SnappyBlocks || entries != want.Entries || deletions != want.Deletions {
				t.Errorf("blocks %d, snappy %d, entries %d, deletions %d; recorded %d, %d, %d, %d",
					blocks, snappyBlocks, entries, deletions, want.DataBlocks, want.SnappyBlocks, want.Entries, want.Deletions)
			}
			if blocks != tb.NumDataBlocks() {
				t.Errorf("DataBlocks visited %d blocks, NumDataBlocks = %d", blocks, tb.NumDataBlocks())
			}
			name, contents, ok := tb.FilterBlock()
			if !ok || name != want.FilterPolicy || len(contents) != want.FilterBlockSize {
				t.Errorf("FilterBlock = %q, %d bytes, %v; recorded %q, %d bytes", name, len(contents), ok, want.FilterPolicy, want.FilterBlockSize)
			}
		})
	}
	for what, saw := range map[string]bool{
		"snappy block": sawSnappy, "user key byte >= 0x80": sawHighByte, "key length not a multiple of 4": sawOddLen,
		"value > 2 KiB": sawBigValue, "several versions of a user key": sawVersions, "deletion": sawDeletion,
	} {
		if !saw {
			t.Errorf("no fixture has a %s", what)
		}
	}
}

// TestFixtureSeparators checks the separators Index gives against what
// upstream's TableBuilder writes into the index (table/table_builder.cc):
// for each data block, FindShortestSeparator from the block's last key
// towards the next block's first key, FindShortSuccessor of the last key
// after the last block. Either way a separator is an internal key at or
// after its block's last key and, but for the last block's, before the
// next block's first key.
func TestFixtureSeparators(t *testing.T) {
	multi := false
	for _, f := range loadFixtures(t) {
		tb := f.open(t)
		idx := tb.Index()
		if len(idx) > 1 {
			multi = true
		}
		var prevSep *table.InternalKey
		for i := range idx {
			b, err := tb.ReadDataBlock(i)
			if err != nil {
				t.Fatalf("%s: block %d: %v", f.name(), i, err)
			}
			if len(b.Entries) == 0 {
				t.Fatalf("%s: block %d holds no entry", f.name(), i)
			}
			if prevSep != nil && compareInternal(*prevSep, b.Entries[0].Key) >= 0 {
				t.Errorf("%s: separator %v of block %d not before block %d's first key %v", f.name(), *prevSep, i-1, i, b.Entries[0].Key)
			}
			sep, err := table.ParseInternalKey(idx[i].Separator)
			if err != nil {
				t.Fatalf("%s: separator %d (%q): %v", f.name(), i, idx[i].Separator, err)
			}
			if last := b.Entries[len(b.Entries)-1].Key; compareInternal(last, sep) > 0 {
				t.Errorf("%s: separator %v of block %d before its last key %v", f.name(), sep, i, last)
			}
			prevSep = &sep
		}
	}
	if !multi {
		t.Error("no fixture table has more than one data block")
	}
}
