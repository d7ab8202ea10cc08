//go:build leveldb

package table_test

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/cgo/upstream"
	"github.com/ldbcompat/ldbcompat/internal/table"
)

// entryPos locates an entry of an uncompressed block: where it starts,
// where its three lengths, its key's stored bytes and its value start, and
// its whole key.
type entryPos struct {
	start, nonSharedAt, valueLenAt, keyAt, valueAt int
	shared                                         uint64
	key                                            []byte
}

// blockEntries decodes the entries of block contents c from its start, as
// BlockBuilder lays them out (doc.go), with encoding/binary's varints.
func blockEntries(t *testing.T, c []byte) []entryPos {
	t.Helper()
	restarts := len(c) - 4 - 4*int(binary.LittleEndian.Uint32(c[len(c)-4:]))
	var out []entryPos
	var key []byte
	for off := 0; off < restarts; {
		e := entryPos{start: off}
		var lens [3]uint64
		at := off
		for j := range lens {
			v, n := binary.Uvarint(c[at:])
			if n <= 0 {
				t.Fatalf("entry at byte %d: bad varint", off)
			}
			lens[j], at = v, at+n
			if j == 0 {
				e.nonSharedAt = at
			} else if j == 1 {
				e.valueLenAt = at
			}
		}
		e.shared, e.keyAt, e.valueAt = lens[0], at, at+int(lens[1])
		key = append(key[:lens[0]], c[at:e.valueAt]...)
		e.key = bytes.Clone(key)
		out = append(out, e)
		off = e.valueAt + int(lens[2])
	}
	return out
}

// upstreamWant is what upstream reports for a damaged table in one mode.
type upstreamWant struct {
	open, scan string
	all        bool // every entry of the intact table scanned
	// missing: some key of the table is silently not found by Get
	// (NotFound, no error); otherwise each is found or fails.
	missing bool
}

// TestUpstreamDefaults damages tables upstream wrote in one place each and
// reads them with paranoid checks and with LevelDB's default options, ours
// and upstream's ways (diffTable), and requires of upstream what each
// damage does, and of ChecksumFailures in the defaults mode the block and
// the field the flipped bit is in.
func TestUpstreamDefaults(t *testing.T) {
	if _, minor := upstream.Version(); minor <= 17 {
		t.Skipf("LevelDB %s reads the index, metaindex and filter blocks unchecked even with paranoid_checks", upstream.Release())
	}
	fixtures := map[string]fixtureTable{}
	for _, f := range loadFixtures(t) {
		fixtures[f.name()] = f
	}
	none, snappy := fixtures["b10-bs4096-none/000007.ldb"], fixtures["b10-bs4096-snappy/000007.ldb"]
	if none.data == nil || snappy.data == nil {
		t.Fatal("fixtures b10-bs4096-none/000007.ldb and b10-bs4096-snappy/000007.ldb missing")
	}
	const mismatch = "Corruption: block checksum mismatch"
	intact := upstreamWant{all: true}
	// at is where a case damages the table, from the intact table.
	type at struct {
		tb      *table.Table
		data    []entryPos // data block 0's entries
		d0      table.BlockHandle
		filter  table.BlockHandle
		meta    []entryPos
		index   []entryPos
		restart int // file offset of data block 0's restart array
	}
	cases := []struct {
		name               string
		base               fixtureTable
		edit               func(f []byte, a at)
		paranoid, defaults upstreamWant
		what               string
		field              table.FlipField
		entry              int // the entry the flip hits, or -1
		restart            int
		noFlip             bool // no single bit explains the damage
	}{
		{name: "value", base: none, edit: func(f []byte, a at) { f[a.data[0].valueAt] ^= 0x10 },
			paranoid: upstreamWant{scan: mismatch}, defaults: intact,
			what: "data block 0", field: table.FlipValue, entry: 0},
		{name: "key", base: none, edit: func(f []byte, a at) { f[a.data[2].keyAt] ^= 0x01 },
			paranoid: upstreamWant{scan: mismatch}, defaults: intact,
			what: "data block 0", field: table.FlipKey, entry: 2},
		{name: "shared length", base: none, edit: func(f []byte, a at) { f[a.data[1].start] ^= 0x01 },
			paranoid: upstreamWant{scan: mismatch}, defaults: intact,
			what: "data block 0", field: table.FlipShared, entry: 1},
		{name: "value length", base: none, edit: func(f []byte, a at) { f[a.data[3].valueLenAt] ^= 0x40 },
			paranoid: upstreamWant{scan: mismatch}, defaults: upstreamWant{scan: "Corruption: bad entry in block"},
			what: "data block 0", field: table.FlipValueLen, entry: 3},
		{name: "restart array", base: none, edit: func(f []byte, a at) { f[a.restart+4] ^= 0x02 },
			paranoid: upstreamWant{scan: mismatch}, defaults: intact,
			what: "data block 0", field: table.FlipRestart, entry: -1, restart: 1},
		{name: "stored checksum", base: none, edit: func(f []byte, a at) { f[a.d0.Offset+a.d0.Size+2] ^= 0x80 },
			paranoid: upstreamWant{scan: mismatch}, defaults: intact,
			what: "data block 0", field: table.FlipChecksum, entry: -1},
		{name: "type byte", base: none, edit: func(f []byte, a at) { f[a.d0.Offset+a.d0.Size] ^= 0x02 },
			paranoid: upstreamWant{scan: mismatch}, defaults: upstreamWant{scan: "Corruption: bad block type"},
			what: "data block 0", field: table.FlipType, entry: -1},
		{name: "snappy", base: snappy, edit: func(f []byte, a at) { f[a.d0.Offset+a.d0.Size/2] ^= 0x04 },
			paranoid: upstreamWant{scan: mismatch}, defaults: upstreamWant{all: true},
			what: "data block 0", field: table.FlipCompressed, entry: -1},
		{name: "index block", base: none, edit: func(f []byte, a at) { f[a.index[1].valueAt] ^= 0x01 },
			paranoid: upstreamWant{open: mismatch}, defaults: upstreamWant{},
			what: "index block", field: table.FlipValue, entry: 1},
		{name: "metaindex", base: none, edit: func(f []byte, a at) { f[a.meta[0].keyAt+3] ^= 0x20 },
			paranoid: intact, defaults: intact,
			what: "metaindex block", field: table.FlipKey, entry: 0},
		{name: "filter block", base: none, edit: func(f []byte, a at) { f[a.filter.Offset+20] ^= 0xff },
			paranoid: intact, defaults: upstreamWant{all: true, missing: true},
			what: "filter block", noFlip: true},
		{name: "filter bit", base: none, edit: func(f []byte, a at) { f[a.filter.Offset+20] ^= 0x08 },
			paranoid: intact, defaults: intact,
			what: "filter block", field: table.FlipUnknown, entry: -1},
		{name: "filter zeroed", base: none, edit: func(f []byte, a at) {
			clear(f[a.filter.Offset+10 : a.filter.Offset+210])
		},
			paranoid: intact, defaults: upstreamWant{all: true, missing: true},
			what: "filter block", noFlip: true},
	}
	dir := t.TempDir()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.name == "type byte" && strings.HasPrefix(upstream.Release(), "main") {
				t.Skipf("LevelDB %s knows compression type 2 (zstd), which 1.23, whose reading this package follows, refuses", upstream.Release())
			}
			tb, err := table.Open(c.base.name(), bytes.NewReader(c.base.data), int64(len(c.base.data)))
			if err != nil {
				t.Fatal(err)
			}
			var keys [][]byte
			var all []upstream.TableEntry
			err = tb.Scan(func(e table.ScanEntry) error {
				keys = append(keys, bytes.Clone(e.Key[:len(e.Key)-8]))
				all = append(all, upstream.TableEntry{Key: bytes.Clone(e.Key)})
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			a := at{tb: tb, d0: tb.Index()[0].Handle}
			a.filter, _ = tb.FilterHandle()
			block := func(h table.BlockHandle) []entryPos {
				es := blockEntries(t, c.base.data[h.Offset:h.Offset+h.Size])
				for i := range es {
					for _, p := range []*int{&es[i].start, &es[i].nonSharedAt, &es[i].valueLenAt, &es[i].keyAt, &es[i].valueAt} {
						*p += int(h.Offset)
					}
				}
				return es
			}
			if c.base.data[a.d0.Offset+a.d0.Size] == table.NoCompression {
				a.data = block(a.d0)
				c0 := c.base.data[a.d0.Offset : a.d0.Offset+a.d0.Size]
				a.restart = int(a.d0.Offset) + len(c0) - 4 - 4*int(binary.LittleEndian.Uint32(c0[len(c0)-4:]))
			}
			a.meta, a.index = block(tb.MetaindexHandle()), block(tb.IndexHandle())
			file := bytes.Clone(c.base.data)
			c.edit(file, a)
			in := tableInput{file: file, size: uint64(len(file)), policy: bloom.PolicyName, keys: keys}
			diffTable(t, dir, in)

			var lookups [][]byte
			for _, k := range keys {
				lookups = append(lookups, lookupKey(k))
			}
			for _, defaults := range []bool{false, true} {
				want := c.paranoid
				if defaults {
					want = c.defaults
				}
				up, err := upstream.ReadTable(dir, 5, in.size, upstream.TableOptions{PolicyName: bloom.PolicyName, BitsPerKey: 10, Lookups: lookups, Defaults: defaults})
				if err != nil {
					t.Fatal(err)
				}
				missing := 0 // not found, and no error said why
				for _, g := range up.Gets {
					if !g.Found && g.Status == "" {
						missing++
					}
				}
				if want.open != "" {
					if up.OpenStatus != want.open {
						t.Errorf("defaults %v: upstream's open status %q; want %q", defaults, up.OpenStatus, want.open)
					}
					continue
				}
				if up.OpenStatus != "" || up.ScanStatus != want.scan || (len(up.Entries) == len(all)) != want.all || (missing > 0) != want.missing {
					t.Errorf("defaults %v: upstream: open %q, scan %q, %d entries of %d, %d of %d keys missing; want scan %q, all %v, missing %v",
						defaults, up.OpenStatus, up.ScanStatus, len(up.Entries), len(all), missing, len(keys), want.scan, want.all, want.missing)
				}
			}

			// Ours, in the defaults mode: the damaged block, listed once
			// however often it is read.
			d, err := table.OpenBytesWith("damaged", file, int64(len(file)), table.Options{SkipChecksums: true})
			if err != nil {
				t.Fatal(err)
			}
			for range 2 {
				_ = d.Scan(func(table.ScanEntry) error { return nil })
				f := d.LookupFilter(bloom.PolicyName)
				for _, k := range lookups {
					if _, err := d.Get(k, f, upstream.GoBloomPolicy(10)); err != nil {
						t.Fatal(err)
					}
				}
			}
			var got *table.ChecksumFailure
			for _, f := range d.ChecksumFailures() {
				if f.What == c.what {
					if got != nil {
						t.Fatalf("%s listed twice: %+v", c.what, d.ChecksumFailures())
					}
					got = &f
				}
			}
			if got == nil {
				t.Fatalf("ChecksumFailures %+v; want %s", d.ChecksumFailures(), c.what)
			}
			if c.noFlip {
				if got.Flip != nil {
					t.Errorf("%s: flip %+v; want none", c.what, *got.Flip)
				}
				return
			}
			if got.Flip == nil || got.Site == nil {
				t.Fatalf("%s: %+v; want a flipped bit", c.what, got)
			}
			s := got.Site
			wantRestart := -1
			if c.field == table.FlipRestart {
				wantRestart = c.restart
			}
			if s.Field != c.field || s.Entry != c.entry || s.Restart != wantRestart {
				t.Errorf("%s: site %+v (%s); want field %s, entry %d, restart %d", c.what, s, s.Field, c.field, c.entry, c.restart)
			}
			if c.entry >= 0 {
				var es []entryPos
				switch c.what {
				case "data block 0":
					es = a.data
				case "index block":
					es = a.index
				default:
					es = a.meta
				}
				if !bytes.Equal(s.Key, es[c.entry].key) {
					t.Errorf("%s: entry %d's key %q; want %q", c.what, c.entry, s.Key, es[c.entry].key)
				}
			}
			if file[s.Offset] == c.base.data[s.Offset] {
				t.Errorf("%s: site at offset %d, where the file is intact", c.what, s.Offset)
			}
		})
	}
}
