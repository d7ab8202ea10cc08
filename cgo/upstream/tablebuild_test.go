//go:build leveldb

package upstream

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"
)

// TestBuildAndScanTable: upstream's TableBuilder writes two entries that
// its Table reads back; a key shorter than an internal key is refused
// before reaching C++; a table cut short is not an sstable.
func TestBuildAndScanTable(t *testing.T) {
	ik := func(u string, seq uint64) []byte {
		return binary.LittleEndian.AppendUint64([]byte(u), seq<<8|1)
	}
	keys, vals := [][]byte{ik("a", 2), ik("b", 1)}, [][]byte{[]byte("x"), {}}
	data, err := BuildTable(keys, vals, BuildOptions{BlockSize: 4096, RestartInterval: 16, BitsPerKey: 10})
	if err != nil {
		t.Fatal(err)
	}
	s, err := ScanTable(data, 10)
	if err != nil {
		t.Fatal(err)
	}
	if s.Status() != "" || len(s.Entries) != 2 || !bytes.Equal(s.Entries[0][0], keys[0]) || !bytes.Equal(s.Entries[1][1], vals[1]) {
		t.Errorf("scan: status %q, entries %q", s.Status(), s.Entries)
	}
	if _, err := BuildTable([][]byte{[]byte("short")}, [][]byte{nil}, BuildOptions{BlockSize: 4096, RestartInterval: 16}); err == nil {
		t.Error("BuildTable takes a key of 5 bytes")
	}
	s, err = ScanTable(data[:len(data)-1], 0)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(s.OpenStatus, "not an sstable") || len(s.Entries) != 0 {
		t.Errorf("cut short: open status %q, %d entries", s.OpenStatus, len(s.Entries))
	}
}
