package table_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/klauspost/compress/snappy"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/internal/base"
	"github.com/ldbcompat/ldbcompat/internal/table"
	"github.com/ldbcompat/ldbcompat/internal/table/tabletest"
)

// Cases for the mutants of dbformat.go, get.go and scan.go: the
// internal key comparator and Table::InternalGet run without cgo, entry
// offsets of a scan, the key budget at its boundaries, and the errors a
// scan reports, each with its offset and numbers computed from how the
// test built the table.

// ms3Table writes a table whose only data block is stored as given with
// compression comp behind a valid checksum, an empty metaindex block, and
// an index block whose only entry is indexKey with the data block's
// handle. It returns the file and the data block's handle.
func ms3Table(stored []byte, comp byte, indexKey []byte) ([]byte, table.BlockHandle) {
	data, dh := tabletest.AppendBlock(nil, stored, comp)
	data, mh := tabletest.AppendBlock(data, tabletest.EncodeBlock(nil, 16), table.NoCompression)
	idx := tabletest.EncodeBlock([]tabletest.KV{{Key: indexKey, Value: table.AppendBlockHandle(nil, dh)}}, 1)
	data, ih := tabletest.AppendBlock(data, idx, table.NoCompression)
	return tabletest.AppendFooter(data, mh, ih), dh
}

// ms3Want requires err to be a *base.Error of file name with the given
// offset, message and status.
func ms3Want(t *testing.T, what string, err error, name string, off uint64, msg, status string) *base.Error {
	t.Helper()
	var e *base.Error
	if !errors.As(err, &e) {
		t.Fatalf("%s: error %v (%T); want a *base.Error", what, err, err)
	}
	want := base.Error{Type: base.TableFile, File: name, Offset: int64(off), Msg: msg, Status: status}
	got := base.Error{Type: e.Type, File: e.File, Offset: e.Offset, Msg: e.Msg, Status: e.Status}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("%s: error (-want +got):\n%s", what, d)
	}
	return e
}

// ms3IKey encodes user@seq as a value's internal key.
func ms3IKey(user string, seq uint64) []byte {
	return table.AppendInternalKey(nil, table.InternalKey{UserKey: []byte(user), Seq: seq, Kind: table.KindValue})
}

// TestMutantsScanMaxSequence checks MaxSequence against db/dbformat.h's
// kMaxSequenceNumber, ((0x1ull << 56) - 1): PackSequenceAndType of it with
// kTypeValue is the tag 0xffffffffffffff01, stored little-endian after the
// user key, and ParseInternalKey gives it back.
func TestMutantsScanMaxSequence(t *testing.T) {
	k := table.AppendInternalKey(nil, table.InternalKey{UserKey: []byte("k"), Seq: table.MaxSequence, Kind: table.KindValue})
	want := []byte{'k', 0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}
	if !bytes.Equal(k, want) {
		t.Fatalf("AppendInternalKey(k@MaxSequence) = % x; want % x", k, want)
	}
	p, err := table.ParseInternalKey(k)
	if err != nil || p.Seq != 0x00ffffffffffffff || p.Kind != table.KindValue {
		t.Fatalf("ParseInternalKey(% x) = %v, %v; want seq 0x00ffffffffffffff, value", k, p, err)
	}
}

// ms3GetEntries are sorted by the internal key comparator (user key
// ascending, then sequence descending) and include an empty user key,
// whose internal key is exactly its 8-byte tag.
var ms3GetEntries = []table.Entry{
	{Key: table.InternalKey{UserKey: []byte{}, Seq: 5, Kind: table.KindValue}, Value: []byte("e5")},
	{Key: table.InternalKey{UserKey: []byte("b"), Seq: 9, Kind: table.KindValue}, Value: []byte("b9")},
	{Key: table.InternalKey{UserKey: []byte("b"), Seq: 7, Kind: table.KindValue}, Value: []byte("b7")},
	{Key: table.InternalKey{UserKey: []byte("b"), Seq: 3, Kind: table.KindDeletion}, Value: []byte{}},
	{Key: table.InternalKey{UserKey: []byte("c"), Seq: 1, Kind: table.KindValue}, Value: []byte("c1")},
	{Key: table.InternalKey{UserKey: []byte("d"), Seq: 2, Kind: table.KindValue}, Value: []byte("d2")},
}

// ms3GetCases are lookup keys (LookupKey: user key, sequence, and
// kValueTypeForSeek, a value) and the entry of ms3GetEntries that
// Table::InternalGet hands its callback: the first one at or after the
// lookup key in InternalKeyComparator order (-1: none).
var ms3GetCases = []struct {
	user string
	seq  uint64
	want int
}{
	{"", 100, 0}, // an older entry of the same (empty) user key
	{"", 5, 0},   // the entry itself: equal tags compare equal
	{"", 4, 1},   // past ""@5: the next user key
	{"b", 10, 1},
	{"b", 9, 1},
	{"b", 8, 2}, // newer sequences come first: b@9 is before b@8
	{"b", 7, 2},
	{"b", 3, 3}, // a deletion's tag (type 0) is below a value's (type 1)
	{"b", 2, 4},
	{"bb", 1, 4}, // user keys compare bytewise: b < bb < c
	{"c", 0, 5},
	{"d", 2, 5},
	{"d", 1, -1},
	{"e", 1, -1},
}

// TestMutantsScanGet runs Table::InternalGet's lookup (table/table.cc) with the
// InternalKeyComparator (db/dbformat.cc) on a table of one entry per data
// block, so that both the index block's Seek and the data block's pick
// the entry: each lookup key finds the first entry at or after it, or
// none past the last block, and the status is OK.
func TestMutantsScanGet(t *testing.T) {
	data := tabletest.Build(ms3GetEntries, tabletest.Options{BlockSize: 1})
	tb := fmtOpen(t, "get.ldb", data)
	if tb.NumDataBlocks() != len(ms3GetEntries) {
		t.Fatalf("%d data blocks; want one per entry (%d)", tb.NumDataBlocks(), len(ms3GetEntries))
	}
	for _, c := range ms3GetCases {
		ik := ms3IKey(c.user, c.seq)
		r, err := tb.Get(ik[:len(ik):len(ik)], nil, nil)
		if err != nil || r.Err != nil {
			t.Fatalf("Get(%q@%d): %v, status %v; want OK", c.user, c.seq, err, r.Err)
		}
		if c.want < 0 {
			if r.Found {
				t.Errorf("Get(%q@%d) found % x; want nothing (past the last block)", c.user, c.seq, r.Key)
			}
			continue
		}
		e := ms3GetEntries[c.want]
		wantKey := table.AppendInternalKey(nil, e.Key)
		if !r.Found || !bytes.Equal(r.Key, wantKey) || !bytes.Equal(r.Value, e.Value) {
			t.Errorf("Get(%q@%d) = found %v, % x = %q; want % x = %q", c.user, c.seq, r.Found, r.Key, r.Value, wantKey, e.Value)
		}
		if r.FilterAsked {
			t.Errorf("Get(%q@%d) asked a filter; none was given", c.user, c.seq)
		}
	}
	// Seven bytes are no internal key: the comparator's ExtractUserKey
	// would wrap around (undefined upstream).
	if _, err := tb.Get([]byte("1234567"), nil, nil); !base.IsUndefined(err) {
		t.Errorf("Get(7-byte key) = %v; want an error wrapping ErrUndefined", err)
	}
}

// TestMutantsScanGetFilter checks InternalGet's filter step: with a filter
// block read (FilterUsed), the reader is asked about the block at the
// index entry's handle with the lookup key, and the InternalFilterPolicy
// hands the bloom policy the user key without its 8-byte tag; a key the
// table holds is never ruled out (a bloom filter has no false negatives),
// so its entry is found. Without a usable filter nothing is asked.
func TestMutantsScanGetFilter(t *testing.T) {
	p := bloom.NewPolicy(10)
	data := tabletest.Build(ms3GetEntries, tabletest.Options{BlockSize: 1, Policy: p})
	tb := fmtOpen(t, "getfilter.ldb", data)
	f := tb.LookupFilter(bloom.PolicyName)
	if f.Use != table.FilterUsed {
		t.Fatalf("LookupFilter: %v (%v); want used", f.Use, f.Err)
	}
	notFound := tb.LookupFilter("no.such.policy")
	if notFound.Use != table.FilterNotFound {
		t.Fatalf("LookupFilter(no.such.policy): %v; want not found", notFound.Use)
	}
	for _, e := range ms3GetEntries {
		ik := table.AppendInternalKey(nil, e.Key)
		ik = ik[:len(ik):len(ik)]
		r, err := tb.Get(ik, f, p)
		if err != nil || r.Err != nil {
			t.Fatalf("Get(%v): %v, status %v", e.Key, err, r.Err)
		}
		if !r.FilterAsked || r.FilterSaysNo || !cmp.Equal(r.PolicyCalls, []bool{true}) {
			t.Errorf("Get(%v) with the filter: asked %v, says no %v, policy calls %v; want asked, one call answering true", e.Key, r.FilterAsked, r.FilterSaysNo, r.PolicyCalls)
		}
		if !r.Found || !bytes.Equal(r.Key, ik) {
			t.Errorf("Get(%v) with the filter: found %v % x; want the entry", e.Key, r.Found, r.Key)
		}
		r, err = tb.Get(ik, notFound, p)
		if err != nil || r.FilterAsked || len(r.PolicyCalls) != 0 || !r.Found || !bytes.Equal(r.Key, ik) {
			t.Errorf("Get(%v) with no filter found: %+v, %v; want the entry, no filter asked", e.Key, r, err)
		}
	}
}

// TestMutantsScanGetIndexStatus checks that InternalGet returns the index
// iterator's status when its Seek runs into a bad entry (table/table.cc:
// `if (s.ok()) s = iiter->status()`): the index block's second entry claims
// a 127-byte key where 3 bytes remain before the restart array, so a
// lookup past the first entry gets "bad entry in block" at that entry's
// file offset, while a lookup the first entry answers is OK.
func TestMutantsScanGetIndexStatus(t *testing.T) {
	k := ms3IKey("a", 1)
	data, dh := tabletest.AppendBlock(nil, tabletest.EncodeBlock([]tabletest.KV{{Key: k, Value: []byte("v")}}, 16), table.NoCompression)
	data, mh := tabletest.AppendBlock(data, tabletest.EncodeBlock(nil, 16), table.NoCompression)
	hv := table.AppendBlockHandle(nil, dh)
	// Entry 0: shared 0, unshared len(k), value len(hv) (one byte each).
	idx := append([]byte{0, byte(len(k)), byte(len(hv))}, k...)
	idx = append(idx, hv...)
	bad := len(idx)
	idx = append(idx, 0, 0x7f, 0)                  // entry 1: 127 key bytes, none there
	idx = binary.LittleEndian.AppendUint32(idx, 0) // restart point 0
	idx = binary.LittleEndian.AppendUint32(idx, 1) // one restart point
	data, ih := tabletest.AppendBlock(data, idx, table.NoCompression)
	data = tabletest.AppendFooter(data, mh, ih)
	tb := fmtOpen(t, "badindex.ldb", data)

	r, err := tb.Get(ms3IKey("z", 1), nil, nil)
	if err != nil || r.Found {
		t.Fatalf("Get(z@1) = %+v, %v; want not found, with a status", r, err)
	}
	ms3Want(t, "Get(z@1)", r.Err, "badindex.ldb", ih.Offset+uint64(bad),
		fmt.Sprintf("index block %s: entry 1: key suffix (127 bytes) and value (0 bytes) run past the entries' end at byte %d", ih, len(idx)-8),
		"Corruption: bad entry in block")

	r, err = tb.Get(k, nil, nil)
	if err != nil || r.Err != nil || !r.Found || !bytes.Equal(r.Key, k) || string(r.Value) != "v" {
		t.Fatalf("Get(a@1) = %+v, %v; want a@1 = v, OK", r, err)
	}
}

// TestMutantsScanAt checks Scan's entry offsets: an uncompressed block's
// entry is at its block's offset plus the entry's position in the block
// (each entry here is three one-byte varints, the key and the value, as
// BlockBuilder writes it with a restart at every entry); a snappy block's
// entries are all at the block's offset.
func TestMutantsScanAt(t *testing.T) {
	var entries []table.Entry
	for i := range 6 {
		entries = append(entries, table.Entry{Key: table.InternalKey{UserKey: []byte{'a' + byte(i)}, Seq: 1, Kind: table.KindValue}, Value: []byte("xyz")})
	}
	// 9-byte keys and 3-byte values: Build's size is 15 per entry, so a
	// block size of 45 cuts three entries per block.
	data := tabletest.Build(entries, tabletest.Options{BlockSize: 45, RestartInterval: 1})
	tb := fmtOpen(t, "at.ldb", data)
	const entrySize = 3 + 9 + 3
	const blockSize = 3*entrySize + 3*4 + 4 // three restart points and their count
	var got, want []uint64
	for i := range entries {
		blockOff := uint64(i/3) * (blockSize + table.TrailerSize)
		want = append(want, blockOff+uint64(i%3)*entrySize)
	}
	if err := tb.Scan(func(e table.ScanEntry) error {
		got = append(got, e.At)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("uncompressed entries' offsets (-want +got):\n%s", d)
	}

	for i := range entries {
		entries[i].Value = bytes.Repeat([]byte("x"), 100)
	}
	data = tabletest.Build(entries, tabletest.Options{BlockSize: 300, RestartInterval: 1, Snappy: true})
	tb = fmtOpen(t, "atsnappy.ldb", data)
	for i := range tb.NumDataBlocks() {
		b, err := tb.ReadDataBlock(i)
		if err != nil || b.Compression != table.SnappyCompression {
			t.Fatalf("block %d: %v; want a snappy block", i, err)
		}
	}
	n := 0
	if err := tb.Scan(func(e table.ScanEntry) error {
		n++
		if e.At != e.Ptr.Offset {
			t.Errorf("snappy block %d entry at %d; want the block's offset %d", e.Block, e.At, e.Ptr.Offset)
		}
		return nil
	}); err != nil || n != len(entries) {
		t.Fatalf("scan: %d entries, %v; want %d", n, err, len(entries))
	}
}

// ms3DeepBlock returns block contents whose first entry stores a key of
// keyLen bytes of 0x01 (a value's internal key whatever its length, since
// the type byte is 0x01) and whose next entries each share all of the
// previous key (shared lengths[i], nothing unshared, no value), with one
// restart point. Every shared length must be in [128, 16383] (a two-byte
// varint) and keyLen too, so each later entry takes 4 bytes.
func ms3DeepBlock(keyLen int, shared []int) []byte {
	b := binary.AppendUvarint([]byte{0}, uint64(keyLen))
	b = append(b, 0)
	b = append(b, bytes.Repeat([]byte{1}, keyLen)...)
	for _, s := range shared {
		b = binary.AppendUvarint(b, uint64(s))
		b = append(b, 0, 0)
	}
	b = binary.LittleEndian.AppendUint32(b, 0)
	return binary.LittleEndian.AppendUint32(b, 1)
}

// ms3Limit is the text of a key budget error.
func ms3Limit(entry, factor int, of string) string {
	return fmt.Sprintf("entry %d: keys decode to more than %d times the block's %s; want prefix compression as shallow as LevelDB writes", entry, factor, of)
}

// ms3ReadAll runs DataKeys and ReadDataBlock(0) on the one-block table
// tb and checks that both return nil with n entries, or both return the
// same error, which it returns.
func ms3ReadAll(t *testing.T, tb *table.Table, n int) error {
	t.Helper()
	keys := 0
	errKeys := tb.DataKeys(func([]byte) { keys++ }, func(_ int, _ table.BlockHandle, m int) error {
		if m != n {
			t.Errorf("DataKeys: block of %d entries; want %d", m, n)
		}
		return nil
	})
	db, errBlock := tb.ReadDataBlock(0)
	if errKeys == nil && keys != n {
		t.Errorf("DataKeys: %d keys; want %d", keys, n)
	}
	if errBlock == nil && len(db.Entries) != n {
		t.Errorf("ReadDataBlock: %d entries; want %d", len(db.Entries), n)
	}
	if fmt.Sprint(errKeys) != fmt.Sprint(errBlock) {
		t.Fatalf("DataKeys: %v\nReadDataBlock: %v\nwant the same", errKeys, errBlock)
	}
	return errKeys
}

// TestMutantsScanKeyBudgetExact checks the key budget of an uncompressed block
// at its boundary: 64 times the block's size plus 4096 bytes of keys are
// read, one byte more is refused (upstream reads both; the bound is this
// reader's). The block: a 2000-byte key, 75 entries repeating it and a
// last entry keeping its first s bytes: 2004 + 4*76 + 8 = 2316 bytes,
// whose budget 64*2316 + 4096 = 152320 is 76*2000 + 320.
func TestMutantsScanKeyBudgetExact(t *testing.T) {
	const keyLen, repeats = 2000, 75
	const size = keyLen + 4 + 4*(repeats+1) + 8
	const budget = 64*size + 4096
	const last = budget - (repeats+1)*keyLen
	for _, s := range []int{last, last + 1} {
		shared := make([]int, repeats, repeats+1)
		for i := range shared {
			shared[i] = keyLen
		}
		block := ms3DeepBlock(keyLen, append(shared, s))
		if len(block) != size {
			t.Fatalf("block of %d bytes; want %d", len(block), size)
		}
		data, dh := ms3Table(block, table.NoCompression, bytes.Repeat([]byte{1}, keyLen))
		tb := fmtOpen(t, "budget.ldb", data)
		err := ms3ReadAll(t, tb, repeats+2)
		if s == last {
			if err != nil {
				t.Errorf("keys of exactly the budget: %v; want them read", err)
			}
			continue
		}
		// The last entry starts after the first (keyLen+4) and the
		// repeats (4 each).
		cur := keyLen + 4 + 4*repeats
		e := ms3Want(t, "one byte over the budget", err, "budget.ldb", dh.Offset+uint64(cur),
			fmt.Sprintf("data block 0 %s: %s", dh, ms3Limit(repeats+1, 64, "size")), "")
		if !errors.Is(e, table.ErrLimit) {
			t.Errorf("error %v does not wrap ErrLimit", e)
		}
	}
}

// ms3Snappy encodes contents as a raw snappy block (snappy's
// format_description.txt): the length, a literal of the first lit bytes
// and of the last tail bytes, and between them copies of at most 64
// bytes at offset 4 (a 2-byte-offset copy, 3 bytes each), which need
// contents[i] == contents[i-4] there.
func ms3Snappy(contents []byte, lit, tail int) []byte {
	literal := func(b, p []byte) []byte {
		switch n := len(p) - 1; {
		case n < 60:
			b = append(b, byte(n)<<2)
		case n < 256:
			b = append(b, 60<<2, byte(n))
		default:
			b = append(b, 61<<2, byte(n), byte(n>>8))
		}
		return append(b, p...)
	}
	b := binary.AppendUvarint(nil, uint64(len(contents)))
	b = literal(b, contents[:lit])
	for i := lit; i < len(contents)-tail; {
		n := min(64, len(contents)-tail-i)
		b = append(b, byte(n-1)<<2|2, 4, 0)
		i += n
	}
	return literal(b, contents[len(contents)-tail:])
}

// TestMutantsScanKeyBudgetSnappyRatio4 checks the choice between the two
// budgets of a snappy block: the stored size's (256 times it) replaces the
// decompressed size's (64 times it) only when it is smaller. A block that
// decodes to exactly 4 times its stored size has both equal, so the error
// names the decompressed size. The block: a 2000-byte key, then 2000
// entries of 4 bytes repeating it; the snappy stream's literal prefix is
// lengthened until the stored size is exactly a quarter.
func TestMutantsScanKeyBudgetSnappyRatio4(t *testing.T) {
	const keyLen, repeats = 2000, 2000
	shared := make([]int, repeats)
	for i := range shared {
		shared[i] = keyLen
	}
	block := ms3DeepBlock(keyLen, shared)
	size := len(block)
	if size%4 != 0 {
		t.Fatalf("block of %d bytes; want a multiple of 4", size)
	}
	var stored []byte
	// The repeats are periodic (4 bytes) from the second one on.
	for lit := keyLen + 8; lit <= size-8 && stored == nil; lit++ {
		if s := ms3Snappy(block, lit, 8); len(s) == size/4 {
			stored = s
		}
	}
	if stored == nil {
		t.Fatalf("no snappy encoding of %d bytes in %d", size/4, size)
	}
	if dec, err := snappy.Decode(nil, stored); err != nil || !bytes.Equal(dec, block) {
		t.Fatalf("the snappy encoding does not decode to the block: %v", err)
	}
	data, dh := ms3Table(stored, table.SnappyCompression, bytes.Repeat([]byte{1}, keyLen))
	tb := fmtOpen(t, "ratio4.ldb", data)
	err := ms3ReadAll(t, tb, repeats+1)
	budget := 64*size + 4096
	j := budget / keyLen // the first entry whose key does not fit: (j+1)*keyLen > budget
	cur := keyLen + 4 + 4*(j-1)
	ms3Want(t, "snappy block of ratio 4", err, "ratio4.ldb", dh.Offset,
		fmt.Sprintf("data block 0 %s: at byte %d of %d decompressed: %s", dh, cur, size, ms3Limit(j, 64, "size")), "")
}

// TestMutantsScanKeyBudgetStored checks the stored-size budget of a snappy
// block decoding to more than 4 times its size: 256 times its stored size
// plus 4096 bytes of keys are read, and keys beyond that are refused with
// an error naming the stored size.
func TestMutantsScanKeyBudgetStored(t *testing.T) {
	const keyLen = 2000
	for _, c := range []struct {
		repeats int
		fits    bool // the keys fit the stored size's budget
	}{{3, true}, {20, false}} {
		repeats := c.repeats
		shared := make([]int, repeats)
		for i := range shared {
			shared[i] = keyLen
		}
		block := ms3DeepBlock(keyLen, shared)
		stored := snappy.Encode(nil, block)
		size, s := len(block), len(stored)
		if 4*s >= size {
			t.Fatalf("%d repeats: snappy block of %d bytes for %d; want under a quarter", repeats, s, size)
		}
		keys, budget := (repeats+1)*keyLen, 256*s+4096
		data, dh := ms3Table(stored, table.SnappyCompression, bytes.Repeat([]byte{1}, keyLen))
		tb := fmtOpen(t, "stored.ldb", data)
		err := ms3ReadAll(t, tb, repeats+1)
		switch {
		case keys <= 4096 || keys > 64*size+4096 || (keys <= budget) != c.fits:
			t.Fatalf("%d repeats: %d bytes of keys, stored size's budget %d; want more than the slack, within the decompressed size's budget, fitting the stored size's: %v", repeats, keys, budget, c.fits)
		case c.fits:
			if err != nil {
				t.Errorf("%d repeats: %d bytes of keys within %d: %v", repeats, keys, budget, err)
			}
		default:
			j := budget / keyLen
			cur := keyLen + 4 + 4*(j-1)
			ms3Want(t, fmt.Sprintf("%d repeats", repeats), err, "stored.ldb", dh.Offset,
				fmt.Sprintf("data block 0 %s: at byte %d of %d decompressed: %s", dh, cur, size, ms3Limit(j, 256, "stored size")), "")
		}
	}
}

// TestMutantsScanBadKey checks DBIter's check of each key (db/db_iter.cc
// ParseKey): the first key that is no internal key (here a 5-byte key,
// then one of type 2) fails the scan with "Corruption: corrupted internal
// key in DBIter", at that entry; DataKeys and ReadDataBlock both say so.
func TestMutantsScanBadKey(t *testing.T) {
	kinds := table.AppendInternalKey(nil, table.InternalKey{UserKey: []byte("c"), Seq: 1, Kind: 2})
	entries := []tabletest.KV{
		{Key: ms3IKey("a", 1), Value: []byte("v0")},
		{Key: []byte("short"), Value: []byte("v1")},
		{Key: ms3IKey("b", 1), Value: []byte("v2")},
		{Key: kinds, Value: []byte("v3")},
	}
	block := tabletest.EncodeBlock(entries, 1)
	data, dh := ms3Table(block, table.NoCompression, kinds)
	tb := fmtOpen(t, "badkey.ldb", data)
	err := ms3ReadAll(t, tb, len(entries))
	cur := 3 + 9 + 2 // entry 0: three one-byte lengths, its key and value
	ms3Want(t, "bad keys", err, "badkey.ldb", dh.Offset+uint64(cur),
		fmt.Sprintf("data block 0 %s: entry 1: internal key of 5 bytes is shorter than its 8-byte tag", dh),
		"Corruption: corrupted internal key in DBIter")

	entries[1].Key = ms3IKey("a", 0)
	block = tabletest.EncodeBlock(entries, 1)
	data, dh = ms3Table(block, table.NoCompression, kinds)
	tb = fmtOpen(t, "badkind.ldb", data)
	err = ms3ReadAll(t, tb, len(entries))
	cur = 3*(3+9+2) + 0 // after three entries of 9-byte keys and 2-byte values
	ms3Want(t, "bad kind", err, "badkind.ldb", dh.Offset+uint64(cur),
		fmt.Sprintf("data block 0 %s: entry 3: internal key has type 2; want 0 (deletion) or 1 (value)", dh),
		"Corruption: corrupted internal key in DBIter")
}

// TestMutantsScanBlockStatus checks that a data block whose checksum does not
// match fails DataKeys and ReadDataBlock with ReadBlock's "Corruption:
// block checksum mismatch" (table/format.cc) at the block's offset, all
// keys being internal keys.
func TestMutantsScanBlockStatus(t *testing.T) {
	block := tabletest.EncodeBlock([]tabletest.KV{{Key: ms3IKey("a", 1), Value: []byte("v")}}, 16)
	data, dh := ms3Table(block, table.NoCompression, ms3IKey("a", 1))
	stored := binary.LittleEndian.Uint32(data[dh.Size+1:])
	data[dh.Size+1] ^= 0xff // the stored checksum's first byte
	tb := fmtOpen(t, "checksum.ldb", data)
	err := ms3ReadAll(t, tb, 1)
	ms3Want(t, "checksum", err, "checksum.ldb", dh.Offset,
		fmt.Sprintf("data block 0 %s: block checksum mismatch: stored 0x%08x, computed 0x%08x", dh, stored^0xff, stored),
		"Corruption: block checksum mismatch")
}

// TestMutantsScanReadDataBlockRange checks that ReadDataBlock refuses a block
// number outside the index's entries, with the range in the error.
func TestMutantsScanReadDataBlockRange(t *testing.T) {
	data, _ := ms3Table(tabletest.EncodeBlock([]tabletest.KV{{Key: ms3IKey("a", 1), Value: []byte("v")}}, 16), table.NoCompression, ms3IKey("a", 1))
	tb := fmtOpen(t, "range.ldb", data)
	if _, err := tb.ReadDataBlock(0); err != nil {
		t.Fatalf("ReadDataBlock(0): %v", err)
	}
	for _, i := range []int{-1, 1} {
		_, err := tb.ReadDataBlock(i)
		want := fmt.Sprintf("table range.ldb: data block %d out of range [0, 1)", i)
		if err == nil || err.Error() != want {
			t.Errorf("ReadDataBlock(%d) = %v; want %q", i, err, want)
		}
	}
}
