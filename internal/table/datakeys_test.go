package table_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/ldbcompat/ldbcompat/internal/table"
)

// keysByDataBlocks returns the internal keys of t's data blocks, one list a
// block, read with DataBlocks.
func keysByDataBlocks(t *table.Table) ([][][]byte, []table.BlockHandle, error) {
	var keys [][][]byte
	var hs []table.BlockHandle
	err := t.DataBlocks(func(b *table.DataBlock) error {
		ks := [][]byte{}
		for _, e := range b.Entries {
			ks = append(ks, table.AppendInternalKey(nil, e.Key))
		}
		keys, hs = append(keys, ks), append(hs, b.Handle)
		return nil
	})
	return keys, hs, err
}

// keysByDataKeys is keysByDataBlocks with DataKeys.
func keysByDataKeys(t *table.Table) ([][][]byte, []table.BlockHandle, error) {
	var keys [][][]byte
	var hs []table.BlockHandle
	cur := [][]byte{}
	err := t.DataKeys(func(k []byte) {
		cur = append(cur, bytes.Clone(k))
	}, func(i int, h table.BlockHandle, n int) error {
		if i != len(keys) || n != len(cur) {
			return fmt.Errorf("block %d with %d keys, want block %d with %d", i, n, len(keys), len(cur))
		}
		keys, hs = append(keys, cur), append(hs, h)
		cur = [][]byte{}
		return nil
	})
	return keys, hs, err
}

// failingReader fails every read of more than limit bytes.
type failingReader struct {
	r     io.ReaderAt
	limit int
}

func (f failingReader) ReadAt(p []byte, off int64) (int, error) {
	if len(p) > f.limit {
		return 0, errors.New("read too large")
	}
	return f.r.ReadAt(p, off)
}

// TestDataKeysMatchesDataBlocks checks that DataKeys reads the keys, and
// fails with the errors, that DataBlocks does, on the fixtures and on
// damaged copies of them, with the data blocks read at once or one by one.
func TestDataKeysMatchesDataBlocks(t *testing.T) {
	oneByOne := 0
	for _, f := range loadFixtures(t) {
		data := bytes.Clone(f.data)
		tb := f.open(t)
		var bits []int
		for _, e := range tb.Index() {
			for off := e.Handle.Offset; off < e.Handle.End(); off += 97 {
				bits = append(bits, int(off)*8+int(off%8))
			}
		}
		bits = append(bits, -1) // undamaged
		for _, bit := range bits {
			if bit >= 0 {
				data[bit/8] ^= 1 << (bit % 8)
			}
			for _, limit := range []int{len(data), 8 << 10} {
				var r io.ReaderAt = bytes.NewReader(data)
				if limit < len(data) {
					r = failingReader{r, limit}
				}
				tb, err := table.Open(f.name(), r, int64(len(data)))
				if err != nil {
					continue
				}
				if limit < len(data) {
					oneByOne++
				}
				wantKeys, wantHs, wantErr := keysByDataBlocks(tb)
				gotKeys, gotHs, gotErr := keysByDataKeys(tb)
				what := fmt.Sprintf("%s, bit %d flipped, reads of up to %d bytes", f.name(), bit, limit)
				if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
					t.Errorf("%s: DataKeys error %v, DataBlocks error %v", what, gotErr, wantErr)
					continue
				}
				if wantErr == nil && (fmt.Sprint(gotHs) != fmt.Sprint(wantHs) || fmt.Sprint(gotKeys) != fmt.Sprint(wantKeys)) {
					t.Errorf("%s: DataKeys and DataBlocks read different keys", what)
				}
			}
			if bit >= 0 {
				data[bit/8] ^= 1 << (bit % 8)
			}
		}
	}
	if oneByOne == 0 {
		t.Error("no table was read block by block")
	}
}
