package cases

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/ldbcompat/ldbcompat/internal/crc"
)

// Log format constants (db/log_format.h).
const (
	logBlock  = 32768
	logHeader = 7
)

// LogCase is a log: the records one log::Writer (db/log_writer.cc) writes
// into a new file, and the edits that damage upstream's bytes, if any.
type LogCase struct {
	Name    string
	Records [][]byte
	Edits   []LogEdit
	What    string // what the edits do, in words
}

// Damaged tells whether c's log is edited after upstream wrote it.
func (c LogCase) Damaged() bool { return len(c.Edits) > 0 }

// LogEditOp is what a LogEdit does.
type LogEditOp int

// The edits.
const (
	EditXor         LogEditOp = iota // byte ^= Val
	EditAdd                          // byte += Val (log_test.cc's IncrementByte)
	EditSet                          // byte = Val (SetByte)
	EditFill                         // Len bytes = Val
	EditCut                          // the file ends at the offset (ShrinkSize)
	EditFixChecksum                  // the checksum of the header at the offset is made right for its type and data (FixChecksum)
)

// LogEdit is one change to a log's bytes, at Off from the header of
// physical record Frag of the clean log, or with Frag -1 from the file's
// start (its end if Off is negative).
type LogEdit struct {
	Op   LogEditOp
	Frag int
	Off  int
	Len  int // bytes filled by EditFill
	Val  byte
}

// LogFragments returns the offsets of the headers of the physical records
// of a clean log, in order: a block's last 6 bytes or fewer hold none.
func LogFragments(log []byte) []int {
	var out []int
	for pos := 0; pos+logHeader <= len(log); {
		if left := logBlock - pos%logBlock; left < logHeader {
			pos += left
			continue
		}
		out = append(out, pos)
		pos += logHeader + int(binary.LittleEndian.Uint16(log[pos+4:]))
	}
	return out
}

// Damage returns a copy of log, upstream's clean log of c, with c's edits
// made; an error says an edit falls outside it.
func (c LogCase) Damage(log []byte) ([]byte, error) {
	frags := LogFragments(log)
	out := append([]byte(nil), log...)
	for i, e := range c.Edits {
		at := e.Off
		switch {
		case e.Frag >= len(frags):
			return nil, fmt.Errorf("log case %q, edit %d: no physical record %d (the log has %d)", c.Name, i, e.Frag, len(frags))
		case e.Frag >= 0:
			at += frags[e.Frag]
		case at < 0:
			at += len(out)
		}
		if at < 0 || at > len(out) || (at == len(out) && e.Op != EditCut) {
			return nil, fmt.Errorf("log case %q, edit %d: offset %d outside the log of %d bytes", c.Name, i, at, len(out))
		}
		switch e.Op {
		case EditXor:
			out[at] ^= e.Val
		case EditAdd:
			out[at] += e.Val
		case EditSet:
			out[at] = e.Val
		case EditFill:
			for j := at; j < at+e.Len && j < len(out); j++ {
				out[j] = e.Val
			}
		case EditCut:
			out = out[:at]
		case EditFixChecksum:
			if at+logHeader > len(out) {
				return nil, fmt.Errorf("log case %q, edit %d: header at %d cut short", c.Name, i, at)
			}
			n := int(binary.LittleEndian.Uint16(out[at+4:]))
			if at+logHeader+n > len(out) {
				return nil, fmt.Errorf("log case %q, edit %d: record at %d cut short", c.Name, i, at)
			}
			sum := crc.Mask(crc.Value(out[at+6 : at+logHeader+n]))
			binary.LittleEndian.PutUint32(out[at:], sum)
		}
	}
	return out, nil
}

// bigString is log_test.cc's BigString: partial repeated to n bytes.
func bigString(partial string, n int) []byte {
	return []byte(strings.Repeat(partial, n/len(partial)+1)[:n])
}

// strs returns ss as records.
func strs(ss ...string) [][]byte {
	out := make([][]byte, len(ss))
	for i, s := range ss {
		out[i] = []byte(s)
	}
	return out
}

// sized returns records of the sizes given, each of bytes drawn from a
// generator seeded by its index and size, so that no two are alike.
func sized(sizes ...int) [][]byte {
	out := make([][]byte, len(sizes))
	for i, n := range sizes {
		r := rand.New(rand.NewPCG(uint64(i), uint64(n)))
		out[i] = make([]byte, n+7)
		for j := 0; j < n; j += 8 {
			binary.LittleEndian.PutUint64(out[i][j:], r.Uint64())
		}
		out[i] = out[i][:n:n]
	}
	return out
}

// skewedSizes returns n sizes as log_test.cc's RandomSkewedString draws
// them (Random::Skewed(17)).
func skewedSizes(seed uint64, n int) []int {
	r := rand.New(rand.NewPCG(seed, 17))
	out := make([]int, n)
	for i := range out {
		out[i] = r.IntN(1 << r.IntN(18))
	}
	return out
}

// cleanLogCases are the logs written whole.
func cleanLogCases() []LogCase {
	const B, H = logBlock, logHeader
	var cs []LogCase
	add := func(name string, recs [][]byte) { cs = append(cs, LogCase{Name: "log/" + name, Records: recs}) }
	add("empty", nil)
	add("read-write", strs("foo", "bar", "", "xxxx"))
	add("empty-records", [][]byte{nil, nil, nil})
	many := make([][]byte, 100000)
	for i := range many {
		many[i] = []byte(fmt.Sprintf("%d.", i))
	}
	add("many-blocks", many)
	add("fragmentation", [][]byte{[]byte("small"), bigString("medium", 50000), bigString("large", 100000)})
	add("marginal-trailer", [][]byte{bigString("foo", B-2*H), nil, []byte("bar")})
	add("marginal-trailer2", [][]byte{bigString("foo", B-2*H), []byte("bar")})
	add("short-trailer", [][]byte{bigString("foo", B-2*H+4), nil, []byte("bar")})
	add("aligned-eof", [][]byte{bigString("foo", B-2*H+4)})
	add("block-end-exact", sized(B-H, 10, B-2*H-20, 20-H, 3))
	add("block-end-exact-last", sized(100, 2*(B-H)-100-H, 5))
	for left := 1; left <= 8; left++ {
		// A block left with 1..6 bytes is zero-filled; with 7 it takes
		// an empty FIRST fragment, with 8 a FIRST of one byte.
		add(fmt.Sprintf("left-%d", left), sized(B-H-left, 100, 0, left))
		add(fmt.Sprintf("left-%d-empty", left), sized(B-H-left, 0, 3))
	}
	add("spans-blocks", sized(100, 3*B, 50, B, 2*B+17))
	add("every-byte", [][]byte{[]byte(allBytes()), []byte(strings.Repeat("\x00", 1000)), []byte(strings.Repeat("\xff", 1000))})
	add("random", sized(skewedSizes(301, 200)...))
	return cs
}

// allBytes returns the bytes 0..255 in order.
func allBytes() string {
	var sb strings.Builder
	for i := 0; i < 256; i++ {
		sb.WriteByte(byte(i))
	}
	return sb.String()
}

// damageBase is a log of three blocks and more: small records, a record
// spanning the first two blocks, small records in the second block, and
// one spanning the third and fourth.
func damageBase() [][]byte {
	recs := strs("foo", "bar", "", "baz")
	recs = append(recs, bigString("span", 40000))
	recs = append(recs, strs("qux", "quux", "corge")...)
	recs = append(recs, bigString("long", 70000))
	return append(recs, strs("grault", "end")...)
}

// Fragments of damageBase's log: 0..3 the small records, 4 and 5 the
// FIRST and LAST of record 4, 6..8 records 5..7, 9..11 record 8's FIRST,
// MIDDLE and LAST, 12 and 13 the last two records.

// damagedLogCases are upstream's logs damaged and torn, and log_test.cc's
// corruption cases.
func damagedLogCases() []LogCase {
	const B, H = logBlock, logHeader
	var cs []LogCase
	add := func(name, what string, recs [][]byte, edits ...LogEdit) {
		cs = append(cs, LogCase{Name: "log/damaged/" + name, Records: recs, Edits: edits, What: what})
	}
	base := damageBase()
	xor := func(frag, off int, v byte) LogEdit { return LogEdit{Op: EditXor, Frag: frag, Off: off, Val: v} }
	set := func(frag, off int, v byte) LogEdit { return LogEdit{Op: EditSet, Frag: frag, Off: off, Val: v} }
	fix := func(frag int) LogEdit { return LogEdit{Op: EditFixChecksum, Frag: frag} }
	cut := func(off int) LogEdit { return LogEdit{Op: EditCut, Frag: -1, Off: off} }

	add("header-checksum", "a bit of record 1's stored checksum flipped", base, xor(1, 0, 0x01))
	add("payload", "a bit of record 0's data flipped", base, xor(0, H+1, 0x10))
	add("length-up", "record 1's length one more", base, xor(1, 4, 0x01))
	add("length-high", "the high byte of record 3's length set", base, set(3, 5, 0x7f))
	add("length-zero", "record 3's length set to 0", base, set(3, 4, 0))
	add("type-flip", "a bit of record 0's type flipped", base, xor(0, 6, 0x04))
	add("bad-type", "record 1's type set to 7, checksum fixed", base, set(1, 6, 7), fix(1))
	add("type-eof", "record 1's type set to 5 (the reader's end of file), checksum fixed", base, set(1, 6, 5), fix(1))
	add("type-bad", "record 1's type set to 6 (the reader's bad record), checksum fixed", base, set(1, 6, 6), fix(1))
	add("type-zero", "record 1's header zeroed (type 0, length 0: preallocated space)", base, LogEdit{Op: EditFill, Frag: 1, Len: H})
	// A type 0 record is preallocated space only when its length is 0,
	// whatever its checksum; one with data is an unknown type.
	add("type-zero-checksum", "record 2 (empty) given type 0, checksum fixed: preallocated space with a checksum that matches", base, set(2, 6, 0), fix(2))
	add("type-zero-data", "record 1's type set to 0, checksum fixed: type 0 with data, an unknown type", base, set(1, 6, 0), fix(1))
	add("middle-first", "the FIRST fragment of record 4 made FULL, checksum fixed", base, set(4, 6, 1), fix(4))
	add("lost-middle", "the MIDDLE fragment of record 8 made LAST, checksum fixed", base, set(10, 6, 4), fix(10))
	add("zeroed-block", "the second block zeroed", base, LogEdit{Op: EditFill, Frag: -1, Off: B, Len: B})
	add("wiped-block", "the third block overwritten with 'x'", base, LogEdit{Op: EditFill, Frag: -1, Off: 2 * B, Len: B, Val: 'x'})
	add("block-checksum", "a bit of the second block's first checksum flipped", base, xor(5, 2, 0x80))
	add("last-fragment", "a bit of the LAST fragment of record 8 flipped", base, xor(11, H+100, 0x01))
	add("torn-header", "the log cut 3 bytes into the last record's header", base, LogEdit{Op: EditCut, Frag: 13, Off: 3})
	add("torn-record", "the log cut inside the last record's data", base, cut(-1))
	add("torn-fragment", "the log cut inside the LAST fragment of record 8", base, LogEdit{Op: EditCut, Frag: 11, Off: H + 10})
	add("torn-after-first", "the log cut after the FIRST fragment of record 8", base, LogEdit{Op: EditCut, Frag: 10, Off: 0})
	add("torn-at-block", "the log cut at a block's end, after the FIRST fragment of record 1", sized(100, B), cut(B))

	// log_test.cc's error cases.
	add("ChecksumMismatch", "log_test.cc ChecksumMismatch", strs("foo"), LogEdit{Op: EditAdd, Frag: 0, Off: 0, Val: 10})
	add("BadRecordType", "log_test.cc BadRecordType", strs("foo"), LogEdit{Op: EditAdd, Frag: 0, Off: 6, Val: 100}, fix(0))
	add("TruncatedTrailingRecordIsIgnored", "log_test.cc TruncatedTrailingRecordIsIgnored", strs("foo"), cut(-4))
	add("BadLength", "log_test.cc BadLength", [][]byte{bigString("bar", B-H), []byte("foo")}, LogEdit{Op: EditAdd, Frag: 0, Off: 4, Val: 1})
	add("BadLengthAtEndIsIgnored", "log_test.cc BadLengthAtEndIsIgnored", strs("foo"), cut(-1))
	add("UnexpectedMiddleType", "log_test.cc UnexpectedMiddleType", strs("foo"), set(0, 6, 3), fix(0))
	add("UnexpectedLastType", "log_test.cc UnexpectedLastType", strs("foo"), set(0, 6, 4), fix(0))
	add("UnexpectedFullType", "log_test.cc UnexpectedFullType", strs("foo", "bar"), set(0, 6, 2), fix(0))
	add("UnexpectedFirstType", "log_test.cc UnexpectedFirstType", [][]byte{[]byte("foo"), bigString("bar", 100000)}, set(0, 6, 2), fix(0))
	add("MissingLastIsIgnored", "log_test.cc MissingLastIsIgnored", [][]byte{bigString("bar", B)}, cut(-14))
	add("PartialLastIsIgnored", "log_test.cc PartialLastIsIgnored", [][]byte{bigString("bar", B)}, cut(-1))
	add("ErrorJoinsRecords", "log_test.cc ErrorJoinsRecords", [][]byte{bigString("foo", B), bigString("bar", B), []byte("correct")},
		LogEdit{Op: EditFill, Frag: -1, Off: B, Len: B, Val: 'x'})
	return cs
}

// LogCases returns the log cases the golden vectors hold: clean logs,
// then damaged ones.
func LogCases() []LogCase { return append(cleanLogCases(), damagedLogCases()...) }

// LiveLogCases returns the log cases asked of upstream only live: logs of
// records of random sizes, from log_test.cc's skewed distribution.
func LiveLogCases() []LogCase {
	var cs []LogCase
	for seed := uint64(1); seed <= 20; seed++ {
		cs = append(cs, LogCase{Name: fmt.Sprintf("live/log/random-%d", seed), Records: sized(skewedSizes(seed, 50)...)})
	}
	return cs
}

// FindLog returns the log case named name, of LogCases or LiveLogCases.
func FindLog(name string) (LogCase, bool) {
	var all []LogCase
	switch {
	case strings.HasPrefix(name, "live/"):
		all = LiveLogCases()
	case strings.HasPrefix(name, "log/damaged/"):
		all = damagedLogCases()
	default:
		all = cleanLogCases()
	}
	return first(all, name, func(c LogCase) string { return c.Name })
}

// In returns the case's In field: the fingerprint of its records and
// edits.
func (c LogCase) In() string {
	f := new(fingerprint).list(c.Records).u64(uint64(len(c.Edits)))
	for _, e := range c.Edits {
		f.u64(uint64(e.Op)).u64(uint64(int64(e.Frag))).u64(uint64(int64(e.Off))).u64(uint64(e.Len)).u64(uint64(e.Val))
	}
	return f.String()
}

// EncodeRecords writes the records a reader returns as a record's Ans:
// their count and the fingerprint of them all.
func EncodeRecords(recs [][]byte) string {
	return fmt.Sprintf("%d:%s", len(recs), new(fingerprint).list(recs).String())
}
