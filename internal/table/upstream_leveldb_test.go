//go:build leveldb

package table_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/klauspost/compress/snappy"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/cgo/upstream"
	"github.com/ldbcompat/ldbcompat/internal/base"
	"github.com/ldbcompat/ldbcompat/internal/table"
	"github.com/ldbcompat/ldbcompat/internal/table/tabletest"
)

// FuzzUpstreamTable is the differential test of this package's reader
// against upstream LevelDB 1.23's (cgo/upstream ReadTable: TableCache,
// Table::Open, the two-level iterator, Table::InternalGet with a recording
// filter policy). Each input picks a base table (one upstream wrote, from
// testdata/tables, or a small one holding the first data block of one) and
// a program of structured mutations (see mutate), applied with checksums
// kept valid unless the mutation is about them; it then reads the result
// both ways and requires: the same open status, the same scanned entries
// and scan status, the same DBIter verdict from DataKeys, and for lookup
// keys the same Get results with the filter consulted alike, under the
// policy name the input picks and under leveldb.BuiltinBloomFilter2; all
// of it twice, with paranoid checks and with LevelDB's default options
// (table.Options.SkipChecksums, upstream.TableOptions.Defaults).
func FuzzUpstreamTable(f *testing.F) {
	if _, minor := upstream.Version(); minor <= 17 {
		f.Skipf("package table follows 1.23's table reader; LevelDB %s's Table::Open reads the index, metaindex and filter blocks without verifying their checksums even with paranoid_checks (v1.18 added that), so damaged tables read otherwise there", upstream.Release())
	}
	bases := upstreamBases(f)
	for i := range bases {
		f.Add(uint8(i), []byte{})
	}
	// A few programs per mutation, on the first small base and a fixture.
	for op := byte(0); op < numOps; op++ {
		f.Add(uint8(len(bases)-1), []byte{op, 1, 2, 3, 4, 5, 6, 7, 8})
		f.Add(uint8(0), []byte{op, 200, 7, 1, 0, 9, 3, 1})
	}
	dir := f.TempDir()
	var mu sync.Mutex // one worker per process, but keep the file private
	f.Fuzz(func(t *testing.T, base uint8, prog []byte) {
		mu.Lock()
		defer mu.Unlock()
		b := bases[int(base)%len(bases)]
		m := newModel(t, b)
		in := mutate(m, prog)
		diffTable(t, dir, in)
	})
}

// tableInput is one differential case: a file, the size to open it with
// and the policy name to look its filter up by.
type tableInput struct {
	file   []byte
	size   uint64
	policy string
	sst    bool // named NNNNNN.sst rather than .ldb
	keys   [][]byte
}

// baseTable is a well-formed table to mutate.
type baseTable struct {
	name string
	data []byte
}

var (
	basesOnce sync.Once
	basesAll  []baseTable
)

// upstreamBases returns the fixture tables upstream wrote and, for speed,
// small tables holding the first data block of some of them as upstream
// wrote it, with a filter block, metaindex and index around it.
func upstreamBases(tb testing.TB) []baseTable {
	basesOnce.Do(func() {
		for _, f := range loadFixtures(tb) {
			basesAll = append(basesAll, baseTable{name: f.name(), data: f.data})
		}
		for _, f := range loadFixtures(tb) {
			if f.idx != 0 {
				continue
			}
			file, _, _ := firstBlockTable(tb, f, bloom.NewPolicy(f.db.BitsPerKey))
			basesAll = append(basesAll, baseTable{name: f.name() + "/first-block", data: file})
		}
	})
	return basesAll
}

// The mutations a program applies, one op code byte each followed by its
// arguments (missing bytes read as 0).
const (
	opRawEdit      = iota // xor a byte anywhere, checksums untouched
	opBlockEdit           // set a byte inside a block, checksum fixed
	opIndexPad            // extra bytes after the handle in index values
	opMetaPad             // extra bytes after the handle in metaindex values
	opMetaAdd             // an extra metaindex entry
	opFilterName          // rename the filter entry
	opFilterHandle        // damage the filter handle
	opFilterSnappy        // store the filter block snappy-compressed
	opSizeDelta           // open with another size than the file's
	opTruncate            // cut the file short
	opGrow                // append bytes to the file
	opFooter              // change a footer handle
	opRestarts            // rewrite a block's restart array
	opIndexSnappy         // store the index block snappy-compressed
	opPolicy              // look the filter up by another name
	opIndexDup            // duplicate or drop an index entry
	opMetaRestart         // metaindex restart interval
	opSST                 // name the file NNNNNN.sst
	numOps
)

// model is a table taken apart: its data blocks as stored, the filter
// block's contents, the metaindex and index entries, and how to write
// them back.
type model struct {
	data        []byte // data blocks as stored, from offset 0
	filter      []byte // filter block contents (nil: none)
	filterComp  byte
	meta        []metaKV
	metaRestart int
	index       []tabletest.KV
	indexComp   byte
	footerMeta  [2]int64 // deltas to the footer's metaindex handle
	footerIndex [2]int64 // deltas to the footer's index handle
	keys        [][]byte // user keys to look up
}

// metaKV is a metaindex entry; isFilter entries get the filter block's
// handle, followed by pad, or raw (when set) instead.
type metaKV struct {
	key      []byte
	isFilter bool
	pad      []byte
	raw      []byte
	delta    [2]int64 // added to the filter handle's offset and size
}

func newModel(t *testing.T, b baseTable) *model {
	tb, err := table.Open(b.name, bytes.NewReader(b.data), int64(len(b.data)))
	if err != nil {
		t.Fatalf("base %s: %v", b.name, err)
	}
	m := &model{metaRestart: 16}
	end := uint64(0)
	for _, e := range tb.Index() {
		m.index = append(m.index, tabletest.KV{Key: e.Separator, Value: e.Value})
		end = max(end, e.Handle.End())
	}
	m.data = b.data[:end]
	for _, me := range tb.Metaindex() {
		kv := metaKV{key: []byte(me.Name), raw: me.Value}
		if name, ok := bytesCutPrefix(me.Name, table.FilterPrefix); ok {
			fl := tb.LookupFilter(name)
			if fl.Use == table.FilterUsed {
				m.filter, kv.isFilter, kv.raw = fl.Contents, true, nil
			}
		}
		m.meta = append(m.meta, kv)
	}
	err = tb.DataKeys(func(k []byte) {
		if len(m.keys) < 64 {
			m.keys = append(m.keys, bytes.Clone(k[:len(k)-8]))
		}
	}, func(int, table.BlockHandle, int) error { return nil })
	if err != nil {
		t.Fatalf("base %s: %v", b.name, err)
	}
	return m
}

func bytesCutPrefix(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && s[:len(prefix)] == prefix {
		return s[len(prefix):], true
	}
	return "", false
}

// write lays the model out as a table file.
func (m *model) write() []byte {
	file := bytes.Clone(m.data)
	var fh table.BlockHandle
	if m.filter != nil {
		stored := m.filter
		if m.filterComp == table.SnappyCompression {
			stored = snappy.Encode(nil, m.filter)
		}
		file, fh = tabletest.AppendBlock(file, stored, m.filterComp)
	}
	var meta []tabletest.KV
	for _, kv := range m.meta {
		v := kv.raw
		if kv.isFilter && kv.raw == nil {
			h := table.BlockHandle{Offset: uint64(int64(fh.Offset) + kv.delta[0]), Size: uint64(int64(fh.Size) + kv.delta[1])}
			v = append(table.AppendBlockHandle(nil, h), kv.pad...)
		}
		meta = append(meta, tabletest.KV{Key: kv.key, Value: v})
	}
	file, mh := tabletest.AppendBlock(file, tabletest.EncodeBlock(meta, m.metaRestart), 0)
	idx := tabletest.EncodeBlock(m.index, 1)
	if m.indexComp == table.SnappyCompression {
		idx = snappy.Encode(nil, idx)
	}
	file, ih := tabletest.AppendBlock(file, idx, m.indexComp)
	mh.Offset, mh.Size = uint64(int64(mh.Offset)+m.footerMeta[0]), uint64(int64(mh.Size)+m.footerMeta[1])
	ih.Offset, ih.Size = uint64(int64(ih.Offset)+m.footerIndex[0]), uint64(int64(ih.Size)+m.footerIndex[1])
	return tabletest.AppendFooter(file, mh, ih)
}

// progReader reads a fuzz program: tabletest.Prog with sizes and deltas.
type progReader struct{ *tabletest.Prog }

func (r *progReader) bytes(n int) []byte {
	out := make([]byte, n)
	for i := range out {
		out[i] = r.Byte()
	}
	return out
}

// varintish returns small values usually and, now and then, huge ones.
func (r *progReader) delta() int64 {
	c := r.Byte()
	switch c >> 6 {
	case 3:
		return int64(r.U16()) << uint(r.Byte()%48)
	case 2:
		return -int64(c & 0x3f)
	}
	return int64(c & 0x7f)
}

var policyNames = []string{bloom.PolicyName, bloom.LegacyPolicyName, "leveldb.BuiltinBloomFilter3", "", "x"}

// mutate runs prog on m and returns the case to read.
func mutate(m *model, prog []byte) tableInput {
	r := &progReader{tabletest.NewProg(prog)}
	in := tableInput{policy: bloom.PolicyName}
	var raw []func([]byte) []byte // edits on the written file
	sizeDelta := int64(0)
	for steps := 0; r.More() && steps < 16; steps++ {
		switch op := r.Byte() % numOps; op {
		case opRawEdit:
			off, x := r.U16(), r.Byte()|1
			raw = append(raw, func(f []byte) []byte {
				f[off%len(f)] ^= x
				return f
			})
		case opBlockEdit:
			sel, off, v := r.Byte(), r.U16(), r.Byte()
			raw = append(raw, func(f []byte) []byte { return editBlock(f, sel, off, v) })
		case opIndexPad:
			i, pad := r.Byte(), r.bytes(int(r.Byte()%12))
			for j := range m.index {
				if i == 255 || j == int(i)%len(m.index) {
					m.index[j].Value = append(bytes.Clone(m.index[j].Value), pad...)
				}
			}
		case opMetaPad:
			pad := r.bytes(int(r.Byte() % 12))
			for j := range m.meta {
				if m.meta[j].isFilter {
					m.meta[j].pad = pad
				} else {
					m.meta[j].raw = append(bytes.Clone(m.meta[j].raw), pad...)
				}
			}
		case opMetaAdd:
			names := []string{"filter." + bloom.LegacyPolicyName, "filter.other", "filter." + bloom.PolicyName, "zzz", "abc", "filter.", "filter." + bloom.PolicyName + "\x00"}
			name := []byte(names[int(r.Byte())%len(names)])
			kv := metaKV{key: name}
			switch r.Byte() % 3 {
			case 0:
				kv.isFilter = m.filter != nil
				if !kv.isFilter {
					kv.raw = r.bytes(4)
				}
			case 1:
				kv.raw = r.bytes(int(r.Byte() % 8))
			default:
				kv.raw = table.AppendBlockHandle(nil, table.BlockHandle{Offset: uint64(r.U16()), Size: uint64(r.U16())})
			}
			at := int(r.Byte()) % (len(m.meta) + 1)
			if r.Byte()%2 == 0 { // keep the block sorted, as builders do
				m.meta = append(m.meta, kv)
				sort.SliceStable(m.meta, func(i, j int) bool { return bytes.Compare(m.meta[i].key, m.meta[j].key) < 0 })
			} else {
				m.meta = append(m.meta[:at], append([]metaKV{kv}, m.meta[at:]...)...)
			}
		case opFilterName:
			names := []string{"filter." + bloom.LegacyPolicyName, "filter.x", "filter.leveldb.BuiltinBloomFilter3", "filter." + bloom.PolicyName[:10], "Filter." + bloom.PolicyName}
			name := []byte(names[int(r.Byte())%len(names)])
			for j := range m.meta {
				if m.meta[j].isFilter {
					m.meta[j].key = name
				}
			}
		case opFilterHandle:
			kind, a, b := r.Byte()%4, r.delta(), r.delta()
			for j := range m.meta {
				if !m.meta[j].isFilter {
					continue
				}
				switch kind {
				case 0:
					m.meta[j].delta = [2]int64{a, b}
				case 1: // truncated handle
					h := table.AppendBlockHandle(nil, table.BlockHandle{Offset: uint64(a + 1000), Size: uint64(b + 300)})
					m.meta[j].raw = h[:int(uint64(a)%uint64(len(h)))]
				case 2: // a varint that never ends
					m.meta[j].raw = bytes.Repeat([]byte{0x80 | byte(a)}, 1+int(uint64(b)%12))
				default: // empty value
					m.meta[j].raw = []byte{}
				}
			}
		case opFilterSnappy:
			if m.filter != nil {
				m.filterComp = table.SnappyCompression
			}
		case opSizeDelta:
			sizeDelta = r.delta()
		case opTruncate:
			n := r.U16()
			raw = append(raw, func(f []byte) []byte { return f[:len(f)-min(n%64, len(f))] })
		case opGrow:
			tail := r.bytes(int(r.Byte() % 64))
			raw = append(raw, func(f []byte) []byte { return append(f, tail...) })
		case opFooter:
			which, a, b := r.Byte(), r.delta(), r.delta()
			if which%2 == 0 {
				m.footerMeta = [2]int64{a, b}
			} else {
				m.footerIndex = [2]int64{a, b}
			}
		case opRestarts:
			sel, kind, v := r.Byte(), r.Byte(), r.U16()
			raw = append(raw, func(f []byte) []byte { return editRestarts(f, sel, kind, v) })
		case opIndexSnappy:
			m.indexComp = table.SnappyCompression
		case opPolicy:
			in.policy = policyNames[int(r.Byte())%len(policyNames)]
		case opIndexDup:
			i, how := int(r.Byte()), r.Byte()%3
			if len(m.index) == 0 {
				break
			}
			i %= len(m.index)
			switch how {
			case 0:
				m.index = append(m.index[:i+1], m.index[i:]...)
			case 1:
				m.index = append(m.index[:i:i], m.index[i+1:]...)
			default:
				m.index[i].Key = r.bytes(int(r.Byte() % 10))
			}
		case opMetaRestart:
			m.metaRestart = 1 + int(r.Byte()%4)
		case opSST:
			in.sst = true
		}
	}
	file := m.write()
	for _, e := range raw {
		if len(file) > 0 {
			file = e(file)
		}
	}
	in.file = file
	in.size = uint64(max(int64(len(file))+sizeDelta, 0))
	in.keys = m.keys
	return in
}

// blockHandles lists the blocks of file as our reader finds them, for
// edits inside blocks: data blocks, then filter, metaindex and index.
func blockHandles(f []byte) []table.BlockHandle {
	tb, err := table.Open("x", bytes.NewReader(f), int64(len(f)))
	if err != nil {
		return nil
	}
	var hs []table.BlockHandle
	for _, e := range tb.Index() {
		if e.HandleOK && e.Handle.End() <= uint64(len(f)) {
			hs = append(hs, e.Handle)
		}
	}
	if fh, ok := tb.FilterHandle(); ok {
		hs = append(hs, fh)
	}
	for _, h := range []table.BlockHandle{tb.MetaindexHandle(), tb.IndexHandle()} {
		if h.Size < uint64(len(f)) && h.End() <= uint64(len(f)) {
			hs = append(hs, h)
		}
	}
	return hs
}

// editBlock sets byte off of the sel-th block to v and fixes its checksum.
func editBlock(f []byte, sel byte, off int, v byte) []byte {
	hs := blockHandles(f)
	if len(hs) == 0 {
		return f
	}
	h := hs[int(sel)%len(hs)]
	if h.Size == 0 {
		return f
	}
	f[h.Offset+uint64(off)%h.Size] = v
	tabletest.FixChecksum(f, h)
	return f
}

// editRestarts rewrites the restart array of the sel-th uncompressed
// block and fixes its checksum: no restarts, restart 0 moved, or a
// restart count past the block.
func editRestarts(f []byte, sel, kind byte, v int) []byte {
	hs := blockHandles(f)
	if len(hs) == 0 {
		return f
	}
	h := hs[int(sel)%len(hs)]
	if h.Size < 4 || f[h.Offset+h.Size] != table.NoCompression {
		return f
	}
	c := f[h.Offset : h.Offset+h.Size]
	num := binary.LittleEndian.Uint32(c[len(c)-4:])
	switch kind % 4 {
	case 0:
		binary.LittleEndian.PutUint32(c[len(c)-4:], 0)
	case 1:
		if num > 0 && uint64(num)*4+4 <= uint64(len(c)) {
			binary.LittleEndian.PutUint32(c[len(c)-4-4*int(num):], uint32(v))
		}
	case 2:
		binary.LittleEndian.PutUint32(c[len(c)-4:], num+uint32(v%3)+1)
	default:
		if num > 1 && uint64(num)*4+4 <= uint64(len(c)) {
			i := 1 + v%int(num-1)
			binary.LittleEndian.PutUint32(c[len(c)-4-4*int(num)+4*i:], uint32(v>>4))
		}
	}
	tabletest.FixChecksum(f, h)
	return f
}

// lookupKey is a LookupKey's internal key: the largest sequence number
// and kValueTypeForSeek.
func lookupKey(u []byte) []byte {
	return binary.LittleEndian.AppendUint64(bytes.Clone(u), (1<<56-1)<<8|1)
}

// maxUpstreamAlloc is the largest allocation a case may make upstream
// do: ReadBlock allocates a handle's size plus 5 bytes before it checks
// the read, and a snappy block's claimed length before it decodes it, so
// a damaged handle or header can ask for gigabytes, which throws
// std::bad_alloc (an abort through the shim) when memory is short.
const maxUpstreamAlloc = 64 << 20

// goEntry is one scanned entry, for comparison with upstream's.
// diffTable reads in both ways and fails on any difference.
func diffTable(t *testing.T, dir string, in tableInput) {
	const number = 5
	ext := ".ldb"
	if _, minor := upstream.Version(); in.sst || minor <= 13 {
		ext = ".sst" // v1.4 to v1.13 open NNNNNN.sst only
	}
	path := filepath.Join(dir, fmt.Sprintf("%06d%s", number, ext))
	for _, e := range []string{".ldb", ".sst"} {
		os.Remove(filepath.Join(dir, fmt.Sprintf("%06d%s", number, e)))
	}
	if err := os.WriteFile(path, in.file, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, o := range []table.Options{{}, {SkipChecksums: true}} {
		diffMode(t, dir, path, in, o)
	}
}

// diffMode is diffTable for one way of reading: with paranoid checks
// (the zero Options) or with upstream's default options.
func diffMode(t *testing.T, dir, path string, in tableInput, o table.Options) {
	const number = 5
	repro := fmt.Sprintf("file %d bytes, size %d, policy %q, sst %v, %+v", len(in.file), in.size, in.policy, in.sst, o)
	policies := []string{in.policy}
	if in.policy != bloom.PolicyName {
		policies = append(policies, bloom.PolicyName)
	}

	maxAlloc := uint64(0)
	defer table.SetAllocHook(func(n uint64) { maxAlloc = max(maxAlloc, n) })()
	tb, openErr := table.OpenSizedWith(path, bytes.NewReader(in.file), int64(len(in.file)), int64(in.size), o)
	if errors.Is(openErr, base.ErrUndefined) {
		return // upstream reads out of bounds (handle offset+size wraps)
	}
	var (
		entries []upstream.TableEntry // as upstream's reader answers
		scanErr error
	)
	if openErr == nil {
		scanErr = tb.Scan(func(e table.ScanEntry) error {
			_, perr := table.ParseInternalKey(e.Key)
			entries = append(entries, upstream.TableEntry{Key: bytes.Clone(e.Key), Value: bytes.Clone(e.Value), ParsesAsInternalKey: perr == nil})
			return nil
		})
		if errors.Is(scanErr, base.ErrUndefined) {
			return // DecodeEntry's uint32 sum wraps: upstream reads past the block
		}
	}
	// The same file in memory, as verify reads a memory-mapped table,
	// must read the same.
	mb, memErr := table.OpenBytesWith(path, in.file, int64(in.size), o)
	if fmt.Sprint(memErr) != fmt.Sprint(openErr) {
		t.Fatalf("%s: OpenBytes fails with %v; OpenSized with %v", repro, memErr, openErr)
	}
	if memErr == nil {
		i := 0
		memScanErr := mb.Scan(func(e table.ScanEntry) error {
			if i >= len(entries) || !bytes.Equal(e.Key, entries[i].Key) || !bytes.Equal(e.Value, entries[i].Value) {
				return fmt.Errorf("entry %d (key %x) differs from OpenSized's", i, e.Key)
			}
			i++
			return nil
		})
		if fmt.Sprint(memScanErr) != fmt.Sprint(scanErr) || i != len(entries) {
			t.Fatalf("%s: OpenBytes scans %d entries, error %v; OpenSized %d, error %v", repro, i, memScanErr, len(entries), scanErr)
		}
	}

	for pi, policy := range policies {
		// Lookups: some of the table's user keys and some absent ones;
		// those whose lookup upstream leaves undefined are left out.
		var lookups [][]byte
		var want []table.GetResult
		var filter *table.FilterLookup
		if tb != nil {
			filter = tb.LookupFilter(policy)
			cands := [][]byte{{}, []byte("\xff\xff\xff\xff"), []byte("key\xf0")}
			for i := 0; i < len(in.keys); i += 1 + len(in.keys)/6 {
				cands = append(cands, in.keys[i])
			}
			for _, u := range cands {
				ik := lookupKey(u)
				// The filters of the policy upstream reads them with:
				// the release's NewBloomFilterPolicy(10).
				g, err := tb.Get(ik, filter, upstream.GoBloomPolicy(10))
				if err != nil {
					continue
				}
				lookups, want = append(lookups, ik), append(want, g)
			}
		}
		if maxAlloc > maxUpstreamAlloc {
			return // upstream would allocate too much (see maxUpstreamAlloc)
		}
		up, err := upstream.ReadTable(dir, number, in.size, upstream.TableOptions{PolicyName: policy, BitsPerKey: 10, Lookups: lookups, Defaults: o.SkipChecksums})
		if err != nil {
			t.Fatal(err)
		}
		if got := upstream.Reword(base.StatusOf(openErr)); got != up.OpenStatus || (openErr == nil) != (up.OpenStatus == "") {
			t.Fatalf("%s: open: ours %v (status %q), upstream %q", repro, openErr, got, up.OpenStatus)
		}
		if openErr != nil {
			return
		}
		if pi == 0 {
			if diff := quickDiff(up.Entries, entries, cmpopts.EquateEmpty()); diff != "" {
				t.Fatalf("%s: scan entries (ours %v, upstream %q) (-upstream +got):\n%s", repro, scanErr, up.ScanStatus, diff)
			}
			if got := upstream.Reword(base.StatusOf(scanErr)); got != up.ScanStatus || (scanErr == nil) != (up.ScanStatus == "") {
				t.Fatalf("%s: scan status: ours %v (status %q), upstream %q", repro, scanErr, got, up.ScanStatus)
			}
			checkVerdict(t, repro, tb, up)
		}
		gets := make([]upstream.TableGet, len(want)) // ours, as upstream answers
		for i, w := range want {
			gets[i] = upstream.TableGet{Found: w.Found, Key: w.Key, Value: w.Value, Status: upstream.Reword(base.StatusOf(w.Err)), FilterCalls: w.PolicyCalls}
			if w.Err != nil && gets[i].Status == "" {
				t.Fatalf("%s: policy %q: Get(%x): %v, without upstream's status", repro, policy, lookups[i], w.Err)
			}
		}
		if diff := quickDiff(up.Gets, gets, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("%s: policy %q (filter %s, %v): Get of %x (-upstream +got):\n%s", repro, policy, filter.Use, filter.Err, lookups, diff)
		}
	}
}

// checkVerdict requires DataKeys to return what upstream's DBIter reports
// after a full scan: its own "corrupted internal key" when a key does not
// parse, else the iterator's status; or our memory bound.
func checkVerdict(t *testing.T, repro string, tb *table.Table, up *upstream.TableRead) {
	want := up.ScanStatus
	for _, e := range up.Entries {
		if !e.ParsesAsInternalKey {
			want = "Corruption: corrupted internal key in DBIter"
			break
		}
	}
	err := tb.DataKeys(func([]byte) {}, func(int, table.BlockHandle, int) error { return nil })
	if errors.Is(err, table.ErrLimit) && want == "" {
		return
	}
	if got := base.StatusOf(err); got != want || (err == nil) != (want == "") {
		t.Fatalf("%s: DataKeys: %v (status %q); upstream's DBIter would report %q", repro, err, got, want)
	}
}
