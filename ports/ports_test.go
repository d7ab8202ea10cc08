package ports

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/compat"
	"github.com/ldbcompat/ldbcompat/internal/table"
	"github.com/ldbcompat/ldbcompat/ports/internal/sstcraft"
)

// TestCraftedTable: the tables made around a filter block are valid
// LevelDB tables holding that block under its name and one index entry
// pointing at the offset asked (only offsets inside the file here: the
// strict reader checks that the data block lies in it).
func TestCraftedTable(t *testing.T) {
	block := []byte{1, 2, 3, 4, 0, 0, 0, 0, 4, 0, 0, 0, 11}
	for _, off := range []uint64{0, 1, 7} {
		file := sstcraft.Table("TestHashFilter", block, off)
		tb, err := table.Open("crafted", bytes.NewReader(file), int64(len(file)))
		if err != nil {
			t.Fatalf("offset %d: %v", off, err)
		}
		name, got, ok := tb.FilterBlock()
		if !ok || name != "TestHashFilter" || !bytes.Equal(got, block) {
			t.Errorf("offset %d: filter block %q %x, want TestHashFilter %x", off, name, got, block)
		}
		if ix := tb.Index(); len(ix) != 1 || ix[0].Handle.Offset != off || !bytes.Equal(ix[0].Separator, sstcraft.IndexKey) {
			t.Errorf("offset %d: index %+v", off, ix)
		}
	}
}

// TestReadersThroughTables: on a well-formed block whose filters are all
// non-empty, each adapter's reader, reached through the port's table
// reader, answers as upstream's reader does (package bloom): the harness
// itself adds no difference.
func TestReadersThroughTables(t *testing.T) {
	keys := map[uint64][]string{0: {"foo", "bar"}, 2048: {"box"}, 5000: {"hello", "world", "x"}}
	for _, p := range []bloom.FilterPolicy{compat.TestHashPolicy{}, bloom.NewPolicy(10)} {
		b := bloom.NewFilterBlockBuilder(p)
		for _, off := range []uint64{0, 2048, 5000} {
			b.StartBlock(off)
			for _, k := range keys[off] {
				b.AddKey([]byte(k))
			}
		}
		block := append([]byte(nil), b.Finish()...)
		want := bloom.NewFilterBlockReader(p, block)
		for _, a := range Adapters() {
			port := a.Port()
			if port.NewFilterBlockReader == nil {
				continue
			}
			r := port.NewFilterBlockReader(p, block)
			for _, off := range []uint64{0, 1, 2047, 2048, 4095, 5000, 6143, 1 << 30} {
				for _, k := range []string{"foo", "bar", "box", "hello", "world", "x", "absent", ""} {
					if got, w := r.KeyMayMatch(off, []byte(k)), want.KeyMayMatch(off, []byte(k)); got != w {
						t.Errorf("%s, policy %s: KeyMayMatch(%d, %q) = %v, upstream %v", a.Module, p.Name(), off, k, got, w)
					}
				}
			}
		}
	}
}

// TestPolicies: each adapter's policy finds the keys it filtered and
// appends to dst.
func TestPolicies(t *testing.T) {
	var keys [][]byte
	for i := range 100 {
		keys = append(keys, []byte(fmt.Sprintf("key%d", i)))
	}
	for _, a := range Adapters() {
		p := a.Port().NewPolicy(10)
		f := p.CreateFilter(keys, []byte("prefix"))
		if !bytes.HasPrefix(f, []byte("prefix")) {
			t.Errorf("%s: CreateFilter does not append to dst", a.Module)
			continue
		}
		for _, k := range keys {
			if !p.KeyMayMatch(k, f[len("prefix"):]) {
				t.Errorf("%s: key %q not found in its own filter", a.Module, k)
			}
		}
	}
}
