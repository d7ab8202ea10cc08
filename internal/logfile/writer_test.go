package logfile_test

import (
	"bytes"
	"encoding/binary"
	"io"
	"strings"
	"testing"

	"github.com/ldbcompat/ldbcompat/internal/crc"
	"github.com/ldbcompat/ldbcompat/internal/logfile"
)

// bigString is log_test.cc's BigString: partial repeated to n bytes.
func bigString(partial string, n int) []byte {
	return []byte(strings.Repeat(partial, n/len(partial)+1)[:n])
}

// readAll reads a log with the package's reader and returns its records
// and the count of drops and skips.
func readAll(t *testing.T, data []byte) ([][]byte, int) {
	t.Helper()
	drops := 0
	r := logfile.NewReader(bytes.NewReader(data), "log", logfile.Options{
		OnDrop: func(logfile.Drop) { drops++ },
		OnSkip: func(logfile.Skip) { drops++ },
	})
	var out [][]byte
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return out, drops
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, bytes.Clone(rec.Data))
	}
}

// TestWriterSizes checks the sizes log_test.cc asserts (WrittenBytes),
// and that the reader returns every record of each log.
func TestWriterSizes(t *testing.T) {
	const B, H = logfile.BlockSize, logfile.HeaderSize
	for _, c := range []struct {
		name string
		recs [][]byte
		size int // after the first record
	}{
		{"MarginalTrailer", [][]byte{bigString("foo", B-2*H), nil, []byte("bar")}, B - H},
		{"ShortTrailer", [][]byte{bigString("foo", B-2*H+4), nil, []byte("bar")}, B - H + 4},
		{"exact block end", [][]byte{bigString("foo", B-H), []byte("bar")}, B},
		{"two blocks", [][]byte{bigString("foo", 2*B)}, 2*B + 3*H},
	} {
		if got := len(logfile.WriteLog(c.recs[:1])); got != c.size {
			t.Errorf("%s: first record takes %d bytes, want %d", c.name, got, c.size)
		}
		log := logfile.WriteLog(c.recs)
		recs, drops := readAll(t, log)
		if drops != 0 || len(recs) != len(c.recs) {
			t.Fatalf("%s: read %d records and %d drops, want %d records", c.name, len(recs), drops, len(c.recs))
		}
		for i := range recs {
			if !bytes.Equal(recs[i], c.recs[i]) {
				t.Errorf("%s: record %d differs", c.name, i)
			}
		}
	}
}

// TestWriterFragments checks the headers of a block left with n bytes
// (1..8) before a record of 10 bytes: fewer than 7 bytes are zeros and the
// record goes whole into the next block; 7 or more take a FIRST fragment
// (empty with 7) and the rest a LAST one.
func TestWriterFragments(t *testing.T) {
	const B, H = logfile.BlockSize, logfile.HeaderSize
	rec := []byte("0123456789")
	for left := 1; left <= 8; left++ {
		log := logfile.WriteLog([][]byte{make([]byte, B-H-left), rec})
		tail := log[B-left:]
		header := func(b []byte) (uint32, int, byte) {
			return binary.LittleEndian.Uint32(b), int(binary.LittleEndian.Uint16(b[4:])), b[6]
		}
		check := func(b []byte, typ byte, data []byte) {
			t.Helper()
			sum, n, got := header(b)
			want := crc.Mask(crc.Extend(crc.Value([]byte{typ}), data))
			if got != typ || n != len(data) || sum != want || !bytes.Equal(b[H:H+n], data) {
				t.Fatalf("left %d: header type %d length %d checksum %08x, want type %d length %d checksum %08x", left, got, n, sum, typ, len(data), want)
			}
		}
		if left < H {
			if !bytes.Equal(tail[:left], make([]byte, left)) {
				t.Fatalf("left %d: trailer % x, want zeros", left, tail[:left])
			}
			check(tail[left:], logfile.TypeFull, rec)
			continue
		}
		check(tail, logfile.TypeFirst, rec[:left-H])
		check(tail[left:], logfile.TypeLast, rec[left-H:])
	}
	if got := logfile.WriteLog([][]byte{nil}); len(got) != H || got[6] != logfile.TypeFull || got[4] != 0 {
		t.Fatalf("empty record: % x, want a FULL header of length 0", got)
	}
}
