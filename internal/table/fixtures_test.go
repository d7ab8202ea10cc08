package table_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/internal/filtercheck"
	"github.com/ldbcompat/ldbcompat/internal/table"
)

// fixtureDir holds the tables written by C++ LevelDB (internal/cmd/mkfixtures).
const fixtureDir = "../../testdata/tables"

// fixtureInfo is the part of mkfixtures' <name>.json the tests use.
type fixtureInfo struct {
	Name        string `json:"name"`
	BitsPerKey  int    `json:"bits_per_key"`
	BlockSize   int    `json:"block_size"`
	Compression string `json:"compression"`
	Tables      []struct {
		File            string `json:"file"`
		Size            int64  `json:"size"`
		SHA256          string `json:"sha256"`
		DataBlocks      int    `json:"data_blocks"`
		SnappyBlocks    int    `json:"snappy_blocks"`
		Entries         int    `json:"entries"`
		Deletions       int    `json:"deletions"`
		FilterPolicy    string `json:"filter_policy"`
		FilterBlockSize int    `json:"filter_block_size"`
	} `json:"tables"`
}

// fixtureTable is one committed table and the options it was written with.
type fixtureTable struct {
	db   *fixtureInfo
	path string
	data []byte
	idx  int // index in db.Tables
}

func loadFixtures(t testing.TB) []fixtureTable {
	t.Helper()
	infos, err := filepath.Glob(filepath.Join(fixtureDir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(infos) == 0 {
		t.Fatalf("no fixtures in %s; run make fixtures", fixtureDir)
	}
	var all []fixtureTable
	for _, p := range infos {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		info := new(fixtureInfo)
		if err := json.Unmarshal(raw, info); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		for i, tb := range info.Tables {
			path := filepath.Join(fixtureDir, info.Name, tb.File)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, fixtureTable{db: info, path: path, data: data, idx: i})
		}
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

// TestFixtureRebuild rebuilds every committed table's filter block the way
// upstream's TableBuilder does and requires the stored bytes.
func TestFixtureRebuild(t *testing.T) {
	for _, f := range loadFixtures(t) {
		t.Run(f.name(), func(t *testing.T) {
			tb := f.open(t)
			_, stored, ok := tb.FilterBlock()
			if !ok {
				t.Fatal("no filter block")
			}
			got, err := filtercheck.Rebuild(tb, bloom.NewPolicy(f.db.BitsPerKey))
			if err != nil {
				t.Fatal(err)
			}
			if d := filtercheck.Compare(stored, got); d != nil {
				t.Fatalf("rebuilt filter block differs from the stored one at %v", d)
			}

			r, err := filtercheck.Check(tb)
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != filtercheck.StatusOK {
				t.Fatalf("Check: status %s, diff %v", r.Status, r.Diff)
			}
			p := r.Params
			wantK := bloom.NewPolicy(f.db.BitsPerKey).CreateFilter(nil, nil)[8]
			if !p.Consistent() || p.MinBitsPerKey > f.db.BitsPerKey || p.MaxBitsPerKey < f.db.BitsPerKey || p.K != int(wantK) {
				t.Errorf("Check inferred %v; written with bits/key %d, k %d", p, f.db.BitsPerKey, wantK)
			}
		})
	}
}

// TestFixtureNoFalseNegatives asks the stored filter block about every key
// of every table: none may be filtered out.
func TestFixtureNoFalseNegatives(t *testing.T) {
	for _, f := range loadFixtures(t) {
		t.Run(f.name(), func(t *testing.T) {
			tb := f.open(t)
			_, stored, _ := tb.FilterBlock()
			r := bloom.NewFilterBlockReader(bloom.NewPolicy(f.db.BitsPerKey), stored)
			n := 0
			err := tb.DataBlocks(func(b *table.DataBlock) error {
				for _, e := range b.Entries {
					n++
					if !r.KeyMayMatch(b.Handle.Offset, e.Key.UserKey) {
						t.Errorf("block %s: stored key %x filtered out", b.Handle, e.Key.UserKey)
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if n == 0 {
				t.Fatal("no keys")
			}
		})
	}
}
