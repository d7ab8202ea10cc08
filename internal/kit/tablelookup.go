package kit

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/internal/base"
	"github.com/ldbcompat/ldbcompat/internal/cases"
	"github.com/ldbcompat/ldbcompat/internal/plural"
	"github.com/ldbcompat/ldbcompat/internal/table"
)

// A scan reads neither the filter nor the separators, so a table wrong in
// them scans right while Get misses keys: each entry's key is looked up as
// table/table.cc InternalGet does and judged as db/version_set.cc SaveValue.

// keyGet is one lookup's outcome: the entry InternalGet handed its
// callback, if any, and the call's status.
type keyGet struct {
	found      bool
	key, value []byte
	status     string
}

// refGets looks every key up in data as Table::InternalGet does (checksums
// verified, a bloom filter of bits, none for 0) with internal/table. Where
// upstream's behaviour is undefined it fails with cases.ErrCannotJudge:
// upstream must not be given such a table.
func refGets(data []byte, keys [][]byte, bits int) ([]keyGet, error) {
	t, err := table.OpenBytes("table", data, int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", cases.ErrCannotJudge, err)
	}
	f, p := lookupFilter(t, bits)
	out := make([]keyGet, len(keys))
	for i, k := range keys {
		r, err := t.Get(k, f, p)
		if err != nil {
			return nil, fmt.Errorf("%w: looking up key %d: %v", cases.ErrCannotJudge, i, err)
		}
		g := keyGet{found: r.Found, key: r.Key, value: r.Value}
		if r.Err != nil {
			if g.status = base.StatusOf(r.Err); g.status == "" || base.IsUndefined(r.Err) {
				return nil, fmt.Errorf("%w: looking up key %d: %v", cases.ErrCannotJudge, i, r.Err)
			}
		}
		out[i] = g
	}
	return out, nil
}

// lookupFilter returns the filter upstream consults in t with a bloom
// policy of bits (Table::ReadMeta reads only "filter."+its name), and the
// policy; nils for bits 0.
func lookupFilter(t *table.Table, bits int) (*table.FilterLookup, bloom.FilterPolicy) {
	if bits <= 0 {
		return nil, nil
	}
	p := bloom.NewPolicy(bits)
	return t.LookupFilter(p.Name()), p
}

// dbAnswer is what Get makes of a lookup of want: the value, or not found;
// a status fails the Get.
func dbAnswer(want []byte, g keyGet) (value []byte, found bool, status string) {
	if g.status != "" {
		return nil, false, g.status
	}
	if !g.found {
		return nil, false, ""
	}
	// SaveValue: an unparsable key is corruption; another user key or a
	// deletion is not found.
	n := len(g.key) - 8
	if n < 0 || g.key[n] > 1 {
		return nil, false, "Corruption: corrupted key for " + shortHex(want[:len(want)-8])
	}
	if !bytes.Equal(g.key[:n], want[:len(want)-8]) || g.key[n] == 0 {
		return nil, false, ""
	}
	return g.value, true, ""
}

// judgeLookups looks every entry of c up in the port's table as upstream's
// Get does (live only once internal/table shows it defined); it returns
// kindTableLayout when each finds its value, else the failure.
func (s tableSource) judgeLookups(c cases.TableCase, data []byte) (failureKind, string) {
	gets, err := refGets(data, c.Keys, c.BitsPerKey)
	who := "internal/table's Get (following upstream's Table::InternalGet, checksums verified)"
	if err == nil && s.live {
		gets, err = liveGets(data, c.Keys, c.BitsPerKey)
		who = "upstream's TableCache::Get (Table::InternalGet, paranoid_checks, verify_checksums)"
	}
	if err != nil {
		return kindTableBytes, fmt.Sprintf("upstream reads every entry in a scan, but whether its Get finds them was not judged: %v", err)
	}
	if len(gets) != len(c.Keys) {
		return kindTableBytes, fmt.Sprintf("%s answered %d lookups of %d", who, len(gets), len(c.Keys))
	}
	// The first lookup of each kind; the worst found is described.
	var count [3]int
	first, what := [3]int{-1, -1, -1}, [3]string{}
	const missing, wrong, failed = 0, 1, 2
	for i, g := range gets {
		v, found, status := dbAnswer(c.Keys[i], g)
		var k int
		var w string
		switch {
		case status != "":
			k, w = failed, fmt.Sprintf("fails with %q", status)
		case !found:
			k, w = missing, "does not find it"
		case !bytes.Equal(v, c.Values[i]):
			k, w = wrong, fmt.Sprintf("returns value %s, written as %s", shortHex(v), shortHex(c.Values[i]))
		default:
			continue
		}
		if count[k]++; first[k] < 0 {
			first[k], what[k] = i, w
		}
	}
	worst, k := -1, kindTableLayout
	for _, x := range []struct {
		i    int
		kind failureKind
	}{{missing, kindTableMissing}, {wrong, kindTableWrong}, {failed, kindTableRefused}} {
		if count[x.i] > 0 {
			worst, k = x.i, x.kind
			break
		}
	}
	if worst < 0 {
		return filterUnused(c, data)
	}
	i := first[worst]
	d := fmt.Sprintf("upstream reads every entry in a scan, but its lookups do not: %s, looking up each entry's key as a database's Get does at the entry's sequence number, by %s",
		lookupCounts(len(c.Keys), count[missing], count[wrong], count[failed]), who)
	d += fmt.Sprintf("; the first, entry %d, key %s: the lookup %s", i, shortHex(c.Keys[i]), what[worst])
	if why := lookupCause(data, c, i); why != "" {
		d += ": " + why
	}
	return k, d
}

// filterUnused returns kindNoFilter or kindFilterName when c's bloom policy
// would consult no filter in the port's table; else kindTableLayout.
func filterUnused(c cases.TableCase, data []byte) (failureKind, string) {
	if c.BitsPerKey <= 0 {
		return kindTableLayout, ""
	}
	t, err := table.OpenBytes("table", data, int64(len(data)))
	if err != nil {
		return kindTableLayout, ""
	}
	f, p := lookupFilter(t, c.BitsPerKey)
	if f.Use == table.FilterUsed {
		return kindTableLayout, ""
	}
	var names []string
	for _, m := range t.Metaindex() {
		if strings.HasPrefix(m.Name, table.FilterPrefix) {
			names = append(names, fmt.Sprintf("%q", m.Name))
		}
	}
	d := fmt.Sprintf("upstream finds every key, but consults no filter in the port's table: Table::ReadMeta looks for the metaindex entry %q: %s", table.FilterPrefix+p.Name(), f.Use)
	if f.Err != nil {
		d += fmt.Sprintf(" (%v)", f.Err)
	}
	if len(names) == 0 || f.Use != table.FilterNotFound {
		return kindNoFilter, d
	}
	return kindFilterName, d + "; the port's filter block is named " + strings.Join(names, ", ")
}

// lookupCounts says how many of n lookups miss, find a wrong value, fail.
func lookupCounts(n, missing, wrong, failed int) string {
	var parts []string
	if missing > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d keys not found (false negatives)", missing, n))
	}
	if wrong > 0 {
		parts = append(parts, fmt.Sprintf("%s of %d with a wrong value", plural.Count(wrong, "key"), n))
	}
	if failed > 0 {
		parts = append(parts, fmt.Sprintf("%s of %d failing", plural.Count(failed, "lookup"), n))
	}
	return strings.Join(parts, ", ")
}

// lookupCause says why the lookup of entry i's key goes wrong: a separator
// sending the seek past its block, or a filter rejecting its user key; ""
// when it cannot tell.
func lookupCause(data []byte, c cases.TableCase, i int) string {
	t, err := table.OpenBytes("table", data, int64(len(data)))
	if err != nil {
		return ""
	}
	key := c.Keys[i]
	block, last := -1, map[int][]byte{}
	n := 0
	err = t.Scan(func(e table.ScanEntry) error {
		if n == i {
			block = e.Block
		}
		last[e.Block] = append(last[e.Block][:0], e.Key...)
		n++
		return nil
	})
	if err != nil || block < 0 {
		return ""
	}
	index := t.Index()
	land := -1
	for j, e := range index {
		if compareIKey(e.Separator, key) >= 0 {
			land = j
			break
		}
	}
	sep := index[block].Separator
	short := fmt.Sprintf("data block %d's index separator %s is smaller than the key (the block's last key is %s): a separator must be at least its block's last key (InternalKeyComparator::FindShortestSeparator)",
		block, shortHex(sep), shortHex(last[block]))
	switch {
	case land < 0:
		return "the index seek finds no separator at or after the key and stops; " + short
	case land != block:
		return fmt.Sprintf("the index seek lands on data block %d (separator %s), not on data block %d, which holds the key; %s", land, shortHex(index[land].Separator), block, short)
	}
	f, p := lookupFilter(t, c.BitsPerKey)
	if f == nil || f.Use != table.FilterUsed || !index[block].HandleOK {
		return ""
	}
	user := key[:len(key)-8]
	off := index[block].Handle.Offset
	if bloom.NewFilterBlockReader(p, f.Contents).KeyMayMatch(off, user) {
		return ""
	}
	why := fmt.Sprintf("the filter block (metaindex entry %q) rejects the user key %s for data block %d (offset %d), so upstream never reads the block", table.FilterPrefix+p.Name(), shortHex(user), block, off)
	if bloom.NewFilterBlockReader(p, f.Contents).KeyMayMatch(off, key) {
		why += "; the port's filter matches the whole internal key: it was built over internal keys, where upstream's InternalFilterPolicy filters user keys"
	}
	return why
}

// compareIKey orders internal keys as InternalKeyComparator: user key
// ascending, then tag descending; keys without a tag compare bytewise.
func compareIKey(a, b []byte) int {
	if len(a) < 8 || len(b) < 8 {
		return bytes.Compare(a, b)
	}
	if c := bytes.Compare(a[:len(a)-8], b[:len(b)-8]); c != 0 {
		return c
	}
	ta, tb := binary.LittleEndian.Uint64(a[len(a)-8:]), binary.LittleEndian.Uint64(b[len(b)-8:])
	switch {
	case ta > tb:
		return -1
	case ta < tb:
		return 1
	}
	return 0
}
