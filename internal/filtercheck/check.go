package filtercheck

import (
	"bytes"
	"fmt"
	"sync"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/internal/table"
)

// Match says whether a stored filter block is the one upstream writes.
type Match string

// The matches Compare reports.
const (
	MatchOK            Match = "ok"             // the stored block is what upstream writes
	MatchDiffers       Match = "mismatch"       // it is not
	MatchNoFilter      Match = "no-filter"      // the table has no filter block
	MatchUnknownPolicy Match = "unknown-policy" // the filter's policy is not a bloom filter of LevelDB's
)

// Legacy hash variants for "leveldb.BuiltinBloomFilter" (v1.4 to v1.17
// hashed tail bytes as plain char; v1.18 renamed it, google/leveldb#243).
const (
	// LegacyUnsigned: unsigned char (ARM), or a port such as goleveldb.
	LegacyUnsigned = "unsigned"
	// LegacySigned: signed char (x86).
	LegacySigned = "signed"
	// LegacyEither: both give it; no key has a tail byte >= 0x80.
	LegacyEither = "either"
	// LegacyNeither: neither hash gives the stored block.
	LegacyNeither = "neither"
)

// Comparison compares a table's stored filter block with the rebuilt one.
type Comparison struct {
	Match Match
	// Policy is the metaindex's policy name ("" without a filter block).
	Policy string
	// Legacy says which hash wrote a "leveldb.BuiltinBloomFilter" block.
	Legacy string
	// Params are the bits/key and k the stored block implies.
	Params *Params
	// DataBlocks and Keys count the table's data blocks and entries.
	DataBlocks int
	Keys       int
	// Filters counts the stored filters (0 if LayoutError).
	Filters int
	// FilterBlock locates the stored filter block in the file.
	FilterBlockOffset uint64
	FilterBlockSize   int
	// LayoutError says why the stored block's layout could not be decoded.
	LayoutError string
	// Diff is the first difference, when MatchDiffers.
	Diff *Diff
	// Blocks is what ReadKeys returned, for MeasureFPR.
	Blocks []BlockKeys
}

// CompareTable rebuilds t's filter block with the policy its name and
// layout imply and compares it with the stored one; the error is only for
// a table that cannot be read.
func CompareTable(t *table.Table) (*Comparison, error) {
	blocks, err := ReadKeys(t)
	if err != nil {
		return nil, err
	}
	name, stored, ok := t.FilterBlock()
	if !ok {
		r := &Comparison{Match: MatchNoFilter, Blocks: blocks}
		r.count()
		return r, nil
	}
	h, _ := t.FilterHandle()
	return Compare(blocks, name, h, stored), nil
}

// count sets r.DataBlocks and r.Keys from r.Blocks.
func (r *Comparison) count() {
	r.DataBlocks = len(r.Blocks)
	for i := range r.Blocks {
		r.Keys += r.Blocks[i].Len()
	}
}

// Compare compares stored (policy name, at h) with the block TableBuilder
// writes for blocks: MatchOK, MatchDiffers, or MatchUnknownPolicy. A
// legacy block is rebuilt twice only when some key hashes differently.
func Compare(blocks []BlockKeys, name string, h table.BlockHandle, stored []byte) *Comparison {
	r, ok := compare(blocks, name, h, stored)
	if !ok {
		panic("filtercheck: Compare of blocks holding hashes without their table where it needs the keys; see CompareHashes")
	}
	return r
}

// CompareHashes is Compare for blocks that may hold only hashes; where
// keys are needed they are read again (BlockKeys.EachKey), and only for
// hashes without a table does it compare nothing and return false.
func CompareHashes(blocks []BlockKeys, name string, h table.BlockHandle, stored []byte) (*Comparison, bool) {
	return compare(blocks, name, h, stored)
}

// keyless reports whether some block of blocks has hashes but no keys.
func keyless(blocks []BlockKeys) bool {
	for i := range blocks {
		if !blocks[i].hasKeys() {
			return true
		}
	}
	return false
}

// compare is CompareHashes.
func compare(blocks []BlockKeys, name string, h table.BlockHandle, stored []byte) (*Comparison, bool) {
	hashesOnly := keyless(blocks)
	if hashesOnly && name != bloom.PolicyName {
		return nil, false
	}
	r := &Comparison{Blocks: blocks}
	r.count()
	r.Policy, r.FilterBlockOffset, r.FilterBlockSize = name, h.Offset, len(stored)

	bufs := compareBufsPool.Get().(*compareBufs)
	defer compareBufsPool.Put(bufs)
	params := Params{BitsPerKey: 10}
	l := &bufs.layout
	if err := parseLayout(l, stored); err != nil {
		r.LayoutError = err.Error()
	} else {
		r.Filters = len(l.Filters)
		bufs.counts = keysPerFilter(bufs.counts, blocks, l.BaseLg, len(l.Filters))
		params = inferParams(stored, l, bufs.counts, &bufs.params)
		if !params.Known {
			// Nothing constrains bits/key: all rebuild the same empty filters.
			params.BitsPerKey = 10
		}
	}
	bpk := params.BitsPerKey
	switch name {
	case bloom.PolicyName:
		r.Params = &params
		var ok bool
		if r.Diff, ok = rebuildDiff(stored, blocks, bloom.NewPolicy(bpk), bpk, false, bufs); !ok {
			return nil, false
		}
	case bloom.LegacyPolicyName:
		r.Params = &params
		du, _ := rebuildDiff(stored, blocks, bloom.NewLegacyPolicy(bpk, false), bpk, false, bufs)
		ds := du // the same block, when no key tells the hashes apart
		if HashesDiffer(blocks) {
			ds, _ = rebuildDiff(stored, blocks, bloom.NewLegacyPolicy(bpk, true), bpk, true, bufs)
		}
		switch {
		case du == nil && ds == nil:
			r.Legacy = LegacyEither
		case du == nil:
			r.Legacy = LegacyUnsigned
		case ds == nil:
			r.Legacy = LegacySigned
		default:
			r.Legacy = LegacyNeither
			r.Diff = du
			if ds.Offset > du.Offset {
				r.Diff = ds
			}
		}
	default:
		r.Match = MatchUnknownPolicy
		return r, true
	}
	r.Match = MatchOK
	if r.Diff != nil {
		r.Match = MatchDiffers
	}
	return r, true
}

// compareBufs is Compare's pooled memory; nothing it returns aliases it.
type compareBufs struct {
	layout  Layout
	counts  []int // keys per filter
	params  paramsBufs
	rebuilt []rebuiltFilter
}

var compareBufsPool = sync.Pool{New: func() any { return new(compareBufs) }}

// HashesDiffer reports whether some key hashes differently with bloom.Hash
// and HashSignedTail: a tail byte >= 0x80, which signed char extends.
func HashesDiffer(blocks []BlockKeys) bool {
	differ := false
	for i := range blocks {
		blocks[i].EachKey(func(k []byte) {
			for _, c := range k[len(k)&^3:] {
				differ = differ || c >= 0x80
			}
		})
		if differ {
			return true
		}
	}
	return false
}

// FalseNegatives counts keys the filter rejects, which InternalGet misses.
type FalseNegatives struct {
	Keys     int // keys asked about
	Rejected int // keys the filter block says are not in their data block
	// FirstKey is the first rejected key, FirstBlock its block's handle.
	FirstKey   []byte
	FirstBlock table.BlockHandle
}

// CountFalseNegatives asks a reader over contents with p about each key at
// its block's offset, as Table::InternalGet does, and counts rejections.
// Only KeyMayMatch is used (a bloom filter stores k, so any bits/key reads).
func CountFalseNegatives(p bloom.FilterPolicy, contents []byte, blocks []BlockKeys) FalseNegatives {
	fr := bloom.NewFilterBlockReader(p, contents)
	var fn FalseNegatives
	for i := range blocks {
		b := &blocks[i]
		b.EachKey(func(key []byte) {
			fn.Keys++
			if !fr.KeyMayMatch(b.Handle.Offset, key) {
				if fn.Rejected == 0 {
					// Copy: a key read again is valid only during the call.
					fn.FirstKey, fn.FirstBlock = key, b.Handle
					if b.Keys == nil {
						fn.FirstKey = bytes.Clone(key)
					}
				}
				fn.Rejected++
			}
		})
	}
	return fn
}

// Diff is the first difference between a stored and a rebuilt block.
type Diff struct {
	// Offset is the first differing byte's offset.
	Offset int
	// Stored and Rebuilt are the bytes there, -1 past a block's end.
	Stored  int
	Rebuilt int
	// StoredLen and RebuiltLen are the blocks' lengths.
	StoredLen  int
	RebuiltLen int
}

// String describes d, such as "byte 17: stored 0x3f, rebuilt 0x7f".
func (d *Diff) String() string {
	b := func(v int) string {
		if v < 0 {
			return "end of block"
		}
		return fmt.Sprintf("0x%02x", v)
	}
	s := fmt.Sprintf("byte %d: stored %s, rebuilt %s", d.Offset, b(d.Stored), b(d.Rebuilt))
	if d.StoredLen != d.RebuiltLen {
		s += fmt.Sprintf(" (stored %d bytes, rebuilt %d)", d.StoredLen, d.RebuiltLen)
	}
	return s
}

// FirstDiff returns the first difference, or nil when equal.
func FirstDiff(stored, rebuilt []byte) *Diff {
	n := min(len(stored), len(rebuilt))
	i := 0
	for i < n && stored[i] == rebuilt[i] {
		i++
	}
	if i == len(stored) && i == len(rebuilt) {
		return nil
	}
	d := &Diff{Offset: i, Stored: -1, Rebuilt: -1, StoredLen: len(stored), RebuiltLen: len(rebuilt)}
	if i < len(stored) {
		d.Stored = int(stored[i])
	}
	if i < len(rebuilt) {
		d.Rebuilt = int(rebuilt[i])
	}
	return d
}
