package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ldbcompat/ldbcompat/internal/manifest/manifesttest"
	"github.com/ldbcompat/ldbcompat/internal/verify"
)

// batch encodes a write batch as db/write_batch.cc lays it out: an 8-byte
// sequence number, a 4-byte count, then each op: a tag (1 put, 0 delete)
// and length-prefixed key (and value).
func batch(seq uint64, ops ...[2]string) []byte {
	b := binary.LittleEndian.AppendUint64(nil, seq)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(ops)))
	for _, op := range ops {
		put := op[1] != "\x00del"
		if put {
			b = append(b, 1)
		} else {
			b = append(b, 0)
		}
		b = binary.AppendUvarint(b, uint64(len(op[0])))
		b = append(b, op[0]...)
		if put {
			b = binary.AppendUvarint(b, uint64(len(op[1])))
			b = append(b, op[1]...)
		}
	}
	return b
}

// TestDumpLog: dump prints a log named on its command line record by
// record, as leveldbutil dump does (offset, sequence number, each put and
// delete with its key escaped and its sizes), with what upstream's reader
// drops and how the file ends; exit 0 for a clean log, 2 for a damaged one.
// The log is built here, as log::Writer frames records, independently of
// the reader.
func TestDumpLog(t *testing.T) {
	del := "\x00del"
	var w manifesttest.Log
	w.Add(batch(1, [2]string{"a", "1"}))
	w.Add(batch(2, [2]string{"b", del}))
	w.Add(batch(3, [2]string{"k\x00\\", "v"}, [2]string{"c", strings.Repeat("x", 40000)})) // spans two blocks
	w.Add(batch(5, [2]string{"d", "4"}))
	p := filepath.Join(t.TempDir(), "000007.log")
	writeFile(t, p, w.Bytes())

	code, stdout, stderr := runCmd(t, "dump", p)
	want := []string{
		p + " (log)",
		fmt.Sprintf("--- offset %d; sequence 1; 1 operation", w.Offsets[0]),
		"  put 'a' (1-byte key, 1-byte value)",
		fmt.Sprintf("--- offset %d; sequence 2; 1 operation", w.Offsets[1]),
		"  del 'b' (1-byte key)",
		fmt.Sprintf("--- offset %d; sequence 3; 2 operations", w.Offsets[2]),
		`  put 'k\x00\x5c' (3-byte key, 1-byte value)`,
		"  put 'c' (1-byte key, 40000-byte value)",
		fmt.Sprintf("--- offset %d; sequence 5; 1 operation", w.Offsets[3]),
		"  put 'd' (1-byte key, 1-byte value)",
		fmt.Sprintf("  end at offset %d", w.Len()),
		"  4 write batches, 5 operations, 0 stretches dropped",
		"",
	}
	if code != verify.ExitOK || stdout != strings.Join(want, "\n")+"\n" {
		t.Errorf("exit %d, stdout:\n%s\nstderr: %s\nwant exit 0 and:\n%s", code, stdout, stderr, strings.Join(want, "\n"))
	}

	// One bit of the second record's key flipped: upstream's reader drops
	// it and the rest of its block (the third record's first fragment),
	// then the third record's last fragment, which has lost its start.
	damaged := bytes.Clone(w.Bytes())
	at := w.Offsets[1] + manifesttest.HeaderSize + 14 // the key 'b'
	damaged[at] ^= 0x04
	writeFile(t, p, damaged)
	code, stdout, _ = runCmd(t, "dump", p)
	for _, s := range []string{
		fmt.Sprintf("  dropped at offset %d: %d bytes (Corruption: checksum mismatch); one flipped bit explains it: bit 2 of the byte at offset %d, in the record's data", w.Offsets[1], manifesttest.BlockSize-w.Offsets[1], at),
		"(Corruption: missing start of fragmented record(2))",
		fmt.Sprintf("--- offset %d; sequence 5; 1 operation", w.Offsets[3]),
		"  2 write batches, 2 operations, 2 stretches dropped",
	} {
		if !strings.Contains(stdout, s) {
			t.Errorf("damaged log: output lacks %q:\n%s", s, stdout)
		}
	}
	if code != verify.ExitError {
		t.Errorf("damaged log: exit %d, want %d", code, verify.ExitError)
	}

	code, stdout, _ = runCmd(t, "dump", "--json", p)
	var doc struct {
		Logs []struct {
			Path    string `json:"path"`
			Kind    string `json:"kind"`
			Records []struct {
				Offset   int     `json:"offset"`
				Sequence *uint64 `json:"sequence"`
				Ops      []struct {
					Kind    string `json:"kind"`
					KeyHex  string `json:"key_hex"`
					KeySize int    `json:"key_size"`
				} `json:"ops"`
			} `json:"records"`
			Drops []struct {
				Offset int    `json:"offset"`
				Status string `json:"status"`
			} `json:"drops"`
		} `json:"logs"`
		ExitCode int `json:"exit_code"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil || len(doc.Logs) != 1 {
		t.Fatalf("dump --json: %v\n%s", err, stdout)
	}
	l := doc.Logs[0]
	if l.Path != p || l.Kind != "log" || len(l.Records) != 2 || *l.Records[1].Sequence != 5 || l.Records[0].Ops[0].KeyHex != "61" ||
		len(l.Drops) != 2 || l.Drops[0].Offset != w.Offsets[1] || l.Drops[0].Status != "Corruption: checksum mismatch" || doc.ExitCode != verify.ExitError || code != verify.ExitError {
		t.Errorf("dump --json of the damaged log: exit %d, %+v", code, doc)
	}

	// verify names it as a log, not a table.
	if code, stdout, _ := runCmd(t, "verify", p); code != verify.ExitPath || !strings.Contains(stdout, "skipped: not a table but a log or MANIFEST") {
		t.Errorf("verify of a log: exit %d\n%s", code, stdout)
	}
}

// TestDumpManifest: dump prints a MANIFEST's version edits as leveldbutil
// dump does (VersionEdit::DebugString), one field a line.
func TestDumpManifest(t *testing.T) {
	dir := t.TempDir()
	if err := manifesttest.WriteDB(dir, 2, manifesttest.Table{Level: 1, Number: 7, Size: 1000, Smallest: manifesttest.InternalKey("a", 1), Largest: manifesttest.InternalKey("z", 2)}); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "MANIFEST-000002")
	code, stdout, _ := runCmd(t, "dump", p)
	for _, s := range []string{
		p + " (manifest)",
		"--- offset 0; VersionEdit {",
		"    Comparator: leveldb.BytewiseComparator",
		"    AddFile: 1 7 1000 'a' @ 1 : 1 .. 'z' @ 2 : 1",
	} {
		if !strings.Contains(stdout, s+"\n") {
			t.Errorf("output lacks the line %q:\n%s", s, stdout)
		}
	}
	if code != verify.ExitOK {
		t.Errorf("exit %d, want 0", code)
	}
}
