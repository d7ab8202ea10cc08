package logfile_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/ldbcompat/ldbcompat/internal/logfile"
	mt "github.com/ldbcompat/ldbcompat/internal/manifest/manifesttest"
)

// randomString is util/testutil.cc RandomString over util/random.h's
// Random(seed): len characters from ' ' to '~'.
func randomString(seed uint32, n int) string {
	s := seed & 0x7fffffff
	if s == 0 || s == 2147483647 {
		s = 1
	}
	b := make([]byte, n)
	for i := range b {
		p := uint64(s) * 16807
		s = uint32(p>>31) + uint32(p&2147483647)
		if s > 2147483647 {
			s -= 2147483647
		}
		b[i] = ' ' + byte(s%95)
	}
	return string(b)
}

// corruptionLog is db/corruption_test.cc's Build(n): n writes of one put
// each, key i as %016d and a 1000-byte value, sequence numbers from
// first, each a record of the log.
func corruptionLog(n int, first uint64) [][]byte {
	recs := make([][]byte, n)
	for i := range recs {
		recs[i] = encodeBatch(first+uint64(i), op{put: true, key: fmt.Sprintf("%016d", i), value: randomString(uint32(i), 1000)})
	}
	return recs
}

type op struct {
	put        bool
	key, value string
}

// encodeBatch encodes a write batch as db/write_batch.cc lays it out
// (doc.go), independently of the package.
func encodeBatch(seq uint64, ops ...op) []byte {
	b := binary.LittleEndian.AppendUint64(nil, seq)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(ops)))
	for _, o := range ops {
		if o.put {
			b = append(b, 1)
		} else {
			b = append(b, 0)
		}
		b = binary.AppendUvarint(b, uint64(len(o.key)))
		b = append(b, o.key...)
		if o.put {
			b = binary.AppendUvarint(b, uint64(len(o.value)))
			b = append(b, o.value...)
		}
	}
	return b
}

// buildLog writes records with manifesttest's writer, which follows
// db/log_writer.cc on its own.
func buildLog(recs [][]byte) []byte {
	var w mt.Log
	for _, r := range recs {
		w.Add(r)
	}
	return w.Bytes()
}

// TestCorruptionRecovery is db/corruption_test.cc's Recovery: 100 writes,
// the first record's batch tag (offset 19) and a byte of the second block
// (32768+1000) corrupted (xor 0x80); DB::Open then finds 36 entries: the
// 64 records of the first two blocks are lost. Under paranoid checks the
// open fails with the first drop's status.
func TestCorruptionRecovery(t *testing.T) {
	log := buildLog(corruptionLog(100, 1))
	log[19] ^= 0x80
	log[logfile.BlockSize+1000] ^= 0x80
	rec := logfile.Recover(bytes.NewReader(log), "000003.log", logfile.Options{})
	if rec.Defaults.Ops != 36 || rec.Defaults.Records != 36 || rec.Defaults.Failed {
		t.Errorf("defaults: %+v, want 36 records and ops applied", rec.Defaults)
	}
	if rec.Lost.Records != 64 || rec.Lost.AtLeast {
		t.Errorf("lost %+v, want 64 records", rec.Lost)
	}
	if !rec.Paranoid.Failed || rec.Paranoid.Status != "Corruption: checksum mismatch" || rec.Paranoid.FailOffset != 0 || rec.Paranoid.Records != 0 {
		t.Errorf("paranoid: %+v, want a checksum mismatch at 0", rec.Paranoid)
	}
	if len(rec.Drops) == 0 || rec.Drops[0].Flip == nil || rec.Drops[0].Flip.Offset != 19 || rec.Drops[0].Flip.Bit != 7 {
		t.Errorf("first drop %+v, want the flip at byte 19 bit 7", rec.Drops)
	}
	if want := uint64(100); rec.Defaults.MaxSequence != want {
		t.Errorf("max sequence %d, want %d", rec.Defaults.MaxSequence, want)
	}
}

// TestRecoverSequenceGap damages records between intact ones: the ops lost
// are exactly the gap in sequence numbers, batches of several ops each.
func TestRecoverSequenceGap(t *testing.T) {
	var recs [][]byte
	seq := uint64(10)
	for i := 0; i < 200; i++ { // 4 blocks
		ops := make([]op, 1+i%4)
		for j := range ops {
			ops[j] = op{put: j%2 == 0, key: fmt.Sprint("k", i, j), value: randomString(uint32(i), 300)}
		}
		recs = append(recs, encodeBatch(seq, ops...))
		seq += uint64(len(ops))
	}
	var w mt.Log
	for _, r := range recs {
		w.Add(r)
	}
	log := w.Bytes()
	// Zero 2000 bytes in the first block: headers and all.
	clear(log[5000:7000])
	rec := logfile.Recover(bytes.NewReader(log), "000003.log", logfile.Options{})
	var total, applied int64
	for _, r := range recs {
		total += int64(binary.LittleEndian.Uint32(r[8:]))
	}
	applied = rec.Defaults.Ops
	if !rec.Lost.OpsExact || int64(rec.Lost.Ops) != total-applied {
		t.Errorf("lost %+v; %d ops written, %d applied", rec.Lost, total, applied)
	}
	if !rec.Paranoid.Failed {
		t.Errorf("paranoid: %+v, want a failure", rec.Paranoid)
	}
}

// TestRecoverBatches covers what RecoverLogFile does with the records the
// reader returns: too small, malformed (applied up to the error; ignored
// under the defaults, fatal under paranoid checks), well-formed.
func TestRecoverBatches(t *testing.T) {
	good := encodeBatch(5, op{put: true, key: "a", value: "1"}, op{key: "b"})
	bad := append(encodeBatch(7, op{put: true, key: "c", value: "2"}, op{put: true, key: "d", value: "3"}), 9) // an unknown tag
	bad[8] = 3
	log := buildLog([][]byte{good, []byte("short"), bad, encodeBatch(10, op{key: "e"})})
	rec := logfile.Recover(bytes.NewReader(log), "000003.log", logfile.Options{})
	d, p := rec.Defaults, rec.Paranoid
	if d.Records != 3 || d.Ops != 2+2+1 || d.Drops != 1 || d.MaxSequence != 10 || d.Failed {
		t.Errorf("defaults %+v", d)
	}
	if !p.Failed || p.Status != "Corruption: log record too small" || p.Records != 1 || p.Ops != 2 || p.FailOffset != int64(len(buildLog([][]byte{good}))) {
		t.Errorf("paranoid %+v", p)
	}
	if len(rec.Malformed) != 1 || rec.Malformed[0].Err.Reason != "unknown WriteBatch tag" || rec.Malformed[0].Applied != 2 || rec.Malformed[0].Count != 3 {
		t.Errorf("malformed %+v", rec.Malformed)
	}
	// Without the short record, paranoid checks fail on the batch.
	log = buildLog([][]byte{good, bad})
	rec = logfile.Recover(bytes.NewReader(log), "000003.log", logfile.Options{})
	if p := rec.Paranoid; !p.Failed || p.Status != "Corruption: unknown WriteBatch tag" || p.Records != 2 || p.Ops != 4 || p.MaxSequence != 6 {
		t.Errorf("paranoid %+v", p)
	}
}

// TestRecoverFile: a log that cannot be opened is ignored under the
// defaults and fails the open under paranoid checks.
func TestRecoverFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "000003.log")
	rec, err := logfile.RecoverFile(path, logfile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rec.Defaults.Failed || !rec.Paranoid.Failed || rec.Paranoid.Status != "NotFound: "+path+": No such file or directory" {
		t.Errorf("missing log: %+v", rec)
	}
	if err := os.WriteFile(path, buildLog(corruptionLog(3, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if rec, err := logfile.RecoverFile(path, logfile.Options{}); err != nil || rec.Defaults.Ops != 3 || rec.Paranoid.Failed {
		t.Errorf("log of 3 writes: %+v, %v", rec, err)
	}
}

// TestLogsToReplay is DBImpl::Recover's choice of logs.
func TestLogsToReplay(t *testing.T) {
	names := []string{"000007.log", "000003.log", "000005.log", "000002.log", "7.log", "000009.ldb", "MANIFEST-000004", "x.log", "000001.log"}
	got := logfile.LogsToReplay(names, 5, 2)
	want := []uint64{2, 5, 7, 7}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("LogsToReplay = %v, want %v", got, want)
	}
}
