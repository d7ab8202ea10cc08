package logfile_test

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/ldbcompat/ldbcompat/internal/base"
	"github.com/ldbcompat/ldbcompat/internal/logfile"
)

// TestWalk walks a log with a damaged record and a record over the
// bound: records, the drop before the record read past it, the record
// too large, and the end, in file order.
func TestWalk(t *testing.T) {
	recs := corruptionLog(40, 1)
	recs[35] = bytes.Repeat([]byte{'x'}, 3*logfile.BlockSize)
	log := buildLog(recs)
	log[19] ^= 0x80
	var got []string
	err := logfile.Walk(bytes.NewReader(log), "000003.log", logfile.Options{MaxRecord: 2 * logfile.BlockSize}, func(it logfile.Item) error {
		switch {
		case it.Record != nil:
			b, err := logfile.NewBatch(it.Record.Data)
			if err != nil {
				return err
			}
			got = append(got, fmt.Sprintf("record %d seq %d", it.Record.Offset, b.Sequence))
		case it.Drop != nil:
			got = append(got, fmt.Sprintf("drop %d %d %s", it.Drop.Offset, it.Drop.Bytes, it.Drop.Status))
		case it.TooLarge != nil:
			var e *base.Error
			if !errors.As(it.TooLarge, &e) || !errors.Is(it.TooLarge, logfile.ErrTooLarge) {
				t.Fatalf("too large: %v", it.TooLarge)
			}
			got = append(got, fmt.Sprintf("too large %d", e.Offset))
		case it.End != nil:
			got = append(got, fmt.Sprintf("end %d", it.End.Offset))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// 1039 bytes a record (7 + 1032): 31 whole in the first block; the
	// 32nd from 32209, 552 bytes of it there and its last 480 in the
	// second block, where reading resumes. The large record from 36372
	// takes 29157 bytes there, 32761 in each of the next two blocks and
	// its last 3625 in the fifth, from 131072: it ends at 134704.
	want := []string{
		"drop 0 32768 Corruption: checksum mismatch",
		"drop 32768 480 Corruption: missing start of fragmented record(2)",
		"record 33255 seq 33", "record 34294 seq 34", "record 35333 seq 35",
		"too large 36372",
		"record 134704 seq 37", "record 135743 seq 38", "record 136782 seq 39", "record 137821 seq 40",
		fmt.Sprintf("end %d", len(log)),
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("walk:\n got %q\nwant %q", got, want)
	}
}
