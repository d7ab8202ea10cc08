//go:build leveldb

package manifest_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ldbcompat/ldbcompat/cgo/upstream"
	"github.com/ldbcompat/ldbcompat/internal/base"
	"github.com/ldbcompat/ldbcompat/internal/manifest"
	mt "github.com/ldbcompat/ldbcompat/internal/manifest/manifesttest"
	"github.com/ldbcompat/ldbcompat/internal/table/tabletest"
)

// FuzzUpstreamManifest is the differential test of Read and ReadWith (and
// Missing) against upstream LevelDB 1.23's VersionSet::Recover, with
// LevelDB's default comparator and with another one, and DBImpl::Recover's
// missing-file check (cgo/upstream RecoverManifest). Each input picks a
// base MANIFEST (one upstream wrote, from testdata/tables, or one built
// with manifesttest) and a program of structured edits (see mutateLog):
// records dropped, repeated, swapped, damaged behind a valid checksum or
// cut short; version edits appended from a grammar of every field (files
// re-added, deleted, at bad levels, with short keys; other comparators;
// unknown tags); physical records of every type; preallocated zeros; the
// file cut short or its bytes flipped; CURRENT rewritten; other files in
// the directory. It requires the same accept/reject and status (a
// comparator mismatch as a ComparatorError), and the same live files, sizes
// and counters.
func FuzzUpstreamManifest(f *testing.F) {
	if _, minor := upstream.Version(); minor <= 15 {
		f.Skipf("package manifest follows the log reader of v1.16 and later, which takes a record or header cut short at the end of the file for a writer that died there; LevelDB %s reports it as corruption (\"bad record length\", \"truncated record at end of file\", \"partial record without end\")", upstream.Release())
	}
	bases := manifestBases(f)
	for i := range bases {
		f.Add(uint8(i), []byte{})
	}
	for op := byte(0); op < numLogOps; op++ {
		f.Add(uint8(0), []byte{op, 1, 7, 2, 3, 0, 5, 1})
		f.Add(uint8(len(bases)-1), []byte{op, 3, 0, 7, 1, 4, 2, 9, 7, 0})
	}
	dir := f.TempDir()
	var mu sync.Mutex
	f.Fuzz(func(t *testing.T, base uint8, prog []byte) {
		mu.Lock()
		defer mu.Unlock()
		b := bases[int(base)%len(bases)]
		c := mutateLog(b, prog)
		diffManifest(t, dir, c)
	})
}

// logItem is one item of a log being built: a logical record, fragmented
// as log::Writer does, or raw bytes (a physical record or zeros).
type logItem struct {
	rec []byte
	raw []byte
}

// manifestBase is a MANIFEST as logical records.
type manifestBase struct {
	name  string
	items []logItem
}

var (
	manifestOnce  sync.Once
	manifestBaseS []manifestBase
)

// manifestBases returns upstream's MANIFESTs from testdata/tables, split
// into their records, and a few built here.
func manifestBases(tb testing.TB) []manifestBase {
	manifestOnce.Do(func() {
		paths, _ := filepath.Glob("../../testdata/tables/*/MANIFEST-*")
		for _, p := range paths {
			data, err := os.ReadFile(p)
			if err != nil {
				tb.Fatal(err)
			}
			recs, err := splitRecords(data)
			if err != nil {
				tb.Fatalf("%s: %v", p, err)
			}
			b := manifestBase{name: p}
			for _, r := range recs {
				b.items = append(b.items, logItem{rec: r})
			}
			manifestBaseS = append(manifestBaseS, b)
		}
		ik := mt.InternalKey
		built := manifestBase{name: "built", items: []logItem{
			{rec: new(mt.Edit).Comparator(manifest.BytewiseComparator).B},
			{rec: new(mt.Edit).Counters(4, 10, 100).NewFile(0, 5, 1000, ik("a", 1), ik("k", 9)).NewFile(0, 6, 2000, ik("b", 10), ik("z", 20)).B},
			{rec: new(mt.Edit).Deleted(0, 5).Deleted(0, 6).NewFile(1, 7, 1500, ik("a", 1), ik("k", 2)).NewFile(1, 8, 1400, ik("l", 3), ik("z", 20)).CompactPointer(1, ik("k", 2)).B},
			{rec: new(mt.Edit).Deleted(1, 8).NewFile(2, 8, 1400, ik("l", 3), ik("z", 20)).U(mt.TagLastSequence).U(120).B},
			{rec: new(mt.Edit).CompactPointer(3, strings.Repeat("p", mt.BlockSize)+ik("", 1)).B},
		}}
		manifestBaseS = append(manifestBaseS, built)
	})
	if len(manifestBaseS) < 2 {
		tb.Fatal("no MANIFESTs in testdata/tables")
	}
	return manifestBaseS
}

// splitRecords returns the logical records of a well-formed log.
func splitRecords(data []byte) ([][]byte, error) {
	var recs [][]byte
	var cur []byte
	for off := 0; off < len(data); {
		left := mt.BlockSize - off%mt.BlockSize
		if left < mt.HeaderSize {
			off += left
			continue
		}
		if len(data)-off < mt.HeaderSize {
			break
		}
		n := int(binary.LittleEndian.Uint16(data[off+4:]))
		typ := data[off+6]
		if off+mt.HeaderSize+n > len(data) {
			return nil, fmt.Errorf("record at %d cut short", off)
		}
		p := data[off+mt.HeaderSize : off+mt.HeaderSize+n]
		off += mt.HeaderSize + n
		switch typ {
		case mt.TypeFull:
			recs = append(recs, bytes.Clone(p))
		case mt.TypeFirst:
			cur = bytes.Clone(p)
		case mt.TypeMiddle:
			cur = append(cur, p...)
		case mt.TypeLast:
			recs = append(recs, append(cur, p...))
		case mt.TypeZero:
			off += mt.BlockSize - off%mt.BlockSize
		default:
			return nil, fmt.Errorf("record type %d at %d", typ, off)
		}
	}
	return recs, nil
}

// The edits a program applies, one op code byte each followed by its
// arguments (missing bytes read as 0).
const (
	logRawFlip  = iota // xor a byte of the file
	logDrop            // drop a record
	logRepeat          // repeat a record
	logAppend          // append a version edit from the grammar
	logSetByte         // set a byte of a record (checksum kept valid)
	logCut             // cut a record's payload short
	logPhysical        // insert a physical record of any type
	logZeros           // preallocated zeros
	logTruncate        // cut the file short
	logCurrent         // rewrite CURRENT
	logSwap            // swap two records
	logFiles           // put other files in the directory
	numLogOps
)

// logCase is one differential case.
type logCase struct {
	log      []byte
	current  string
	extra    []string // other file names in the directory
	manifest string   // the MANIFEST's file name
}

// smallKeys are the internal keys the grammar picks from: some equal, one
// shorter than a tag (which upstream's comparator cannot sort), one empty
// (which DecodeFrom refuses).
var smallKeys = []string{mt.InternalKey("a", 1), mt.InternalKey("b", 2), mt.InternalKey("a", 1), mt.InternalKey("a", 3), "short", "", mt.InternalKey("zz", 7)}

// appendEdit appends a version edit of up to 6 fields chosen by p.
func appendEdit(p *tabletest.Prog) []byte {
	e := new(mt.Edit)
	for n := 1 + int(p.Byte()%6); n > 0; n-- {
		switch p.Byte() % 13 {
		case 0:
			names := []string{manifest.BytewiseComparator, "leveldb.OtherComparator", ""}
			e.Comparator(names[int(p.Byte())%len(names)])
		case 1:
			e.U(mt.TagLogNumber).U(uint64(p.Byte()))
		case 2:
			e.U(mt.TagPrevLogNumber).U(uint64(p.Byte()))
		case 3:
			e.U(mt.TagNextFileNumber).U(uint64(p.Byte()))
		case 4:
			e.U(mt.TagLastSequence).U(uint64(p.U16()))
		case 5:
			e.CompactPointer(int(p.Byte()%8), smallKeys[int(p.Byte())%len(smallKeys)])
		case 6, 7:
			e.Deleted(int(p.Byte()%8), uint64(p.Byte()%12))
		case 8, 9, 10:
			e.NewFile(int(p.Byte()%8), uint64(p.Byte()%12), uint64(p.U16()),
				smallKeys[int(p.Byte())%len(smallKeys)], smallKeys[int(p.Byte())%len(smallKeys)])
		case 11:
			e.U(uint64(p.Byte() % 16)) // a tag alone, or an unknown one
		default:
			e.B = append(e.B, 0x80|p.Byte()) // a varint cut short
		}
	}
	return e.B
}

// mutateLog runs the program on the base and returns the case.
func mutateLog(b manifestBase, pb []byte) logCase {
	p := tabletest.NewProg(pb)
	items := append([]logItem(nil), b.items...)
	c := logCase{current: "MANIFEST-000002\n", manifest: "MANIFEST-000002"}
	var raw []func([]byte) []byte
	pick := func() int {
		if len(items) == 0 {
			return -1
		}
		return int(p.Byte()) % len(items)
	}
	for steps := 0; p.More() && steps < 12; steps++ {
		switch p.Byte() % numLogOps {
		case logRawFlip:
			off, x := p.U16(), p.Byte()|1
			raw = append(raw, func(l []byte) []byte {
				if len(l) > 0 {
					l[off%len(l)] ^= x
				}
				return l
			})
		case logDrop:
			if i := pick(); i >= 0 {
				items = append(items[:i:i], items[i+1:]...)
			}
		case logRepeat:
			if i := pick(); i >= 0 {
				items = append(items[:i+1:i+1], items[i:]...)
			}
		case logAppend:
			items = append(items, logItem{rec: appendEdit(p)})
		case logSetByte:
			if i := pick(); i >= 0 && len(items[i].rec) > 0 {
				r := bytes.Clone(items[i].rec)
				r[p.U16()%len(r)] = p.Byte()
				items[i].rec = r
			}
		case logCut:
			if i := pick(); i >= 0 && items[i].rec != nil {
				items[i].rec = items[i].rec[:p.U16()%(len(items[i].rec)+1)]
			}
		case logPhysical:
			types := []byte{0, 1, 2, 3, 4, 5, 6, 7, 128, 255}
			typ := types[int(p.Byte())%len(types)]
			payload := appendEdit(p)
			if p.Byte()%4 == 0 {
				payload = nil
			}
			var w mt.Log
			w.Physical(typ, payload)
			at := int(p.Byte()) % (len(items) + 1)
			items = append(items[:at:at], append([]logItem{{raw: w.Bytes()}}, items[at:]...)...)
		case logZeros:
			n := int(p.Byte()) * 64
			at := int(p.Byte()) % (len(items) + 1)
			items = append(items[:at:at], append([]logItem{{raw: make([]byte, n)}}, items[at:]...)...)
		case logTruncate:
			n := p.U16()
			raw = append(raw, func(l []byte) []byte { return l[:len(l)-min(n%128, len(l))] })
		case logCurrent:
			currents := []string{"MANIFEST-000002", "", "MANIFEST-000002\n\n", "MANIFEST-000003\n", "./MANIFEST-000002\n", "\n"}
			c.current = currents[int(p.Byte())%len(currents)]
		case logSwap:
			i, j := pick(), pick()
			if i >= 0 {
				items[i], items[j] = items[j], items[i]
			}
		case logFiles:
			names := []string{"000005.ldb", "000006.log", "000007.sst", "MANIFEST-000008", "000009.dbtmp", "10.ldb", "000011.ldb.bak", "LOCK", "000001.ldb"}
			c.extra = append(c.extra, names[int(p.Byte())%len(names)])
		}
	}
	var w mt.Log
	for _, it := range items {
		if it.raw != nil {
			w.Write(it.raw)
		} else {
			w.Add(it.rec)
		}
	}
	c.log = bytes.Clone(w.Bytes())
	for _, e := range raw {
		c.log = e(c.log)
	}
	return c
}

// diffManifest writes the case to dir and reads it both ways.
func diffManifest(t *testing.T, dir string, c logCase) {
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		os.Remove(filepath.Join(dir, e.Name()))
	}
	write := func(name string, data []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("CURRENT", []byte(c.current))
	write(c.manifest, c.log)
	for _, n := range c.extra {
		write(n, nil)
	}
	for _, cmp := range comparators {
		repro := fmt.Sprintf("CURRENT %q, extra files %q, MANIFEST %d bytes, comparator %q", c.current, c.extra, len(c.log), cmp.name)
		diffRecover(t, dir, repro, cmp.name, cmp.upstream)
	}
}

// comparators are the user comparators each case is read with: LevelDB's
// default (Read), and an application's of another name and order
// (ReadWith), one of the names the edit grammar records.
var comparators = []struct {
	name     string
	upstream upstream.Comparator
}{
	{manifest.BytewiseComparator, upstream.Comparator{}},
	{"leveldb.OtherComparator", upstream.Comparator{Name: "leveldb.OtherComparator", Reverse: true}},
}

// diffRecover reads the database in dir with the comparator named name,
// ours and upstream's (uc), and compares the outcomes.
func diffRecover(t *testing.T, dir, repro, name string, uc upstream.Comparator) {
	t.Helper()
	v, err := manifest.ReadWith(dir, name)
	if errors.Is(err, base.ErrUndefined) {
		return // upstream's comparator reads past a short key
	}
	up, uerr := upstream.RecoverManifestWith(dir, uc)
	if uerr != nil {
		t.Fatal(uerr)
	}
	if (err == nil) != (up.Status == "") {
		t.Fatalf("%s: ours %v; upstream %q", repro, err, up.Status)
	}
	if err != nil {
		var e *base.Error
		if errors.As(err, &e) && upstream.Reword(e.Status) != up.Status {
			t.Fatalf("%s: ours %v (status %q); upstream %q", repro, err, e.Status, up.Status)
		}
		var ce *manifest.ComparatorError
		if isCmp := strings.HasPrefix(up.Status, "Invalid argument: ") && strings.Contains(up.Status, "does not match existing comparator : "); isCmp != errors.As(err, &ce) {
			t.Fatalf("%s: ours %v, a ComparatorError %v; upstream %q", repro, err, !isCmp, up.Status)
		}
		return
	}
	got := upstream.Recovery{LogNumber: v.LogNumber, PrevLogNumber: v.PrevLogNumber, NextFile: v.NextFile, LastSequence: v.LastSequence}
	for _, f := range v.Files {
		got.Files = append(got.Files, upstream.ManifestFile{Level: f.Level, Number: f.Number, Size: f.Size, Smallest: f.Smallest, Largest: f.Largest})
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, len(ents))
	for i, e := range ents {
		names[i] = e.Name()
	}
	missing := manifest.Missing(v, names)
	// v1.10 added the check; TableFileName says NNNNNN.ldb from v1.14.
	_, minor := upstream.Version()
	if len(missing) > 0 && minor >= 10 {
		got.Missing = manifest.MissingStatus(dir, missing)
		if minor <= 13 {
			got.Missing = strings.TrimSuffix(got.Missing, ".ldb") + ".sst"
		}
	}
	// Upstream lists a level's files by smallest key under its comparator,
	// ours by number: the same set either way.
	byFile := cmpopts.SortSlices(func(a, b upstream.ManifestFile) bool {
		return fmt.Sprintf("%d:%d:%x:%x", a.Level, a.Number, a.Smallest, a.Largest) < fmt.Sprintf("%d:%d:%x:%x", b.Level, b.Number, b.Smallest, b.Largest)
	})
	if diff := cmp.Diff(*up, got, byFile, cmpopts.EquateEmpty()); diff != "" {
		t.Fatalf("%s: recovered version (-upstream +got):\n%s", repro, diff)
	}
}
