package main

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/ldbcompat/ldbcompat/internal/table/tabletest"
)

// TestVerifyDamageInLastFilter damages a table C++ LevelDB wrote in the
// last non-empty filter of its filter block, far from the block's start,
// and runs `verify` on the database: exit 1, mismatch, and the first
// difference reported at the damaged byte. The expected offsets come from
// decoding the filter block here, from its format (table/filter_block.cc:
// filters, then a uint32 offset per filter, the array's offset, base lg),
// not from the package that verify uses.
func TestVerifyDamageInLastFilter(t *testing.T) {
	dir := copyDB(t, "b10-bs4096-none")
	path := filepath.Join(dir, "000012.ldb")
	tb, data := openTable(t, path)
	fh, ok := tb.FilterHandle()
	if !ok {
		t.Fatal("no filter block")
	}
	block := data[fh.Offset : fh.Offset+fh.Size] // without the trailer

	n := len(block)
	arr := int(binary.LittleEndian.Uint32(block[n-5:]))
	num := (n - 5 - arr) / 4
	start := func(i int) int { return int(binary.LittleEndian.Uint32(block[arr+4*i:])) }
	limit := func(i int) int {
		if i+1 < num {
			return start(i + 1)
		}
		return arr // the last filter ends where the offset array starts
	}
	last, nonEmpty := -1, 0
	for i := 0; i < num; i++ {
		if limit(i) > start(i) {
			last = i
			nonEmpty++
		}
	}
	if nonEmpty < 2 {
		t.Fatalf("%s has %d non-empty filters; the test needs a last one that is not the first", path, nonEmpty)
	}
	// A byte in the middle of the last filter's bit array (its last byte
	// is k, which stays as it is).
	blockOff := start(last) + (limit(last)-1-start(last))/2
	fileOff := fh.Offset + uint64(blockOff)
	if blockOff <= start(0) || blockOff >= limit(last)-1 {
		t.Fatalf("byte %d is not inside filter %d's bits (%d..%d)", blockOff, last, start(last), limit(last)-2)
	}
	t.Logf("filter %d of %d (%d non-empty), bytes %d..%d of the block: byte %d flipped (file offset %d)", last, num, nonEmpty, start(last), limit(last)-1, blockOff, fileOff)
	orig := data[fileOff]
	data[fileOff] ^= 0x01
	tabletest.FixChecksum(data, fh)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}

	want := fmt.Sprintf("%s: mismatch: leveldb.BuiltinBloomFilter2, bits/key 10, k 6, %d filters, ", path, num)
	verifyFirstDifference(t, dir, path, want, blockOff, fileOff, int(orig^0x01), int(orig))
}
