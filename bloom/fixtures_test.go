package bloom_test

import (
	"testing"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/internal/table"
	"github.com/ldbcompat/ldbcompat/internal/table/tabletest"
)

// TestFixtureNoFalseNegatives asks the filter block C++ LevelDB stored in
// each committed table (testdata/tables) about every key of the table,
// through FilterBlockReader: none may be filtered out.
func TestFixtureNoFalseNegatives(t *testing.T) {
	for _, f := range tabletest.Fixtures(t, "../testdata/tables") {
		t.Run(f.Name, func(t *testing.T) {
			tb, stored := f.OpenFilter(t)
			r := bloom.NewFilterBlockReader(bloom.NewPolicy(f.BitsPerKey), stored)
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
