package porttest

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"
	"testing"

	"github.com/ldbcompat/ldbcompat/compat"
	"github.com/ldbcompat/ldbcompat/internal/logfile"
	"github.com/ldbcompat/ldbcompat/internal/table"
	"github.com/ldbcompat/ldbcompat/ports/internal/adapt"
	"github.com/ldbcompat/ldbcompat/ports/internal/ikey"
)

// FormatsOptions say what Formats may not expect of a port, each with the
// reason a test states when it skips the check.
type FormatsOptions struct {
	// TablesRefused is the error with which the port's table reader
	// refuses every table upstream wrote (testdata/tables), when it does
	// ("" when it reads them): the test checks that it still does.
	TablesRefused string
	// UpstreamOpen is the status upstream's DB::Open gives the database
	// WriteSynced leaves, with its directory as DIR, when it refuses it
	// ("" for OK): the test checks that it still does.
	UpstreamOpen string
	// SameBlocks: WriteTable, on the entries of each table upstream wrote
	// without compression (testdata/tables) and with its options (snappy
	// encoders legitimately differ), writes upstream's data
	// blocks, filter block and index block byte for byte: all but the
	// metaindex and the footer, which hold the filter's name (another
	// property). The test checks that it does.
	SameBlocks bool
	// UpstreamFindsNone: upstream opens the database WriteSynced leaves
	// but finds none of its writes (it cannot read the port's log): the
	// test checks that it still finds none.
	UpstreamFindsNone bool
}

// TableOptions is the options matrix of Formats' table checks: block
// sizes from 1 KiB to 64 KiB (and a value larger than a block), restart
// intervals 1, 2, 16 and 32, both compressions, no filter and two.
var TableOptions = []compat.TableOptions{
	{BlockSize: 1024, RestartInterval: 16},
	{BlockSize: 4096, RestartInterval: 1, Snappy: true, BitsPerKey: 10},
	{BlockSize: 1024, RestartInterval: 2, BitsPerKey: 1},
	{BlockSize: 65536, RestartInterval: 32, Snappy: true},
}

// Entries returns sorted internal-key entries that exercise a table:
// user keys sharing prefixes and not, several versions of a user key
// (sequence descending), deletions with empty values, keys with every byte
// value, and one value larger than 64 KiB.
func Entries() []compat.Entry {
	var out []compat.Entry
	add := func(user []byte, seq uint64, typ byte, value []byte) {
		k := append(bytes.Clone(user), make([]byte, 8)...)
		binary.LittleEndian.PutUint64(k[len(user):], seq<<8|uint64(typ))
		out = append(out, compat.Entry{Key: k, Value: value})
	}
	for i := 0; i < 600; i++ {
		user := []byte(fmt.Sprintf("key%05d", i*7))
		switch {
		case i%50 == 0:
			user = append(user, bytes.Repeat([]byte{0xff}, i%13)...)
		case i%31 == 0:
			user = append(user, byte(i), 0, 0xff, byte(i*3))
		}
		seq := uint64(1000 + i)
		if i%9 == 0 {
			add(user, seq+5000, 0, nil) // a deletion, newer
		}
		value := bytes.Repeat([]byte{byte(i), 'v'}, i%40)
		if i == 300 {
			value = bytes.Repeat([]byte("large"), 70<<10/5)
		}
		add(user, seq, 1, value)
	}
	var all []byte
	for b := 0; b < 256; b++ {
		all = append(all, byte(b))
	}
	add(append([]byte("zz"), all...), 7, 1, []byte("every byte"))
	sort.Slice(out, func(i, j int) bool { return ikey.Compare(out[i].Key, out[j].Key) < 0 })
	return out
}

// Records returns log records that exercise 32 KiB blocks: empty ones, a
// record that ends exactly at a block's end, one that leaves fewer than 7
// bytes in a block, and records spanning several blocks.
func Records() [][]byte {
	const block, header = 32 << 10, 7
	rec := func(n int, b byte) []byte { return bytes.Repeat([]byte{b}, n) }
	out := [][]byte{{}, []byte("first")}
	used := header + header + 5
	out = append(out, rec(block-used-header, 'a')) // ends the first block exactly
	out = append(out, []byte{}, rec(block-header-header-3, 'b'))
	// The second block has 3 bytes left: its trailer.
	out = append(out, rec(100<<10, 'c'), []byte{}, []byte("after"), rec(block, 'd'))
	return out
}

// Formats checks the port's hooks for tables, logs and synced writes,
// those it has, against one another and this module's readers (which the
// kit's tests check against upstream): each table WriteTable writes reads
// back every entry, through ReadTable and through internal/table with
// checksums verified; ReadTable reads every entry of the tables upstream
// wrote; each log WriteLog writes reads back every record, through ReadLog
// and internal/logfile, without a drop; and a database WriteSynced leaves,
// closed, holds every write (through ReadDB). Under the leveldb tag it
// asks upstream too (see upstreamChecks).
func Formats(t *testing.T, p compat.Port, o FormatsOptions) {
	t.Helper()
	if p.WriteTable != nil {
		t.Run("WriteTable", func(t *testing.T) { writeTables(t, p) })
	}
	if p.ReadTable != nil {
		t.Run("ReadTable", func(t *testing.T) { readUpstreamTables(t, p, o.TablesRefused) })
	}
	if p.WriteTable != nil && o.SameBlocks {
		t.Run("WriteTable upstream's blocks", func(t *testing.T) { sameBlocks(t, p) })
	}
	if p.WriteTable != nil && p.ReadTable != nil {
		t.Run("ReadTable damaged", func(t *testing.T) { readDamagedTables(t, p) })
	}
	if p.WriteLog != nil && p.ReadLog != nil {
		t.Run("ReadLog damaged", func(t *testing.T) { readDamagedLog(t, p) })
	}
	if p.WriteLog != nil {
		t.Run("WriteLog", func(t *testing.T) { writeLog(t, p) })
	}
	if p.WriteSynced != nil {
		t.Run("WriteSynced", func(t *testing.T) { writeSynced(t, p) })
	}
	upstreamChecks(t, p, o)
}

func writeTables(t *testing.T, p compat.Port) {
	entries := Entries()
	for _, to := range TableOptions {
		data, err := p.WriteTable(entries, to)
		if err != nil {
			t.Fatalf("WriteTable(%+v): %v", to, err)
		}
		got, err := scanTable(data)
		if err != nil {
			t.Errorf("%+v: internal/table reads the port's table: %v", to, err)
		}
		sameEntries(t, fmt.Sprintf("%+v: internal/table on WriteTable's table", to), got, entries)
		if p.ReadTable == nil {
			continue
		}
		got, err = p.ReadTable(data)
		if err != nil {
			t.Errorf("%+v: ReadTable of WriteTable's table: %v", to, err)
		}
		sameEntries(t, fmt.Sprintf("%+v: ReadTable of WriteTable's table", to), got, entries)
	}
}

// scanTable returns every entry of the table in data, as internal/table
// reads it with checksums verified.
func scanTable(data []byte) ([]compat.Entry, error) {
	tb, err := table.OpenBytes("port.ldb", data, int64(len(data)))
	if err != nil {
		return nil, err
	}
	var out []compat.Entry
	err = tb.Scan(func(e table.ScanEntry) error {
		out = append(out, compat.Entry{Key: bytes.Clone(e.Key), Value: bytes.Clone(e.Value)})
		return nil
	})
	return out, err
}

func sameEntries(t *testing.T, what string, got, want []compat.Entry) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d entries, want %d", what, len(got), len(want))
	}
	for i := range min(len(got), len(want)) {
		if !bytes.Equal(got[i].Key, want[i].Key) || !bytes.Equal(got[i].Value, want[i].Value) {
			t.Errorf("%s: entry %d is %x (%d-byte value), want %x (%d-byte value)", what, i, got[i].Key, len(got[i].Value), want[i].Key, len(want[i].Value))
			return
		}
	}
}

// readUpstreamTables reads every table of the databases upstream wrote:
// the port reads every entry, or refuses the table with the error refused
// when that is set.
func readUpstreamTables(t *testing.T, p compat.Port, refused string) {
	dbs, err := adapt.Committed()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, db := range dbs {
		for _, ti := range db.Info.Tables {
			data, err := fs.ReadFile(db.FS, ti.File)
			if err != nil {
				t.Fatal(err)
			}
			want, err := scanTable(data)
			if err != nil {
				t.Fatalf("%s: internal/table: %v", path.Join(db.Dir, ti.File), err)
			}
			got, err := p.ReadTable(data)
			if refused != "" {
				if err == nil || err.Error() != refused || len(got) > 0 {
					t.Errorf("%s: ReadTable gives %d entries and error %v, want none and %q", path.Join(db.Dir, ti.File), len(got), err, refused)
				}
				n++
				continue
			}
			if err != nil {
				t.Errorf("%s: ReadTable: %v", path.Join(db.Dir, ti.File), err)
			}
			sameEntries(t, path.Join(db.Dir, ti.File), got, want)
			n++
		}
	}
	if n == 0 {
		t.Fatal("no table upstream wrote")
	}
}

func writeLog(t *testing.T, p compat.Port) {
	recs := Records()
	data, err := p.WriteLog(recs)
	if err != nil {
		t.Fatal(err)
	}
	var drops []logfile.Drop
	r := logfile.NewReader(bytes.NewReader(data), "port.log", logfile.Options{OnDrop: func(d logfile.Drop) { drops = append(drops, d) }})
	var got [][]byte
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, bytes.Clone(rec.Data))
	}
	if len(drops) > 0 {
		t.Errorf("internal/logfile drops %+v reading the port's log", drops)
	}
	sameRecords(t, "internal/logfile on WriteLog's log", got, recs)
	if p.ReadLog != nil {
		got, err := p.ReadLog(data)
		if err != nil {
			t.Errorf("ReadLog of WriteLog's log: %v", err)
		}
		sameRecords(t, "ReadLog of WriteLog's log", got, recs)
	}
}

func sameRecords(t *testing.T, what string, got, want [][]byte) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d records, want %d", what, len(got), len(want))
	}
	for i := range min(len(got), len(want)) {
		if !bytes.Equal(got[i], want[i]) {
			t.Errorf("%s: record %d has %d bytes, want %d bytes", what, i, len(got[i]), len(want[i]))
			return
		}
	}
}

// syncedKVs are the writes of the WriteSynced checks.
func syncedKVs() [][2][]byte {
	var kvs [][2][]byte
	for i := 0; i < 200; i++ {
		kvs = append(kvs, [2][]byte{[]byte(fmt.Sprintf("synced%04d", i)), bytes.Repeat([]byte{byte(i)}, i)})
	}
	return kvs
}

func writeSynced(t *testing.T, p compat.Port) {
	dir := t.TempDir()
	kvs := syncedKVs()
	closeDB, err := p.WriteSynced(dir, kvs)
	if err != nil {
		t.Fatal(err)
	}
	if err := closeDB(); err != nil {
		t.Fatal(err)
	}
	if p.ReadDB == nil {
		return
	}
	keys := make([][]byte, len(kvs))
	for i, kv := range kvs {
		keys[i] = kv[0]
	}
	found, err := p.ReadDB(dir, 10, keys)
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range found {
		if !f {
			t.Errorf("ReadDB after WriteSynced misses %q", keys[i])
		}
	}
}

// damaged returns copies of data with one byte changed, every step bytes
// and in each of the last tail, and cut short at a few lengths.
func damaged(data []byte, step, tail int) map[string][]byte {
	out := map[string][]byte{}
	flip := func(i int) {
		d := bytes.Clone(data)
		d[i] ^= 0x41
		out[fmt.Sprintf("byte %d changed", i)] = d
	}
	for i := 0; i < len(data); i += step {
		flip(i)
	}
	for i := max(0, len(data)-tail); i < len(data); i++ {
		flip(i)
	}
	for _, n := range []int{len(data) - 1, len(data) / 2, 100} {
		if n > 0 && n < len(data) {
			out[fmt.Sprintf("cut at %d", n)] = data[:n]
		}
	}
	return out
}

// readDamagedTables: on damaged copies of a table WriteTable wrote,
// ReadTable does not panic and returns no entry that was not written.
func readDamagedTables(t *testing.T, p compat.Port) {
	entries := Entries()
	written := map[string]bool{}
	for _, e := range entries {
		written[string(e.Key)+"\x00"+string(e.Value)] = true
	}
	data, err := p.WriteTable(entries, TableOptions[1])
	if err != nil {
		t.Fatal(err)
	}
	for what, d := range damaged(data, 97, 64) {
		got, _ := p.ReadTable(d)
		for _, e := range got {
			if !written[string(e.Key)+"\x00"+string(e.Value)] {
				t.Errorf("%s: ReadTable returns an entry never written: %x", what, e.Key)
				break
			}
		}
	}
}

// readDamagedLog: on damaged copies of a log WriteLog wrote, ReadLog does
// not panic and returns no record that was not written.
func readDamagedLog(t *testing.T, p compat.Port) {
	recs := Records()
	written := map[string]bool{}
	for _, r := range recs {
		written[string(r)] = true
	}
	data, err := p.WriteLog(recs)
	if err != nil {
		t.Fatal(err)
	}
	// Few cases: pebble v2's reader reads ahead from a damaged chunk for
	// up to 2 seconds on this log.
	for what, d := range damaged(data, 16411, 8) {
		got, _ := p.ReadLog(d)
		for _, r := range got {
			if !written[string(r)] {
				t.Errorf("%s: ReadLog returns a record never written (%d bytes)", what, len(r))
				break
			}
		}
	}
}

// sameBlocks writes the entries of each table upstream wrote without
// compression with the options it was written with (a database's: restart
// interval 16) and compares the blocks but the metaindex.
func sameBlocks(t *testing.T, p compat.Port) {
	dbs, err := adapt.Committed()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, db := range dbs {
		if db.Info.Compression != "none" {
			continue
		}
		o := compat.TableOptions{BlockSize: db.Info.EffectiveBlockSize, RestartInterval: 16, Snappy: db.Info.Compression == "snappy", BitsPerKey: db.Info.BitsPerKey}
		for _, ti := range db.Info.Tables {
			name := path.Join(db.Dir, ti.File)
			want, err := fs.ReadFile(db.FS, ti.File)
			if err != nil {
				t.Fatal(err)
			}
			entries, err := scanTable(want)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			got, err := p.WriteTable(entries, o)
			if err != nil {
				t.Fatalf("%s: WriteTable(%+v): %v", name, o, err)
			}
			wt, err := table.OpenBytes(name, want, int64(len(want)))
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			gt, err := table.OpenBytes("port.ldb", got, int64(len(got)))
			if err != nil {
				t.Fatalf("%s: the port's table: %v", name, err)
			}
			wm, gm := wt.MetaindexHandle().Offset, gt.MetaindexHandle().Offset
			if i := firstDiff(got[:gm], want[:wm]); i >= 0 {
				t.Errorf("%s: the port's data and filter blocks (%d bytes) differ from upstream's (%d bytes) at byte %d", name, gm, wm, i)
			}
			wi, gi := wt.IndexHandle(), gt.IndexHandle()
			if i := firstDiff(got[gi.Offset:gi.End()], want[wi.Offset:wi.End()]); i >= 0 {
				t.Errorf("%s: the port's index block (%d bytes) differs from upstream's (%d bytes) at byte %d", name, gi.Size, wi.Size, i)
			}
			n++
		}
	}
	if n == 0 {
		t.Fatal("no uncompressed table upstream wrote")
	}
}

// firstDiff returns the first offset at which a and b differ, or -1.
func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}
