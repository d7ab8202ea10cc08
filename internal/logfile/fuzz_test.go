package logfile_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/ldbcompat/ldbcompat/internal/logfile"
)

// FuzzLog reads arbitrary bytes as a log and replays them: no panic, and
// what the reader reports lies within the file: records, drops and the
// end at offsets before its size, records no longer than MaxRecord.
func FuzzLog(f *testing.F) {
	f.Add(buildLog(corruptionLog(3, 1)))
	f.Add(append(buildLog(corruptionLog(40, 1))[:40000], 1, 2, 3))
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		size := int64(len(data))
		opts := logfile.Options{MaxRecord: 50000, OnDrop: func(d logfile.Drop) {
			if d.Offset < 0 || d.Offset >= size || d.Start < 0 || d.Start > d.Offset || d.Bytes < 0 {
				t.Fatalf("drop %+v in a log of %d bytes", d, size)
			}
		}}
		r := logfile.NewReader(bytes.NewReader(data), "log", opts)
		for {
			rec, err := r.Next()
			if err == io.EOF {
				break
			}
			if rec.Offset < 0 || rec.Offset >= size || int64(len(rec.Data)) > opts.MaxRecord {
				t.Fatalf("record at %d of %d bytes, error %v, in a log of %d bytes", rec.Offset, len(rec.Data), err, size)
			}
		}
		if e := r.End(); e.Size != size || e.Offset > size {
			t.Fatalf("end %+v in a log of %d bytes", e, size)
		}
		logfile.Recover(bytes.NewReader(data), "log", logfile.Options{})
	})
}
