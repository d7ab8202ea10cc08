package base

import (
	"encoding/binary"
	"errors"
	"io/fs"
	"math"
	"strings"
	"syscall"
	"testing"
)

// Upstream's own tests, rewritten: util/coding_test.cc and
// db/filename_test.cc of LevelDB 1.23.

// TestVarint32 is Coding.Varint32: every (i/32) << (i%32), each decoded
// in as many bytes as it was encoded in.
func TestVarint32(t *testing.T) {
	var s []byte
	for i := uint32(0); i < 32*32; i++ {
		s = binary.AppendUvarint(s, uint64((i/32)<<(i%32)))
	}
	for i := uint32(0); i < 32*32; i++ {
		want := (i / 32) << (i % 32)
		got, n := DecodeVarint32(s)
		if n == 0 || got != want || n != len(binary.AppendUvarint(nil, uint64(want))) {
			t.Fatalf("value %d: %d in %d bytes", want, got, n)
		}
		s = s[n:]
	}
	if len(s) != 0 {
		t.Fatalf("%d bytes left", len(s))
	}
}

// TestVarint64 is Coding.Varint64: 0, 100, the largest values and those
// around every power of two.
func TestVarint64(t *testing.T) {
	values := []uint64{0, 100, math.MaxUint64, math.MaxUint64 - 1}
	for k := 0; k < 64; k++ {
		p := uint64(1) << k
		values = append(values, p, p-1, p+1)
	}
	var s []byte
	for _, v := range values {
		s = binary.AppendUvarint(s, v)
	}
	for _, want := range values {
		got, n := DecodeVarint64(s)
		if n == 0 || got != want || n != len(binary.AppendUvarint(nil, want)) {
			t.Fatalf("value %d: %d in %d bytes", want, got, n)
		}
		s = s[n:]
	}
	if len(s) != 0 {
		t.Fatalf("%d bytes left", len(s))
	}
}

// TestVarintOverflowTruncation is Coding.Varint32Overflow,
// Varint32Truncation, Varint64Overflow and Varint64Truncation; and, from
// GetVarint32PtrFallback's code, a 5th byte's bits past the 32nd dropped.
func TestVarintOverflowTruncation(t *testing.T) {
	if _, n := DecodeVarint32([]byte("\x81\x82\x83\x84\x85\x11")); n != 0 {
		t.Errorf("32-bit overflow decodes in %d bytes", n)
	}
	if _, n := DecodeVarint64([]byte("\x81\x82\x83\x84\x85\x81\x82\x83\x84\x85\x11")); n != 0 {
		t.Errorf("64-bit overflow decodes in %d bytes", n)
	}
	large32 := uint32(1<<31) + 100
	s := binary.AppendUvarint(nil, uint64(large32))
	for l := 0; l < len(s); l++ {
		if _, n := DecodeVarint32(s[:l]); n != 0 {
			t.Errorf("%d of %d bytes decode", l, len(s))
		}
	}
	if v, n := DecodeVarint32(s); v != large32 || n != len(s) {
		t.Errorf("%d in %d bytes, want %d in %d", v, n, large32, len(s))
	}
	large64 := uint64(1<<63) + 100
	s = binary.AppendUvarint(nil, large64)
	for l := 0; l < len(s); l++ {
		if _, n := DecodeVarint64(s[:l]); n != 0 {
			t.Errorf("%d of %d bytes decode", l, len(s))
		}
	}
	if v, n := DecodeVarint64(s); v != large64 || n != len(s) {
		t.Errorf("%d in %d bytes, want %d in %d", v, n, large64, len(s))
	}
	if v, n := DecodeVarint32([]byte("\xff\xff\xff\xff\x7f")); v != math.MaxUint32 || n != 5 {
		t.Errorf("a 5th byte of 0x7f: %#x in %d bytes, want 0xffffffff in 5", v, n)
	}
}

// TestLengthPrefixed is Coding.Strings.
func TestLengthPrefixed(t *testing.T) {
	want := []string{"", "foo", "bar", strings.Repeat("x", 200)}
	var s []byte
	for _, w := range want {
		s = binary.AppendUvarint(s, uint64(len(w)))
		s = append(s, w...)
	}
	for _, w := range want {
		got, n := DecodeLengthPrefixed(s)
		if n == 0 || string(got) != w {
			t.Fatalf("%q in %d bytes, want %q", got, n, w)
		}
		s = s[n:]
	}
	if len(s) != 0 {
		t.Fatalf("%d bytes left", len(s))
	}
	if _, n := DecodeLengthPrefixed([]byte("\x04abc")); n != 0 {
		t.Error("a length past the end decodes")
	}
}

// TestParseFileName is FileNameTest.Parse.
func TestParseFileName(t *testing.T) {
	for _, c := range []struct {
		name   string
		number uint64
		typ    FileType
	}{
		{"100.log", 100, LogFile},
		{"0.log", 0, LogFile},
		{"0.sst", 0, TableFile},
		{"0.ldb", 0, TableFile},
		{"CURRENT", 0, CurrentFile},
		{"LOCK", 0, DBLockFile},
		{"MANIFEST-2", 2, DescriptorFile},
		{"MANIFEST-7", 7, DescriptorFile},
		{"LOG", 0, InfoLogFile},
		{"LOG.old", 0, InfoLogFile},
		{"18446744073709551615.log", 18446744073709551615, LogFile},
	} {
		n, typ, ok := ParseFileName(c.name)
		if !ok || n != c.number || typ != c.typ {
			t.Errorf("%q: %d, %v, %v; want %d, %v", c.name, n, typ, ok, c.number, c.typ)
		}
	}
	for _, name := range []string{"", "foo", "foo-dx-100.log", ".log", "", "manifest", "CURREN", "CURRENTX",
		"MANIFES", "MANIFEST", "MANIFEST-", "XMANIFEST-3", "MANIFEST-3x", "LOC", "LOCKx", "LO", "LOGx",
		"18446744073709551616.log", "184467440737095516150.log", "100", "100.", "100.lop"} {
		if n, typ, ok := ParseFileName(name); ok {
			t.Errorf("%q: %d, %v; want no file name of a database", name, n, typ)
		}
	}
}

// TestTableFileName: the names TableFileName and SSTTableFileName give
// parse back as the table (FileNameTest.Construction does it for
// TableFileName).
func TestTableFileName(t *testing.T) {
	for _, f := range []func(string, uint64) string{TableFileName, SSTTableFileName} {
		name := f("bar", 200)
		if !strings.HasPrefix(name, "bar/") {
			t.Fatalf("%q is not in bar/", name)
		}
		if n, typ, ok := ParseFileName(name[len("bar/"):]); !ok || n != 200 || typ != TableFile || !HasTableExt(name) {
			t.Errorf("%q parses as %d, %v, %v", name, n, typ, ok)
		}
	}
}

// TestError: the text names the file (a table's saying so), the offset
// and the message, then the underlying error, which errors.Is finds.
func TestError(t *testing.T) {
	e := &Error{Type: TableFile, File: "x.ldb", Offset: 7, Msg: "bad", Err: ErrUndefined}
	if got, want := e.Error(), "table x.ldb: offset 7: bad: "+ErrUndefined.Error(); got != want {
		t.Errorf("%q, want %q", got, want)
	}
	if !errors.Is(e, ErrUndefined) || !IsUndefined(e) || StatusOf(e) != "" {
		t.Errorf("%v: Is %v, IsUndefined %v, status %q", e, errors.Is(e, ErrUndefined), IsUndefined(e), StatusOf(e))
	}
	m := &Error{Type: DescriptorFile, File: "MANIFEST-000001", Msg: "m", Status: "Corruption: x"}
	if got := m.Error(); got != "MANIFEST-000001: offset 0: m" || StatusOf(m) != "Corruption: x" {
		t.Errorf("%q, status %q", got, StatusOf(m))
	}
}

// TestIOStatus: PosixError's words (util/env_posix.cc): NotFound for
// ENOENT, IO error with strerror's text otherwise.
func TestIOStatus(t *testing.T) {
	if got := IOStatus("f", fs.ErrNotExist); got != "NotFound: f: No such file or directory" {
		t.Errorf("ENOENT: %q", got)
	}
	if got := IOStatus("f", syscall.EIO); got != "IO error: f: Input/output error" {
		t.Errorf("EIO: %q", got)
	}
	if got := IOStatus("f", errors.New("x")); got != "" {
		t.Errorf("no errno: %q", got)
	}
	if strerror(syscall.EACCES) != "Permission denied" {
		t.Errorf("EACCES: %q", strerror(syscall.EACCES))
	}
}
