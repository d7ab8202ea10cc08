package verify

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ldbcompat/ldbcompat/internal/crc"
	"github.com/ldbcompat/ldbcompat/internal/logfile"
)

// The log side of verify (dump of a log or MANIFEST, what the open does
// with a log), on logs written here by the format's definition: db/log_format.h
// (32 KiB blocks, 7-byte headers: masked crc32c of type and data, 2-byte
// length, 1-byte type) and db/write_batch.cc (8-byte sequence, 4-byte
// count, then each op: tag 1 put with varint-prefixed key and value, tag 0
// delete with varint-prefixed key).

type testOp struct {
	del        bool
	key, value string
}

// batchOf encodes a write batch as WriteBatch::rep_ holds it.
func batchOf(seq uint64, count uint32, ops ...testOp) []byte {
	b := binary.LittleEndian.AppendUint64(nil, seq)
	b = binary.LittleEndian.AppendUint32(b, count)
	for _, o := range ops {
		if o.del {
			b = append(b, 0)
			b = binary.AppendUvarint(b, uint64(len(o.key)))
			b = append(b, o.key...)
			continue
		}
		b = append(b, 1)
		b = binary.AppendUvarint(b, uint64(len(o.key)))
		b = append(b, o.key...)
		b = binary.AppendUvarint(b, uint64(len(o.value)))
		b = append(b, o.value...)
	}
	return b
}

// physical is one physical record of type typ holding data, checksum right.
func physical(typ byte, data []byte) []byte {
	b := binary.LittleEndian.AppendUint32(nil, crc.Mask(crc.Extend(crc.Value([]byte{typ}), data)))
	b = binary.LittleEndian.AppendUint16(b, uint16(len(data)))
	b = append(b, typ)
	return append(b, data...)
}

func writeTemp(t *testing.T, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func dumpText(t *testing.T, path string) (*LogDumpJSON, int, []string) {
	t.Helper()
	var buf bytes.Buffer
	j, code := DumpLog(path, &buf)
	// Without a writer: the same answer, nothing printed.
	j2, code2 := DumpLog(path, nil)
	if code2 != code || len(j2.Records) != len(j.Records) || j2.Error != j.Error {
		t.Errorf("DumpLog without a writer: code %d, %d records, error %q; with one: %d, %d, %q", code2, len(j2.Records), j2.Error, code, len(j.Records), j.Error)
	}
	return j, code, strings.Split(buf.String(), "\n")
}

func wantLines(t *testing.T, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("text:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

var (
	batchA = batchOf(5, 2, testOp{key: "a", value: "xyz"}, testOp{del: true, key: "b"})
	batchB = batchOf(7, 1, testOp{key: "c"})
)

func TestDumpLogRecords(t *testing.T) {
	data := logfile.WriteLog([][]byte{batchA, batchB})
	path := writeTemp(t, "000007.log", data)
	j, code, lines := dumpText(t, path)
	offB := 7 + len(batchA)
	if code != ExitOK || j.Kind != "log" || j.Error != "" || len(j.Records) != 2 || len(j.Drops) != 0 || len(j.Skips) != 0 {
		t.Fatalf("code %d, %+v", code, j)
	}
	r := j.Records[0]
	if r.Offset != 0 || r.Bytes != len(batchA) || *r.Sequence != 5 || *r.Count != 2 || len(r.Ops) != 2 ||
		r.Ops[0] != (logOpJSON{Kind: "put", KeyHex: "61", KeySize: 1, ValueSize: 3}) || r.Ops[1] != (logOpJSON{Kind: "del", KeyHex: "62", KeySize: 1}) {
		t.Errorf("record 0: %+v", r)
	}
	if r := j.Records[1]; r.Offset != int64(offB) || *r.Sequence != 7 || len(r.Ops) != 1 {
		t.Errorf("record 1: %+v", r)
	}
	if e := j.End; e == nil || e.Offset != int64(len(data)) || e.Torn != 0 || e.Marker || e.Size != int64(len(data)) {
		t.Errorf("end %+v", j.End)
	}
	wantLines(t, lines, []string{
		path + " (log)",
		"--- offset 0; sequence 5; 2 operations",
		"  put 'a' (1-byte key, 3-byte value)",
		"  del 'b' (1-byte key)",
		"--- offset " + itoa(offB) + "; sequence 7; 1 operation",
		"  put 'c' (1-byte key, 0-byte value)",
		"  end at offset " + itoa(len(data)),
		"  2 write batches, 3 operations, 0 stretches dropped",
		"", "",
	})
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestDumpLogDamage: a flipped bit in the second record's key fails its
// checksum: log::Reader drops the rest of the block from its header
// (db/log_reader.cc, "checksum mismatch"); the first record stays.
func TestDumpLogDamage(t *testing.T) {
	data := logfile.WriteLog([][]byte{batchA, batchB})
	offB := 7 + len(batchA)
	key := offB + 7 + 12 + 2 // header, batch header, tag, key length
	data[key] ^= 1 << 3
	path := writeTemp(t, "000007.log", data)
	j, code, lines := dumpText(t, path)
	if code != ExitError || len(j.Records) != 1 || len(j.Drops) != 1 {
		t.Fatalf("code %d, %+v", code, j)
	}
	d := j.Drops[0]
	if d.Offset != int64(offB) || d.Bytes != int64(len(data)-offB) || !strings.Contains(d.Status, "checksum mismatch") ||
		d.Flip == nil || *d.Flip != (flipJSON{Offset: uint64(key), Bit: 3, Field: "data"}) {
		t.Errorf("drop %+v (flip %+v)", d, d.Flip)
	}
	want := "  dropped at offset " + itoa(offB) + ": " + itoa(len(data)-offB) + " bytes (" + d.Status + "); one flipped bit explains it: bit 3 of the byte at offset " + itoa(key) + ", in the record's data"
	if len(lines) < 6 || !strings.HasPrefix(lines[4], want) {
		t.Errorf("text:\n%s\nwant line 4 to start %q", strings.Join(lines, "\n"), want)
	}
	if got := lines[len(lines)-3]; got != "  1 write batch, 2 operations, 1 stretch dropped" {
		t.Errorf("last line %q", got)
	}
}

// TestDumpLogEnds: how a log ends: a record cut short (a write in
// progress), a physical record of type 5 (the reader's kEof), zeroed
// bytes (a header of type 0 and length 0, preallocated space).
func TestDumpLogEnds(t *testing.T) {
	whole := logfile.WriteLog([][]byte{batchA, batchB})
	offB := 7 + len(batchA)

	torn := whole[:len(whole)-2]
	j, code, lines := dumpText(t, writeTemp(t, "000007.log", torn))
	if e := j.End; code != ExitOK || len(j.Records) != 1 || e == nil || e.Offset != int64(offB) || e.Torn != int64(len(torn)-offB) {
		t.Errorf("torn: code %d, %+v, end %+v", code, j, j.End)
	}
	if want := "  end at offset " + itoa(offB) + ": the last " + itoa(len(torn)-offB) + " bytes are a record cut short"; !strings.HasPrefix(lines[4], want) {
		t.Errorf("torn: %q, want it to start %q", lines[4], want)
	}

	marked := append(append(logfile.WriteLog([][]byte{batchA}), physical(5, []byte("xyz"))...), 1, 2, 3, 4)
	j, code, lines = dumpText(t, writeTemp(t, "000007.log", marked))
	if e := j.End; code != ExitOK || len(j.Records) != 1 || e == nil || !e.Marker || e.Offset != int64(offB) || e.Torn != 0 {
		t.Errorf("marker: code %d, %+v, end %+v", code, j, j.End)
	}
	if want := "  end at offset " + itoa(offB) + ": a record of type 5, which upstream's reader takes for its end-of-file code (14 bytes after it unread)"; lines[4] != want {
		t.Errorf("marker: %q, want %q", lines[4], want)
	}

	// Zeroes after the records: preallocated space, nothing lost.
	zeroed := append(logfile.WriteLog([][]byte{batchA}), make([]byte, 20)...)
	j, code, lines = dumpText(t, writeTemp(t, "000007.log", zeroed))
	if code != ExitOK || len(j.Skips) != 1 || j.Skips[0] != (logSkipJSON{Offset: int64(offB), Bytes: 20}) {
		t.Errorf("zeroed: code %d, %+v", code, j)
	}
	if want := "  skipped at offset " + itoa(offB) + ": 20 bytes (a header of type 0, length 0: preallocated space)"; lines[4] != want {
		t.Errorf("zeroed: %q, want %q", lines[4], want)
	}

	// A zeroed header before a whole record: the reader skips the rest of
	// the block, and the record with it, without a report.
	hidden := append(append(logfile.WriteLog([][]byte{batchA}), make([]byte, 7)...), physical(1, batchB)...)
	j, code, _ = dumpText(t, writeTemp(t, "000007.log", hidden))
	if code != ExitError || len(j.Records) != 1 || len(j.Skips) != 1 || j.Skips[0].Records != 1 || j.Skips[0].Bytes != int64(len(hidden)-offB) {
		t.Errorf("hidden: code %d, %+v", code, j)
	}
}

// TestDumpLogBadBatches: a record shorter than a batch header (12 bytes)
// and a batch whose count says more ops than it holds
// (WriteBatch::Iterate: "WriteBatch has wrong count").
func TestDumpLogBadBatches(t *testing.T) {
	short := []byte("tiny")
	wrong := batchOf(9, 3, testOp{key: "k", value: "v"})
	data := logfile.WriteLog([][]byte{short, wrong})
	j, code, lines := dumpText(t, writeTemp(t, "000007.log", data))
	if code != ExitError || len(j.Records) != 2 || j.Records[0].Error == "" || j.Records[0].Sequence != nil || j.Records[1].Error == "" || len(j.Records[1].Ops) != 1 {
		t.Fatalf("code %d, %+v", code, j)
	}
	if !strings.Contains(j.Records[1].Error, "wrong count") {
		t.Errorf("wrong count: %q", j.Records[1].Error)
	}
	want := []string{
		"--- offset 0; log record length 4 is too small",
		"--- offset 11; sequence 9; 3 operations",
		"  put 'k' (1-byte key, 1-byte value)",
		"  error: " + j.Records[1].Error,
	}
	wantLines(t, lines[1:5], want)
	if got := lines[len(lines)-3]; got != "  2 write batches, 1 operation, 0 stretches dropped" {
		t.Errorf("last line %q", got)
	}
}

// TestDumpLogUnreadable: a file that does not open: ExitPath.
func TestDumpLogUnreadable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "000007.log")
	j, code, lines := dumpText(t, path)
	if code != ExitPath || j.Error == "" || len(j.Records) != 0 || j.End != nil {
		t.Errorf("code %d, %+v", code, j)
	}
	wantLines(t, lines, []string{path + " (log)", "  cannot be read: " + j.Error, "", ""})
}

// TestDumpManifest: a MANIFEST upstream wrote, its records version edits
// as VersionEdit::DebugString prints them.
func TestDumpManifest(t *testing.T) {
	data, err := os.ReadFile("../../testdata/logdbs/crash/MANIFEST-000002")
	if err != nil {
		t.Fatal(err)
	}
	j, code, lines := dumpText(t, writeTemp(t, "MANIFEST-000002", data))
	if code != ExitOK || j.Kind != "manifest" || len(j.Records) == 0 || j.Records[0].Edit == "" || j.Records[0].Sequence != nil {
		t.Fatalf("code %d, %+v", code, j)
	}
	if lines[1] != "--- offset 0; VersionEdit {" || lines[2] != "    Comparator: leveldb.BytewiseComparator" {
		t.Errorf("text:\n%s", strings.Join(lines, "\n"))
	}
	if got, want := lines[len(lines)-3], "  "+nouns(len(j.Records), "version edit", "version edits")+", 0 records dropped"; got != want {
		t.Errorf("last line %q, want %q", got, want)
	}
	// The same bytes named as a log: write batches that do not decode.
	if j, _, _ := dumpText(t, writeTemp(t, "000002.log", data)); j.Kind != "log" || j.Records[0].Edit != "" {
		t.Errorf("as a log: %+v", j)
	}
}

func TestIsLogName(t *testing.T) {
	for name, want := range map[string]bool{
		"000007.log": true, "/db/MANIFEST-000002": true, "000007.ldb": false, "000007.sst": false,
		"CURRENT": false, "LOG": false, "x.log": false,
	} {
		if got := IsLogName(name); got != want {
			t.Errorf("IsLogName(%q) = %v", name, got)
		}
	}
}
