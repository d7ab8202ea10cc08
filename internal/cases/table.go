package cases

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"sort"

	"github.com/ldbcompat/ldbcompat/internal/table"
)

// TableCase is a table to write: internal keys in increasing order, their
// values, and the options (a matrix of them: TableCases).
type TableCase struct {
	Name            string
	Keys, Values    [][]byte
	BlockSize       int
	RestartInterval int
	Snappy          bool
	BitsPerKey      int // 0: no filter policy
}

// In returns the case's fingerprint.
func (c TableCase) In() string {
	snappy := uint64(0)
	if c.Snappy {
		snappy = 1
	}
	return new(fingerprint).list(c.Keys).list(c.Values).u64(uint64(c.BlockSize)).u64(uint64(c.RestartInterval)).
		u64(snappy).u64(uint64(c.BitsPerKey)).String()
}

// DamagedTable is a copy of the table upstream writes for case Base,
// damaged as Damage says.
type DamagedTable struct {
	Name   string
	Base   string
	Damage Damage
}

// Damage is a way to damage a table: flip one bit of a block or the
// footer, or cut the file short.
type Damage struct {
	// Where is "data" (data block Block), "index", "metaindex", "filter",
	// "footer" or "truncate".
	Where string
	Block int
	// At is the byte flipped, from the block's start, or its end (trailer
	// included) if negative; for "truncate" the bytes cut off the end.
	At  int
	Bit uint
}

// In returns the fingerprint of the damaged table's inputs.
func (d DamagedTable) In(base TableCase) string {
	return new(fingerprint).bytes([]byte(base.In())).bytes([]byte(d.Damage.Where)).
		u64(uint64(d.Damage.Block)).u64(uint64(int64(d.Damage.At))).u64(uint64(d.Damage.Bit)).String()
}

// Apply returns a damaged copy of clean, the table upstream wrote for the
// base case.
func (d Damage) Apply(clean []byte) ([]byte, error) {
	out := append([]byte(nil), clean...)
	if d.Where == "truncate" {
		if d.At <= 0 || d.At > len(out) {
			return nil, fmt.Errorf("cannot cut %d bytes off a table of %d", d.At, len(out))
		}
		return out[:len(out)-d.At], nil
	}
	var start, end uint64
	if d.Where == "footer" {
		start, end = uint64(len(out)-table.FooterSize), uint64(len(out))
	} else {
		t, err := table.OpenBytes("clean", clean, int64(len(clean)))
		if err != nil {
			return nil, err
		}
		var h table.BlockHandle
		ok := true
		switch d.Where {
		case "data":
			ok = d.Block < len(t.Index())
			if ok {
				h = t.Index()[d.Block].Handle
			}
		case "index":
			h = t.IndexHandle()
		case "metaindex":
			h = t.MetaindexHandle()
		case "filter":
			h, ok = t.FilterHandle()
		default:
			ok = false
		}
		if !ok {
			return nil, fmt.Errorf("the table has no %s block %d to damage", d.Where, d.Block)
		}
		start, end = h.Offset, h.End()
	}
	p := int64(start) + int64(d.At)
	if d.At < 0 {
		p = int64(end) + int64(d.At)
	}
	if p < int64(start) || p >= int64(end) {
		return nil, fmt.Errorf("byte %d lies outside the %s", d.At, d.Where)
	}
	out[p] ^= 1 << (d.Bit % 8)
	return out, nil
}

// ikey makes an internal key of a value entry.
func ikey(user []byte, seq uint64) []byte {
	return binary.LittleEndian.AppendUint64(append([]byte(nil), user...), seq<<8|1)
}

// sortedEntries sorts user keys, drops duplicates and gives each an
// internal key with sequence numbers counting down from 1000000.
func sortedEntries(users [][]byte, value func(i int) []byte) (keys, values [][]byte) {
	sort.Slice(users, func(i, j int) bool { return bytes.Compare(users[i], users[j]) < 0 })
	for i, u := range users {
		if i > 0 && bytes.Equal(u, users[i-1]) {
			continue
		}
		keys = append(keys, ikey(u, uint64(1000000-len(keys))))
		values = append(values, value(len(values)))
	}
	return keys, values
}

// tableName names a case by its options.
func tableName(what string, bs, ri int, snappy bool, bits int) string {
	comp := "none"
	if snappy {
		comp = "snappy"
	}
	n := fmt.Sprintf("table/bs%d-r%d-%s-b%d", bs, ri, comp, bits)
	if what != "" {
		n += "-" + what
	}
	return n
}

// TableCases returns the table cases, the same on every call.
func TableCases() []TableCase {
	var out []TableCase
	add := func(what string, bs, ri int, snappy bool, bits int, keys, values [][]byte) {
		out = append(out, TableCase{Name: tableName(what, bs, ri, snappy, bits), Keys: keys, Values: values,
			BlockSize: bs, RestartInterval: ri, Snappy: snappy, BitsPerKey: bits})
	}
	// Without compression: 400 entries whose keys share prefixes, so that
	// separators shorten and restart points matter.
	g := NewGen(71)
	var users [][]byte
	for i := 0; i < 400; i++ {
		users = append(users, append([]byte(fmt.Sprintf("key%05d/", g.R.IntN(100000))), g.Bytes(g.R.IntN(12))...))
	}
	keys, values := sortedEntries(users, func(i int) []byte { return g.Bytes(g.R.IntN(40)) })
	for _, bs := range []int{1024, 4096, 16384, 65536} {
		for _, ri := range []int{1, 2, 16, 32} {
			for _, bits := range []int{0, 10} {
				add("", bs, ri, false, bits, keys, values)
			}
		}
	}
	// With snappy: small tables of compressible values, stored whole in
	// the vectors since encoders differ.
	g = NewGen(72)
	users = nil
	for i := 0; i < 60; i++ {
		users = append(users, []byte(fmt.Sprintf("user/%06d", g.R.IntN(1000000))))
	}
	sk, sv := sortedEntries(users, func(i int) []byte {
		return bytes.Repeat([]byte{byte('a' + i%26)}, 20+i%30)
	})
	for _, bs := range []int{1024, 4096} {
		for _, ri := range []int{1, 2, 16, 32} {
			add("", bs, ri, true, 10, sk, sv)
		}
	}
	add("", 1024, 16, true, 0, sk, sv)
	// User keys of 0 to 255 bytes, each byte value at every position
	// somewhere, and keys of 1, 16 and 64 KiB; empty values.
	g = NewGen(73)
	users = [][]byte{{}}
	for n := 1; n < 256; n++ {
		k := make([]byte, n)
		for j := range k {
			k[j] = byte(n + j)
		}
		users = append(users, k)
	}
	for _, n := range []int{1 << 10, 16 << 10, 64 << 10} {
		users = append(users, g.Bytes(n))
	}
	users = append(users, bytes.Repeat([]byte{0xff}, 40), []byte{0xff, 0xff, 0x00}, []byte{0x00, 0xff})
	// 16376 zero bytes after the empty key: an entry sharing nothing
	// whose 16384-byte internal key has the varint 80 80 01, so that its
	// first three bytes are 00 80 80 (DecodeEntry's slow path).
	users = append(users, make([]byte, 16376))
	bk, bv := sortedEntries(users, func(int) []byte { return nil })
	add("keys-empty-values", 1024, 16, false, 10, bk, bv)
	add("keys-empty-values", 4096, 2, false, 0, bk, bv)
	// The same user key at several sequence numbers (newest first), and
	// a value larger than a block.
	var mk, mv [][]byte
	for i, u := range []string{"a", "apple", "apple", "apple", "b", "banana", "c"} {
		mk = append(mk, ikey([]byte(u), uint64(100-i)))
		mv = append(mv, []byte(u))
	}
	mv[4] = g.Bytes(100 << 10)
	add("seqs-big-value", 1024, 16, false, 10, mk, mv)
	add("seqs", 1024, 1, true, 0, mk[:4], mv[:4])
	// Block size 0: every entry a block of its own.
	add("seqs", 0, 16, false, 0, mk[:4], mv[:4])
	add("empty", 4096, 16, false, 10, nil, nil)
	// One-byte user keys two apart, a block each: the separator raises
	// the start key's last byte and would be no shorter, so upstream
	// keeps the start key (InternalKeyComparator::FindShortestSeparator).
	var ok, ov [][]byte
	for c := byte('a'); c <= 'y'; c += 2 {
		ok = append(ok, ikey([]byte{c}, uint64(c)))
		ov = append(ov, g.Bytes(700))
	}
	add("short-keys", 1024, 16, false, 0, ok, ov)
	sk, sv = snappyMix()
	add("snappy-mix", 16384, 1, true, 0, sk, sv)
	add("snappy-mix", 4096, 16, true, 0, sk, sv)
	tc := tailCase()
	add("snappy-tails", 0, 16, true, 0, tc.Keys, tc.Values)
	return out
}

// snappyMix returns entries whose values make upstream's snappy emit every
// element: literals of 1 to 200 bytes, runs of a period of 1 to 9 (copies
// overlapping their source) and phrases repeated (1- and 2-byte offsets).
func snappyMix() (keys, values [][]byte) {
	g := NewGen(74)
	var phrases [][]byte
	for i := 0; i < 12; i++ {
		phrases = append(phrases, g.Bytes(20+6*i))
	}
	var users [][]byte
	for i := 0; i < 150; i++ {
		users = append(users, []byte(fmt.Sprintf("mix/%04d", i*7)))
	}
	return sortedEntries(users, func(i int) []byte {
		v := g.Bytes(1 + i*37%200)
		period := g.Bytes(1 + i%9)
		for n := 8 + i*13%90; n > 0; n-- {
			v = append(v, period[n%len(period)])
		}
		return append(v, phrases[i*5%len(phrases)]...)
	})
}

// tailCase is a table of one entry per block whose value is S, the block's
// restart array and S again: upstream's snappy ends each block with a copy
// of S and the restart array, so that a stream ends with a 2-byte offset
// copy, or (S of 64 bytes) with a 64-byte copy and a 1-byte offset one.
func tailCase() TableCase {
	g := NewGen(75)
	restarts := []byte{0, 0, 0, 0, 1, 0, 0, 0} // one restart at 0
	var keys, values [][]byte
	for i, n := range []int{35, 64, 30} {
		// A sequence number with no zero byte, so that the tag holds no
		// zeros for the restart array to match.
		keys = append(keys, binary.LittleEndian.AppendUint64([]byte(fmt.Sprintf("tail/%c", 'a'+i)), (0x013a5b7c9d1e2f+uint64(i))<<8|1))
		s := g.Bytes(n)
		values = append(values, append(append(append([]byte(nil), s...), restarts...), s...))
	}
	return TableCase{Keys: keys, Values: values}
}

// DamagedTables returns the damaged tables: a bit flipped in each kind of
// block and the footer, and files cut short, with and without compression.
func DamagedTables() []DamagedTable {
	var out []DamagedTable
	add := func(base string, d Damage) {
		name := fmt.Sprintf("%s/damaged-%s%d-at%d-bit%d", base, d.Where, d.Block, d.At, d.Bit)
		if d.Where == "truncate" {
			name = fmt.Sprintf("%s/truncated-%d", base, d.At)
		}
		out = append(out, DamagedTable{Name: name, Base: base, Damage: d})
	}
	for _, base := range []string{tableName("", 1024, 16, false, 10), tableName("", 1024, 16, true, 10)} {
		add(base, Damage{Where: "data", Block: 0, At: 0, Bit: 0})
		add(base, Damage{Where: "data", Block: 1, At: 7, Bit: 3})
		add(base, Damage{Where: "data", Block: 1, At: -5, Bit: 1}) // the type byte
		add(base, Damage{Where: "data", Block: 2, At: -1, Bit: 7}) // the checksum
		add(base, Damage{Where: "index", At: 3, Bit: 2})
		add(base, Damage{Where: "index", At: -3, Bit: 0})
		add(base, Damage{Where: "metaindex", At: 1, Bit: 0})
		add(base, Damage{Where: "filter", At: 0, Bit: 5})
		add(base, Damage{Where: "filter", At: -5, Bit: 0})
		add(base, Damage{Where: "footer", At: 0, Bit: 0})
		add(base, Damage{Where: "footer", At: 45, Bit: 4}) // the magic number
		add(base, Damage{Where: "truncate", At: 1})
		add(base, Damage{Where: "truncate", At: 48})
	}
	base := tableName("", 4096, 16, false, 0)
	add(base, Damage{Where: "data", Block: 3, At: 100, Bit: 6})
	add(base, Damage{Where: "metaindex", At: -2, Bit: 2})
	add(base, Damage{Where: "truncate", At: 2000})
	return out
}

// TableCaseNamed returns the table case named name.
func TableCaseNamed(name string) (TableCase, bool) {
	return first(TableCases(), name, func(c TableCase) string { return c.Name })
}

// DamagedTableNamed returns the damaged table named name.
func DamagedTableNamed(name string) (DamagedTable, bool) {
	return first(DamagedTables(), name, func(d DamagedTable) string { return d.Name })
}
