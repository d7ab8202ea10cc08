package table_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"sync"
	"testing"

	"github.com/klauspost/compress/snappy"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/internal/base"
	"github.com/ldbcompat/ldbcompat/internal/table"
	"github.com/ldbcompat/ldbcompat/internal/table/tabletest"
)

// flipKeys are four internal keys (sequence 1, a value each) whose block,
// with a restart every 2 entries, is laid out as drawn in flipTable.
var flipKeys = func() [][]byte {
	var ks [][]byte
	for _, u := range []string{"apple", "apricot", "banana", "blueberry"} {
		ks = append(ks, table.AppendInternalKey(nil, table.InternalKey{UserKey: []byte(u), Seq: 1, Kind: table.KindValue}))
	}
	return ks
}()

var flipValues = []string{"red", "orange", "yellow", "blue"}

// flipTable returns a table whose first block, at offset 0, holds
// flipKeys and flipValues with a restart every 2 entries; each length is
// one varint byte, so that the block is (byte offsets):
//
//	 0 entry 0: 0 13 3, "apple"+tag (13 bytes) at 3, "red" at 16
//	19 entry 1: 2 13 6, "ricot"+tag (13 bytes) at 22, "orange" at 35
//	41 entry 2: 0 14 6, "banana"+tag (14 bytes) at 44, "yellow" at 58
//	64 entry 3: 1 16 4, "lueberry"+tag (16 bytes) at 67, "blue" at 83
//	87 restart 0 (= 0), 91 restart 1 (= 41), 95 restart count (= 2); 99 bytes
//
// then, with filter, a bloom filter block of leveldb.BuiltinBloomFilter2,
// then the metaindex and index blocks. The data block is stored
// snappy-compressed when compress is set.
func flipTable(t *testing.T, filter, compress bool) (file []byte, data, fh table.BlockHandle) {
	t.Helper()
	var kvs []tabletest.KV
	for i, k := range flipKeys {
		kvs = append(kvs, tabletest.KV{Key: k, Value: []byte(flipValues[i])})
	}
	block := tabletest.EncodeBlock(kvs, 2)
	if len(block) != 99 {
		t.Fatalf("block of %d bytes; the layout drawn has 99", len(block))
	}
	comp := byte(table.NoCompression)
	if compress {
		block, comp = snappy.Encode(nil, block), table.SnappyCompression
	}
	file, data = tabletest.AppendBlock(nil, block, comp)
	var meta []tabletest.KV
	if filter {
		fb := bloom.NewFilterBlockBuilder(bloom.NewPolicy(10))
		fb.StartBlock(0)
		for _, k := range flipKeys {
			fb.AddKey(k[:len(k)-8])
		}
		fb.StartBlock(data.End())
		file, fh = tabletest.AppendBlock(file, fb.Finish(), table.NoCompression)
		meta = append(meta, tabletest.KV{Key: []byte(table.FilterPrefix + bloom.PolicyName), Value: table.AppendBlockHandle(nil, fh)})
	}
	file, mh := tabletest.AppendBlock(file, tabletest.EncodeBlock(meta, 16), table.NoCompression)
	idx := tabletest.EncodeBlock([]tabletest.KV{{Key: flipKeys[3], Value: table.AppendBlockHandle(nil, data)}}, 1)
	file, ih := tabletest.AppendBlock(file, idx, table.NoCompression)
	return tabletest.AppendFooter(file, mh, ih), data, fh
}

// openUnchecked opens file as upstream does under its default options and
// scans it, returning the table.
func openUnchecked(t *testing.T, file []byte) *table.Table {
	t.Helper()
	tb, err := table.OpenBytesWith("flip", file, int64(len(file)), table.Options{SkipChecksums: true})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	_ = tb.Scan(func(table.ScanEntry) error { return nil })
	return tb
}

// TestFlipSite flips one chosen bit of the block flipTable draws and
// checks the entry and field ChecksumFailures reports against the layout.
func TestFlipSite(t *testing.T) {
	const tag = "\x01\x01\x00\x00\x00\x00\x00\x00" // seq 1, kind 1
	cases := []struct {
		pos, bit int // byte of the data block, or 99 for the type byte, 100.. for the checksum
		field    table.FlipField
		entry    int
		key      string
		restart  int
	}{
		{0, 0, table.FlipShared, 0, "apple" + tag, -1},
		{1, 2, table.FlipNonShared, 0, "apple" + tag, -1},
		{2, 7, table.FlipValueLen, 0, "apple" + tag, -1},
		{3, 1, table.FlipKey, 0, "apple" + tag, -1},
		{15, 0, table.FlipKey, 0, "apple" + tag, -1}, // the tag's last byte
		{16, 5, table.FlipValue, 0, "apple" + tag, -1},
		{19, 0, table.FlipShared, 1, "apricot" + tag, -1},
		{20, 3, table.FlipNonShared, 1, "apricot" + tag, -1},
		{21, 1, table.FlipValueLen, 1, "apricot" + tag, -1},
		{22, 6, table.FlipKey, 1, "apricot" + tag, -1},
		{40, 0, table.FlipValue, 1, "apricot" + tag, -1},
		{41, 4, table.FlipShared, 2, "banana" + tag, -1},
		{58, 0, table.FlipValue, 2, "banana" + tag, -1},
		{64, 1, table.FlipShared, 3, "blueberry" + tag, -1},
		{67, 0, table.FlipKey, 3, "blueberry" + tag, -1},
		{86, 7, table.FlipValue, 3, "blueberry" + tag, -1},
		{87, 0, table.FlipRestart, -1, "", 0},
		{91, 3, table.FlipRestart, -1, "", 1},
		{94, 7, table.FlipRestart, -1, "", 1},
		{95, 0, table.FlipRestartCount, -1, "", -1},
		{98, 7, table.FlipRestartCount, -1, "", -1},
		{99, 2, table.FlipType, -1, "", -1},
		{100, 0, table.FlipChecksum, -1, "", -1},
		{103, 7, table.FlipChecksum, -1, "", -1},
	}
	for _, c := range cases {
		file, data, _ := flipTable(t, false, false)
		file[c.pos] ^= 1 << c.bit
		tb := openUnchecked(t, file)
		fs := tb.ChecksumFailures()
		if len(fs) != 1 || fs[0].What != "data block 0" || fs[0].Handle != data || fs[0].Site == nil {
			t.Fatalf("byte %d bit %d: failures %+v; want data block 0 with a site", c.pos, c.bit, fs)
		}
		f := fs[0]
		if f.Stored != binary.LittleEndian.Uint32(file[100:]) || f.Computed != table.BlockChecksum(file[:99], file[99]) {
			t.Errorf("byte %d bit %d: stored 0x%08x, computed 0x%08x", c.pos, c.bit, f.Stored, f.Computed)
		}
		s := f.Site
		if s.Offset != uint64(c.pos) || s.Bit != c.bit || s.Field != c.field || s.Entry != c.entry || string(s.Key) != c.key || s.Restart != c.restart {
			t.Errorf("byte %d bit %d: site %+v (%s); want field %s, entry %d, key %q, restart %d", c.pos, c.bit, *s, s.Field, c.field, c.entry, c.key, c.restart)
		}
		// Pos: the byte's place in the contents, or in the trailer (0
		// the type byte, 1 to 4 the checksum's bytes).
		wantPos := c.pos
		if c.pos >= 99 {
			wantPos = c.pos - 99
		}
		if s.Pos != wantPos {
			t.Errorf("byte %d bit %d: Pos %d; want %d", c.pos, c.bit, s.Pos, wantPos)
		}
		if wantInChecksum := c.pos >= 100; f.Flip.InChecksum != wantInChecksum {
			t.Errorf("byte %d bit %d: flip %+v", c.pos, c.bit, *f.Flip)
		}
	}
}

// TestFlipSiteOtherBlocks: a flip in a snappy block's stored bytes, in the
// filter block, and in the index block's handle.
func TestFlipSiteOtherBlocks(t *testing.T) {
	file, data, _ := flipTable(t, false, true)
	file[data.Offset+data.Size/2] ^= 0x10
	fs := openUnchecked(t, file).ChecksumFailures()
	if len(fs) != 1 || fs[0].Site == nil || fs[0].Site.Field != table.FlipCompressed || fs[0].Site.Offset != data.Offset+data.Size/2 || fs[0].Site.Entry != -1 {
		t.Errorf("snappy block: %+v", fs)
	}

	file, _, fh := flipTable(t, true, false)
	file[fh.Offset+3] ^= 0x01
	tb := openUnchecked(t, file)
	tb.LookupFilter(bloom.PolicyName)
	fs = tb.ChecksumFailures()
	if len(fs) != 1 || fs[0].What != "filter block" || fs[0].Handle != fh || fs[0].Site == nil || fs[0].Site.Field != table.FlipUnknown || fs[0].Site.Offset != fh.Offset+3 {
		t.Errorf("filter block: %+v", fs)
	}

	// The index block's one entry: 0, len(key), len(handle), the key,
	// then the handle, whose first byte is the data block's offset (0).
	file, _, _ = flipTable(t, false, false)
	ptb, err := table.OpenBytes("flip", file, int64(len(file)))
	if err != nil {
		t.Fatal(err)
	}
	ih := ptb.IndexHandle()
	handleAt := ih.Offset + 3 + uint64(len(flipKeys[3]))
	file[handleAt] ^= 0x01
	if _, err := table.OpenBytes("flip", file, int64(len(file))); base.StatusOf(err) != "Corruption: block checksum mismatch" {
		t.Errorf("index block, checked: open %v", err)
	}
	fs = openUnchecked(t, file).ChecksumFailures()
	if len(fs) == 0 || fs[0].What != "index block" || fs[0].Site == nil || fs[0].Site.Field != table.FlipValue || fs[0].Site.Entry != 0 || !bytes.Equal(fs[0].Site.Key, flipKeys[3]) || fs[0].Site.Offset != handleAt {
		t.Errorf("index block: %+v", fs)
	}
}

// TestSkipChecksums: a flipped bit in a value fails the checked scan with
// upstream's status and is read as it is without checks, listed once
// however many scans and lookups read it, also from concurrent scans.
func TestSkipChecksums(t *testing.T) {
	file, _, _ := flipTable(t, false, false)
	file[35] ^= 0x01 // "orange" becomes "nrange"
	checked, err := table.OpenBytes("flip", file, int64(len(file)))
	if err != nil {
		t.Fatal(err)
	}
	err = checked.Scan(func(table.ScanEntry) error { return nil })
	if base.StatusOf(err) != "Corruption: block checksum mismatch" {
		t.Errorf("checked scan: %v", err)
	}
	if fs := checked.ChecksumFailures(); len(fs) != 1 || fs[0].What != "data block 0" {
		t.Errorf("checked: failures %+v", fs)
	}
	tb, err := table.OpenSizedWith("flip", bytes.NewReader(file), int64(len(file)), int64(len(file)), table.Options{SkipChecksums: true})
	if err != nil {
		t.Fatal(err)
	}
	if !tb.Options().SkipChecksums || checked.Options().SkipChecksums {
		t.Errorf("Options: %+v and %+v", tb.Options(), checked.Options())
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var vals []string
			err := tb.Scan(func(e table.ScanEntry) error {
				vals = append(vals, string(e.Value))
				return nil
			})
			if err != nil || len(vals) != 4 || vals[1] != "nrange" || vals[3] != "blue" {
				errs <- fmt.Errorf("unchecked scan: %v, values %q", err, vals)
			}
			g, err := tb.Get(lookupIKey(flipKeys[1]), nil, nil)
			if err != nil || !g.Found || string(g.Value) != "nrange" || g.Err != nil {
				errs <- fmt.Errorf("unchecked get: %+v, %v", g, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	fs := tb.ChecksumFailures()
	if len(fs) != 1 || fs[0].What != "data block 0" || fs[0].Site.Field != table.FlipValue || fs[0].Site.Entry != 1 {
		t.Errorf("failures %+v", fs)
	}
	// Reusing the table's memory forgets the failures and the options.
	clean, _, _ := flipTable(t, false, false)
	re, err := table.OpenBytesReusing(tb, "clean", clean, int64(len(clean)))
	if err != nil || len(re.ChecksumFailures()) != 0 || re.Options().SkipChecksums {
		t.Errorf("reused: %v, %+v", err, re.ChecksumFailures())
	}
	re, err = table.OpenBytesReusingWith(re, "flip", file, int64(len(file)), table.Options{SkipChecksums: true})
	if err != nil || re.Scan(func(table.ScanEntry) error { return nil }) != nil || len(re.ChecksumFailures()) != 1 {
		t.Errorf("reused unchecked: %v, %+v", err, re.ChecksumFailures())
	}
}

// lookupIKey is the lookup key of ik's user key.
func lookupIKey(ik []byte) []byte {
	return binary.LittleEndian.AppendUint64(bytes.Clone(ik[:len(ik)-8]), (1<<56-1)<<8|1)
}

// TestUncheckedFilter: a filter block with 200 bytes zeroed is unreadable
// with checks (the table reads without a filter) and used as it is
// without them: LookupFilter returns it, the failure is listed, and Get
// asks it, so a present key it rejects is not found.
func TestUncheckedFilter(t *testing.T) {
	f := fixtureByName(t, "b10-bs4096-none/000007.ldb")
	tb := f.open(t)
	fh, ok := tb.FilterHandle()
	if !ok || fh.Size < 300 {
		t.Fatalf("fixture's filter block: %v %v", fh, ok)
	}
	file := bytes.Clone(f.data)
	clear(file[fh.Offset+10 : fh.Offset+210])

	checked, err := table.OpenBytes("zeroed", file, int64(len(file)))
	if err != nil {
		t.Fatal(err)
	}
	if fl := checked.LookupFilter(bloom.PolicyName); fl.Use != table.FilterUnreadable || base.StatusOf(fl.Err) != "Corruption: block checksum mismatch" {
		t.Errorf("checked: filter %s, %v", fl.Use, fl.Err)
	}
	un := openUnchecked(t, file)
	fl := un.LookupFilter(bloom.PolicyName)
	if fl.Use != table.FilterUsed || !bytes.Equal(fl.Contents, file[fh.Offset:fh.Offset+fh.Size]) {
		t.Fatalf("unchecked: filter %s, %v", fl.Use, fl.Err)
	}
	if name, contents, ok := un.FilterBlock(); !ok || name != bloom.PolicyName || !bytes.Equal(contents, fl.Contents) {
		t.Errorf("unchecked FilterBlock: %q, %v", name, ok)
	}
	fs := un.ChecksumFailures()
	if len(fs) != 1 || fs[0].What != "filter block" || fs[0].Handle != fh || fs[0].Flip != nil {
		t.Errorf("unchecked failures %+v", fs)
	}
	rejected := 0
	err = un.DataKeys(func(k []byte) {
		g, err := un.Get(lookupIKey(k), fl, bloom.NewPolicy(10))
		if err != nil || !g.FilterAsked || g.Found != !g.FilterSaysNo {
			t.Errorf("Get(%q): %+v, %v", k, g, err)
		}
		if g.FilterSaysNo {
			rejected++
		}
	}, func(int, table.BlockHandle, int) error { return nil })
	if err != nil || rejected == 0 {
		t.Errorf("unchecked: %d present keys rejected by the zeroed filter (%v); want some", rejected, err)
	}
}

// fixtureByName returns the fixture table named name.
func fixtureByName(t *testing.T, name string) fixtureTable {
	t.Helper()
	for _, f := range loadFixtures(t) {
		if f.name() == name {
			return f
		}
	}
	t.Fatalf("no fixture %s", name)
	return fixtureTable{}
}

// TestFlipFieldString: each field's name as FlipField documents it, and
// the number of a value that names none.
func TestFlipFieldString(t *testing.T) {
	want := map[table.FlipField]string{
		table.FlipUnknown: "contents", table.FlipChecksum: "stored checksum", table.FlipType: "compression type byte",
		table.FlipCompressed: "compressed bytes", table.FlipShared: "shared key length", table.FlipNonShared: "non-shared key length",
		table.FlipValueLen: "value length", table.FlipKey: "key bytes", table.FlipValue: "value bytes",
		table.FlipRestart: "restart array", table.FlipRestartCount: "restart count",
		-1: "FlipField(-1)", table.FlipRestartCount + 1: "FlipField(11)",
	}
	for f, w := range want {
		if got := f.String(); got != w {
			t.Errorf("FlipField(%d).String() = %q; want %q", int(f), got, w)
		}
	}
}

// TestFlipSiteOddBlocks flips a bit of data blocks laid out by hand that
// BlockBuilder never writes, or writes only for no entries: where the
// block, the bit restored, does not decode as far as the flipped byte,
// the site names no entry and no restart point. block.cc's Block reads
// num_restarts from the last 4 bytes and accepts at most (size-4)/4.
func TestFlipSiteOddBlocks(t *testing.T) {
	u32 := binary.LittleEndian.AppendUint32
	cases := []struct {
		name     string
		contents []byte // as written
		pos, bit int    // the flipped bit
		field    table.FlipField
		entry    int
		key      string
		restart  int
	}{
		// Shorter than a restart count: nothing in it is one.
		{"3 bytes", []byte{0, 0, 0}, 1, 0, table.FlipUnknown, -1, "", -1},
		// Only a restart count (0): upstream's empty iterator.
		{"count 0", u32(nil, 0), 0, 3, table.FlipRestartCount, -1, "", -1},
		// BlockBuilder's block of no entries: restart 0 at offset 0, count 1.
		{"no entries", u32(u32(nil, 0), 1), 0, 0, table.FlipRestart, -1, "", 0},
		// A count of 2 where 4 bytes before it hold one offset at most.
		{"count too large", u32(u32(nil, 0), 2), 0, 0, table.FlipUnknown, -1, "", -1},
		// A shared length's varint cut off by the restart array at 2.
		{"varint cut", u32(u32([]byte{0x80, 0x80}, 0), 1), 0, 0, table.FlipUnknown, -1, "", -1},
		// Entry 0 says 5 key bytes, but 2 precede the restart array at 5.
		{"key overruns", u32(u32([]byte{0, 5, 0, 'a', 'b'}, 0), 1), 3, 1, table.FlipUnknown, -1, "", -1},
		// A value longer than its key: 0 1 3, "k" at 3, "vvv" at 4.
		{"long value", u32(u32([]byte{0, 1, 3, 'k', 'v', 'v', 'v'}, 0), 1), 5, 2, table.FlipValue, 0, "k", -1},
		{"long value's length", u32(u32([]byte{0, 1, 3, 'k', 'v', 'v', 'v'}, 0), 1), 2, 0, table.FlipValueLen, 0, "k", -1},
	}
	for _, c := range cases {
		file, data := tabletest.AppendBlock(nil, c.contents, table.NoCompression)
		file, mh := tabletest.AppendBlock(file, tabletest.EncodeBlock(nil, 16), table.NoCompression)
		idx := tabletest.EncodeBlock([]tabletest.KV{{Key: flipKeys[3], Value: table.AppendBlockHandle(nil, data)}}, 1)
		file, ih := tabletest.AppendBlock(file, idx, table.NoCompression)
		file = tabletest.AppendFooter(file, mh, ih)
		file[c.pos] ^= 1 << c.bit
		fs := openUnchecked(t, file).ChecksumFailures()
		if len(fs) != 1 || fs[0].What != "data block 0" || fs[0].Site == nil {
			t.Errorf("%s: failures %+v; want data block 0 with a site", c.name, fs)
			continue
		}
		s := fs[0].Site
		if s.Offset != uint64(c.pos) || s.Pos != c.pos || s.Bit != c.bit || s.Field != c.field || s.Entry != c.entry || string(s.Key) != c.key || s.Restart != c.restart {
			t.Errorf("%s: site %+v (%s); want byte %d bit %d, field %s, entry %d, key %q, restart %d", c.name, *s, s.Field, c.pos, c.bit, c.field, c.entry, c.key, c.restart)
		}
	}
}
