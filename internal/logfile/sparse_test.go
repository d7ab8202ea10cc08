package logfile_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ldbcompat/ldbcompat/internal/logfile"
	mt "github.com/ldbcompat/ldbcompat/internal/manifest/manifesttest"
)

// walkEvents walks the log from r and returns its records, drops and end
// as lines, leaving out skips (one skip of a hole stands for the many skips
// of its blocks).
func walkEvents(t *testing.T, r io.Reader) []string {
	t.Helper()
	var out []string
	err := logfile.Walk(r, "log", logfile.Options{}, func(it logfile.Item) error {
		switch {
		case it.Record != nil:
			out = append(out, fmt.Sprintf("record at %d: %d bytes %x", it.Record.Offset, len(it.Record.Data), it.Record.Data[:min(8, len(it.Record.Data))]))
		case it.Drop != nil:
			out = append(out, fmt.Sprintf("drop at %d: %d bytes %s", it.Drop.Start, it.Drop.Bytes, it.Drop.Status))
		case it.End != nil:
			out = append(out, fmt.Sprintf("end at %d, torn %d", it.End.Offset, it.End.Torn))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSparseHoles: a log file with holes (a sparse file, its holes read as
// zeros) is read as its bytes are, records, drops and end alike, whether
// the reader skips the holes (a file) or reads every zero (a stream); a
// hole of 100 GB is skipped in an instant. The logs are written here as
// log::Writer frames records; the holes are made by growing the file.
func TestSparseHoles(t *testing.T) {
	dir := t.TempDir()
	rec := func(i, n int) []byte { return bytes.Repeat([]byte{byte('a' + i)}, n) }
	for _, tc := range []struct {
		name string
		hole int64 // blocks of zeros
		// cut makes the first part end inside a fragmented record.
		cut bool
	}{
		{"hole between records", 64, false},
		{"hole inside a fragmented record", 64, true},
		{"hole at the end", 64, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var a mt.Log
			a.Add(rec(0, 100))
			a.Add(rec(1, 50000)) // spans blocks 0 and 1
			first := a.Bytes()
			if tc.cut {
				first = first[:mt.BlockSize] // the record's first fragment only
			} else {
				first = append(first, make([]byte, 2*mt.BlockSize-len(first))...)
			}
			p := filepath.Join(dir, tc.name+".log")
			if err := os.WriteFile(p, first, 0o644); err != nil {
				t.Fatal(err)
			}
			size := int64(len(first)) + tc.hole*mt.BlockSize
			if err := os.Truncate(p, size); err != nil {
				t.Fatal(err)
			}
			if tc.name != "hole at the end" {
				var b mt.Log
				b.Add(rec(2, 10))
				b.Add(rec(3, 40000))
				f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := f.Write(b.Bytes()); err != nil {
					t.Fatal(err)
				}
				f.Close()
			}
			all, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			want := walkEvents(t, bytes.NewReader(all)) // every zero read
			f, err := os.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			got := walkEvents(t, f)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("read as a file:\n%q\nread as a stream:\n%q", got, want)
			}
		})
	}
	// A 100 GB hole between two records: read in well under a second.
	p := filepath.Join(dir, "huge.log")
	var a mt.Log
	a.Add(rec(0, 100))
	first := append(a.Bytes(), make([]byte, mt.BlockSize-a.Len())...)
	if err := os.WriteFile(p, first, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(p, int64(len(first))+100<<30); err != nil {
		t.Skipf("no sparse file of 100 GB here: %v", err)
	}
	f, err := os.OpenFile(p, os.O_RDWR|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	var b mt.Log
	b.Add(rec(1, 10))
	if _, err := f.Write(b.Bytes()); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	start := time.Now()
	got := walkEvents(t, f)
	want := []string{"record at 0: 100 bytes 6161616161616161", fmt.Sprintf("record at %d: 10 bytes 6262626262626262", int64(len(first))+100<<30), fmt.Sprintf("end at %d, torn 0", int64(len(first))+100<<30+int64(b.Len()))}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("100 GB hole: %q, want %q", got, want)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("100 GB hole read in %v", d)
	}
}
