//go:build leveldb

package logfile_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ldbcompat/ldbcompat/cgo/upstream"
	"github.com/ldbcompat/ldbcompat/internal/logfile"
	mt "github.com/ldbcompat/ldbcompat/internal/manifest/manifesttest"
)

// skipOld skips the differential tests where the linked release's reader
// is not 1.23's (log.go in cgo/upstream says how v1.4 to v1.15 differ).
func skipOld(tb testing.TB) {
	tb.Helper()
	if _, minor := upstream.Version(); minor <= 15 {
		tb.Skipf("package logfile follows the log reader of v1.16 and later; LevelDB %s reports a record cut short at the end of the file as corruption", upstream.Release())
	}
}

// ours reads data with logfile.Reader and returns what it did in
// upstream's terms, with the drops themselves.
func ours(t testing.TB, data []byte) ([]upstream.LogEvent, []logfile.Drop, logfile.End) {
	t.Helper()
	var evs []upstream.LogEvent
	var drops []logfile.Drop
	r := logfile.NewReader(bytes.NewReader(data), "log", logfile.Options{OnDrop: func(d logfile.Drop) {
		evs = append(evs, upstream.LogEvent{Drop: true, Bytes: uint64(d.Bytes), Status: d.Status})
		drops = append(drops, d)
	}, OnSkip: func(s logfile.Skip) {
		// Skips are not upstream events: carried as drops of no
		// bytes for the loss counts, and taken out of the events.
		drops = append(drops, logfile.Drop{Reason: "skip", Records: s.Records, AtLeast: s.AtLeast, Flip: s.Flip, Offset: -1})
	}})
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return evs, drops, r.End()
		}
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, upstream.LogEvent{Offset: uint64(rec.Offset), Record: bytes.Clone(rec.Data)})
	}
}

// diffLog compares our reading of data with upstream's, and returns ours.
func diffLog(t testing.TB, what string, data []byte) ([]upstream.LogEvent, []logfile.Drop, logfile.End) {
	t.Helper()
	up, err := upstream.ReadLog(data)
	if err != nil {
		t.Fatal(err)
	}
	evs, drops, end := ours(t, data)
	if !sameEvents(up.Events, evs) {
		t.Fatalf("%s (%d bytes): events (-upstream +got):\n%s", what, len(data), cmp.Diff(summary(up.Events), summary(evs)))
	}
	return evs, drops, end
}

// sameEvents tells whether a and b are the same records and drops; the
// records' offsets are compared from 1.19 on (see summary).
func sameEvents(a, b []upstream.LogEvent) bool {
	if len(a) != len(b) {
		return false
	}
	_, minor := upstream.Version()
	for i := range a {
		x, y := a[i], b[i]
		if x.Drop != y.Drop || (x.Offset != y.Offset && (minor >= 19 || x.Drop)) || x.Bytes != y.Bytes || x.Status != y.Status || !bytes.Equal(x.Record, y.Record) {
			return false
		}
	}
	return true
}

// summary is events as lines: a record's offset, length and first bytes,
// a drop's bytes and status. Releases before 1.19 misreport the offset of
// a record that follows a block's trailer (LastRecordOffset did not count
// the skipped trailer and header, fixed in 1.19): their offsets are left
// out.
func summary(evs []upstream.LogEvent) []string {
	_, minor := upstream.Version()
	var s []string
	for _, e := range evs {
		switch {
		case e.Drop:
			s = append(s, fmt.Sprintf("drop %d bytes: %s", e.Bytes, e.Status))
		case minor < 19:
			s = append(s, fmt.Sprintf("record: %d bytes %x", len(e.Record), e.Record[:min(8, len(e.Record))]))
		default:
			s = append(s, fmt.Sprintf("record at %d: %d bytes %x", e.Offset, len(e.Record), e.Record[:min(8, len(e.Record))]))
		}
	}
	return s
}

// records returns the logical records of sizes n, each of bytes derived
// from its index, so that no two are alike.
func records(sizes ...int) [][]byte {
	recs := make([][]byte, len(sizes))
	for i, n := range sizes {
		r := rand.New(rand.NewPCG(uint64(i), uint64(n)))
		recs[i] = make([]byte, n)
		for j := range recs[i] {
			recs[i][j] = byte(r.Uint32())
		}
	}
	return recs
}

// layouts are logs of records laid out to reach every boundary case of
// log::Writer: empty records, records spanning blocks, a record ending
// exactly at a block's end, a block left with fewer than 7 bytes (a
// trailer) and with exactly 7 (an empty FIRST fragment, as old writers
// emitted).
func layouts() map[string][][]byte {
	const B, H = logfile.BlockSize, logfile.HeaderSize
	return map[string][][]byte{
		"empty log":              nil,
		"one empty record":       records(0),
		"small records":          records(1, 10, 0, 100, 1000, 0, 5),
		"spanning blocks":        records(100, 3*B, 50, B, 2*B+17),
		"exact block end":        records(B-H, 10, B-2*H-20, 20-H, 3),
		"trailer of 6":           records(B-H-6, 100, 40),
		"trailer of 1":           records(B-H-1, 100),
		"seven bytes left":       records(B-2*H, 1000, 20),
		"seven bytes, full next": records(B-2*H, 10),
		"many":                   records(make([]int, 400)...),
	}
}

// TestUpstreamLogLayouts reads logs upstream's log::Writer wrote, whole
// and damaged in every way the reader distinguishes, and requires the
// records and drops of upstream's log::Reader.
func TestUpstreamLogLayouts(t *testing.T) {
	skipOld(t)
	for name, recs := range layouts() {
		t.Run(name, func(t *testing.T) {
			log := upstream.WriteLog(recs)
			evs, _, end := diffLog(t, "intact", log)
			if len(evs) != len(recs) {
				t.Fatalf("intact: %d events, want the %d records", len(evs), len(recs))
			}
			if end.Torn != 0 || end.Pending >= 0 || end.Records != 0 {
				t.Errorf("intact: end %+v", end)
			}
			step := max(1, len(log)/150)
			for off := 0; off < len(log); off += step {
				for _, bit := range []int{0, 7} {
					d := bytes.Clone(log)
					d[off] ^= 1 << bit
					diffLog(t, fmt.Sprintf("bit %d of byte %d flipped", bit, off), d)
				}
				for _, n := range []int{1, 7, 100, logfile.BlockSize} {
					d := bytes.Clone(log)
					clear(d[off:min(off+n, len(d))])
					diffLog(t, fmt.Sprintf("%d bytes zeroed at %d", n, off), d)
				}
				for _, typ := range []byte{0, 5, 6, 7, 127, 128, 255} {
					d := bytes.Clone(log)
					if off+logfile.HeaderSize <= len(d) {
						d[off+6] = typ
						diffLog(t, fmt.Sprintf("type byte at %d set to %d", off+6, typ), d)
					}
				}
			}
			// A torn tail: the last record cut at every offset.
			if len(recs) > 0 {
				last := len(upstream.WriteLog(recs[:len(recs)-1]))
				start := last // where the last record's header is
				if left := logfile.BlockSize - last%logfile.BlockSize; left < logfile.HeaderSize {
					start += left
				}
				for cut := last; cut < len(log); cut += max(1, (len(log)-last)/200) {
					_, _, end := diffLog(t, fmt.Sprintf("cut at %d", cut), log[:cut])
					if cut > start && end.Records != 1 {
						t.Fatalf("cut at %d: end %+v, want the cut record lost", cut, end)
					}
				}
			}
		})
	}
}

// physical returns one physical record of type typ, checksummed.
func physical(typ byte, data []byte) []byte {
	var w mt.Log
	w.Physical(typ, data)
	return w.Bytes()
}

// TestUpstreamLogPhysical reads logs of physical records of every type
// placed by hand, in and out of fragmented records, checksums valid:
// types 5 and 6 (taken for the reader's own end of file and bad record),
// 0 with and without length, unknown types, fragments out of order.
func TestUpstreamLogPhysical(t *testing.T) {
	skipOld(t)
	types := []byte{0, 1, 2, 3, 4, 5, 6, 7, 100, 128, 255}
	for _, a := range types {
		for _, b := range types {
			for _, c := range types {
				for _, n := range []int{0, 3} {
					var d []byte
					d = append(d, physical(a, bytes.Repeat([]byte{'a'}, n))...)
					d = append(d, physical(b, []byte("bb"))...)
					d = append(d, physical(c, nil)...)
					d = append(d, physical(1, []byte("full"))...)
					diffLog(t, fmt.Sprintf("types %d(%d) %d %d", a, n, b, c), d)
				}
			}
		}
	}
}

// TestUpstreamLogFile reads a log through a file, as RecoverLogFile does.
func TestUpstreamLogFile(t *testing.T) {
	skipOld(t)
	log := upstream.WriteLog(records(10, 50000, 3))
	log[40000] ^= 4
	path := filepath.Join(t.TempDir(), "000003.log")
	if err := os.WriteFile(path, log, 0o644); err != nil {
		t.Fatal(err)
	}
	up, err := upstream.ReadLogFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	evs, _, _ := ours(t, log)
	if !sameEvents(up.Events, evs) {
		t.Fatalf("events (-upstream +got):\n%s", cmp.Diff(summary(up.Events), summary(evs)))
	}
	if up, _ := upstream.ReadLogFile(path + ".missing"); up.OpenStatus == "" {
		t.Error("a missing file opened")
	}
}

// TestUpstreamFlipsAndLosses flips one bit anywhere in logs of write
// batches that upstream wrote, and requires, besides upstream's events,
// that Drop.Flip names the bit flipped, and that the records found lost
// are those written less those upstream's reader returns.
func TestUpstreamFlipsAndLosses(t *testing.T) {
	skipOld(t)
	for name, recs := range layouts() {
		t.Run(name, func(t *testing.T) {
			log := upstream.WriteLog(recs)
			step := max(1, len(log)/400)
			for off := 0; off < len(log); off += step {
				bit := off % 8
				d := bytes.Clone(log)
				d[off] ^= 1 << bit
				evs, drops, end := diffLog(t, fmt.Sprintf("bit %d of byte %d flipped", bit, off), d)
				returned := 0
				for _, e := range evs {
					if !e.Drop {
						returned++
					}
				}
				lost, atLeast := end.Records, end.AtLeast
				if end.Flip != nil && (end.Flip.Offset != int64(off) || end.Flip.Bit != bit) {
					t.Fatalf("byte %d bit %d flipped: end %+v, flip %+v", off, bit, end, end.Flip)
				}
				for _, dr := range drops {
					lost += dr.Records
					atLeast = atLeast || dr.AtLeast
					if dr.Reason == "checksum mismatch" || dr.Reason == "bad record length" || dr.Reason == "skip" && dr.Flip != nil {
						if dr.Flip == nil || dr.Flip.Offset != int64(off) || dr.Flip.Bit != bit {
							t.Fatalf("byte %d bit %d flipped: drop %+v, flip %+v", off, bit, dr, dr.Flip)
						}
					}
				}
				if lost != len(recs)-returned || atLeast {
					t.Fatalf("byte %d bit %d flipped: %d records lost (at least: %v), want %d - %d; drops %+v", off, bit, lost, atLeast, len(recs), returned, drops)
				}
			}
		})
	}
}

// FuzzUpstreamLog is the differential test of logfile.Reader against
// upstream's log::Reader: a log upstream's log::Writer wrote (records of
// sizes the input picks), then mutated by a program of raw edits (bits
// flipped, ranges zeroed or set, the file cut short, physical records of
// any type inserted); the records and drops must be upstream's, in order.
func FuzzUpstreamLog(f *testing.F) {
	skipOld(f)
	f.Add([]byte{10, 200, 3}, []byte{})
	f.Add([]byte{255, 255, 255, 1}, []byte{0, 0, 1, 0})
	f.Add([]byte{0, 0, 7}, []byte{1, 40, 0, 9, 3, 5})
	for op := byte(0); op < 6; op++ {
		f.Add([]byte{100, 80, 60, 40}, []byte{op, 7, 1, 3, op, 0, 128, 2})
	}
	f.Fuzz(func(t *testing.T, sizes, prog []byte) {
		if len(sizes) > 64 {
			sizes = sizes[:64]
		}
		var ns []int
		for _, s := range sizes {
			ns = append(ns, int(s)*int(s)) // up to 65025: records spanning blocks
		}
		log := mutate(upstream.WriteLog(records(ns...)), prog)
		diffLog(t, fmt.Sprintf("sizes %v, program %x", ns, prog), log)
	})
}

// mutate applies a program of raw edits to log: each op a byte followed by
// its arguments (missing bytes read as 0).
func mutate(log []byte, prog []byte) []byte {
	i := 0
	next := func() int {
		if i >= len(prog) {
			return 0
		}
		i++
		return int(prog[i-1])
	}
	at := func() int {
		v := next() | next()<<8 | next()<<16
		if len(log) == 0 {
			return 0
		}
		return v % len(log)
	}
	for steps := 0; i < len(prog) && steps < 16; steps++ {
		switch next() % 6 {
		case 0: // flip a bit
			if off := at(); len(log) > 0 {
				log[off] ^= 1 << (next() % 8)
			}
		case 1: // zero a range
			off, n := at(), next()*next()
			clear(log[off:min(off+n, len(log))])
		case 2: // cut the file
			log = log[:at()]
		case 3: // insert a physical record of any type
			off, typ, n := at(), byte(next()), next()
			p := physical(typ, bytes.Repeat([]byte{byte(n)}, n))
			log = append(log[:off:off], append(p, log[off:]...)...)
		case 4: // set a byte
			if off := at(); len(log) > 0 {
				log[off] = byte(next())
			}
		case 5: // set a length field
			if off := at(); off+7 <= len(log) {
				binary.LittleEndian.PutUint16(log[off+4:], uint16(next()|next()<<8))
			}
		}
	}
	return log
}

// TestUpstreamBatches runs WriteBatch::Iterate and DecodeBatch on batches
// well-formed and damaged byte by byte, cut short and extended, and
// requires the same header, ops and status.
func TestUpstreamBatches(t *testing.T) {
	bases := [][]byte{
		encodeBatch(1),
		encodeBatch(7, op{put: true, key: "a", value: "1"}, op{key: "b"}, op{put: true, key: "", value: ""}),
		encodeBatch(1<<62, op{put: true, key: strings.Repeat("k", 200), value: strings.Repeat("v", 300)}, op{key: "x"}),
	}
	for _, b := range bases {
		cases := [][]byte{b, append(bytes.Clone(b), 1), append(bytes.Clone(b), 0, 0x80)}
		for n := 0; n < len(b); n++ {
			cases = append(cases, b[:n])
		}
		for i := range b {
			for _, v := range []byte{0, 1, 2, 0x7f, 0x80, 0xff} {
				c := bytes.Clone(b)
				c[i] = v
				cases = append(cases, c)
			}
		}
		for _, c := range cases {
			diffBatch(t, c)
		}
	}
}

func diffBatch(t *testing.T, data []byte) {
	t.Helper()
	up, err := upstream.IterateBatch(data)
	if err != nil {
		t.Fatal(err)
	}
	got := upstream.BatchIteration{}
	b, err := logfile.NewBatch(data)
	if err == nil {
		got.Sequence, got.Count = b.Sequence, b.Count
		_, err = b.Iterate(func(o logfile.Op) {
			got.Ops = append(got.Ops, upstream.BatchOp{Put: o.Kind == logfile.OpPut, Key: o.Key, Value: o.Value})
		})
	}
	if err != nil {
		got.Status = err.(*logfile.BatchError).Status()
	}
	// DeepEqual first: cmp's reflection was most of TestUpstreamBatches'
	// time (minutes under qemu-user).
	if reflect.DeepEqual(*up, got) {
		return
	}
	if diff := cmp.Diff(*up, got, cmpopts.EquateEmpty()); diff != "" {
		t.Fatalf("batch %x: (-upstream +got):\n%s", data, diff)
	}
}

// TestUpstreamRecovery is db/corruption_test.cc's Recovery and more, run
// through upstream's DB::Open: a database whose log holds n writes that
// upstream's log::Writer wrote, damaged, opened under the defaults and
// under paranoid checks. Recover must say how many writes DB::Open keeps
// (each write a distinct key), how many are lost (the writes less those
// kept), and with which status paranoid checks refuse the database.
func TestUpstreamRecovery(t *testing.T) {
	skipOld(t)
	const n = 100
	damages := map[string]func([]byte) []byte{
		"intact":               func(l []byte) []byte { return l },
		"corruption_test":      func(l []byte) []byte { l[19] ^= 0x80; l[logfile.BlockSize+1000] ^= 0x80; return l },
		"second block":         func(l []byte) []byte { l[logfile.BlockSize+5000] ^= 1; return l },
		"a length":             func(l []byte) []byte { l[2*logfile.BlockSize+1044+5] ^= 0x40; return l },
		"torn":                 func(l []byte) []byte { return l[:len(l)-500] },
		"torn header":          func(l []byte) []byte { return l[:len(l)-1035] },
		"type 5 in the middle": func(l []byte) []byte { l[1032+7+6] = 5; return l },
		"last block zeroed":    func(l []byte) []byte { clear(l[3*logfile.BlockSize:]); return l },
	}
	for name, damage := range damages {
		t.Run(name, func(t *testing.T) {
			log := damage(upstream.WriteLog(corruptionLog(n, 101)))
			rec := logfile.Recover(bytes.NewReader(log), "000003.log", logfile.Options{})
			for _, paranoid := range []bool{false, true} {
				dir := t.TempDir()
				if err := mt.WriteDB(dir, 2); err != nil { // log number 3, last sequence 100
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, "000003.log"), log, 0o644); err != nil {
					t.Fatal(err)
				}
				up, err := upstream.OpenScan(dir, paranoid)
				if err != nil {
					t.Fatal(err)
				}
				o := rec.Defaults
				if paranoid {
					o = rec.Paranoid
				}
				if wantFail := up.OpenStatus != ""; o.Failed != wantFail || (wantFail && upstream.Reword(o.Status) != up.OpenStatus) {
					t.Fatalf("paranoid %v: ours %+v; upstream %q", paranoid, o, up.OpenStatus)
				}
				if up.OpenStatus != "" {
					continue
				}
				if int64(len(up.Keys)) != o.Ops {
					t.Fatalf("paranoid %v: %d ops applied; upstream's DB holds %d entries", paranoid, o.Ops, len(up.Keys))
				}
				if lost := n - len(up.Keys); !paranoid && (rec.Lost.AtLeast && rec.Lost.Records > lost || !rec.Lost.AtLeast && rec.Lost.Records != lost) {
					t.Fatalf("lost %+v; upstream kept %d of %d writes", rec.Lost, len(up.Keys), n)
				}
			}
		})
	}
}
