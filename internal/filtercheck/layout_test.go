package filtercheck_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/internal/filtercheck"
	"github.com/ldbcompat/ldbcompat/internal/table"
)

// synthBlocks returns data blocks at the offsets a table of blocks of
// blockSize bytes would have, holding n distinct keys in total.
func synthBlocks(n, perBlock, blockSize int) []filtercheck.BlockKeys {
	var blocks []filtercheck.BlockKeys
	off := uint64(0)
	for i := 0; i < n; i += perBlock {
		b := filtercheck.BlockKeys{Handle: table.BlockHandle{Offset: off, Size: uint64(blockSize)}}
		for j := i; j < min(i+perBlock, n); j++ {
			b.Keys = append(b.Keys, []byte(fmt.Sprintf("key\x80%06d", j)))
		}
		blocks = append(blocks, b)
		off = b.Handle.End()
	}
	return blocks
}

func TestParseLayout(t *testing.T) {
	blocks := synthBlocks(100, 10, 3000)
	fb := filtercheck.Build(blocks, bloom.NewPolicy(10))
	l := parseLayout(t, fb)
	// The last StartBlock, at 30050, closes filters 0..13 (30050>>11 = 14).
	if l.BaseLg != 11 || len(l.Filters) != 14 {
		t.Fatalf("layout: base lg %d, %d filters", l.BaseLg, len(l.Filters))
	}
	keys := filtercheck.KeysPerFilter(blocks, l.BaseLg, len(l.Filters))
	total := 0
	for i, f := range l.Filters {
		total += keys[i]
		if (keys[i] == 0) != (f.Len == 0) {
			t.Errorf("filter %d: %d keys, %d bytes", i, keys[i], f.Len)
		}
		if f.Len > 0 && f.K(fb) != 6 {
			t.Errorf("filter %d: k %d", i, f.K(fb))
		}
	}
	if total != 100 {
		t.Errorf("KeysPerFilter counts %d keys, want 100", total)
	}
	for _, tc := range []struct {
		contents []byte
		want     string
	}{
		{[]byte{1, 2, 3, 4}, "shorter than its 5-byte tail"},
		{[]byte{9, 0, 0, 0, 11}, "offset array at 9 starts past its tail at 0"},
		{[]byte{0, 0, 0, 0, 0, 0, 0, 11}, "offset array from 0 to 3 is not a whole number of uint32s"},
		{[]byte{0, 0, 0, 0, 5, 0, 0, 0, 4, 0, 0, 0, 11}, "filter 0 spans bytes 5 to 4, outside 0..4"},
	} {
		if _, err := filtercheck.ParseLayout(tc.contents); err == nil || !bytes.Contains([]byte(err.Error()), []byte(tc.want)) {
			t.Errorf("ParseLayout(% x) = %v, want error with %q", tc.contents, err, tc.want)
		}
	}
}

// TestLayoutEdges: an offset array that starts at the 5-byte tail holds no
// filters, as upstream's reader finds (num = (n - 5 - array offset) / 4);
// an empty filter has no k byte.
func TestLayoutEdges(t *testing.T) {
	for _, contents := range [][]byte{{0, 0, 0, 0, 11}, {0xaa, 0xbb, 2, 0, 0, 0, 11}} {
		l, err := filtercheck.ParseLayout(contents)
		if err != nil || len(l.Filters) != 0 || l.ArrayOffset != len(contents)-5 || l.BaseLg != 11 {
			t.Errorf("ParseLayout(% x) = %+v, %v; want no filters", contents, l, err)
		}
	}
	if k := (filtercheck.Filter{Offset: 3}).K([]byte{1, 2, 3, 4}); k != -1 {
		t.Errorf("an empty filter's k: %d, want -1", k)
	}
}
