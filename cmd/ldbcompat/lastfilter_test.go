package main

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
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

	code, stdout, stderr := runCmd(t, "verify", dir)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s%s", code, stdout, stderr)
	}
	want := fmt.Sprintf("%s: mismatch: leveldb.BuiltinBloomFilter2, bits/key 10, k 6, %d filters, ", path, num)
	if !strings.Contains(stdout, want) {
		t.Errorf("output lacks %q:\n%s", want, stdout)
	}
	diff := fmt.Sprintf("; first difference at filter block byte %d: stored 0x%02x, rebuilt 0x%02x (file offset %d); ",
		blockOff, orig^0x01, orig, fileOff)
	if !strings.Contains(stdout, diff) {
		t.Errorf("output lacks %q:\n%s", diff, stdout)
	}
	if !strings.Contains(stdout, "3 tables: 2 ok, 1 mismatch\n") {
		t.Errorf("summary wrong:\n%s", stdout)
	}

	code, v, _ := verifyJSONOf(t, path)
	if code != 1 || len(v.Tables) != 1 {
		t.Fatalf("JSON: exit %d, %+v", code, v)
	}
	j := v.Tables[0]
	if j.Verdict != "mismatch" || j.Diff == nil || j.Diff.Offset != blockOff || j.Diff.Stored != int(orig^0x01) ||
		j.Diff.Rebuilt != int(orig) || j.DiffFileOffset == nil || *j.DiffFileOffset != fileOff {
		t.Errorf("JSON: %+v, diff %+v; want offset %d (file offset %d)", j, j.Diff, blockOff, fileOff)
	}
}
