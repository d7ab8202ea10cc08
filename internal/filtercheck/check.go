package filtercheck

import (
	"bytes"
	"fmt"
	"sync"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/internal/table"
)

// Match says whether a table's stored filter block is the one upstream
// writes for the table's keys.
type Match string

// The matches Compare reports.
const (
	MatchOK            Match = "ok"             // the stored block is what upstream writes
	MatchDiffers       Match = "mismatch"       // it is not
	MatchNoFilter      Match = "no-filter"      // the table has no filter block
	MatchUnknownPolicy Match = "unknown-policy" // the filter's policy is not a bloom filter of LevelDB's
)

// Legacy hash variants, for tables whose filter is named
// "leveldb.BuiltinBloomFilter" (LevelDB v1.4 to v1.17, which hashed tail
// bytes as plain char; v1.18 renamed the filter and hashes them unsigned,
// google/leveldb#243).
const (
	// LegacyUnsigned: written with the unsigned-char hash: LevelDB v1.17
	// or older where char is unsigned (such as ARM), or a port that kept
	// the old name with an unsigned hash (such as goleveldb).
	LegacyUnsigned = "unsigned"
	// LegacySigned: written with the signed-char hash: LevelDB v1.17 or
	// older where char is signed (such as x86).
	LegacySigned = "signed"
	// LegacyEither: both hashes give the stored block: no key has a tail
	// byte of 0x80 or more, the only bytes they hash differently.
	LegacyEither = "either"
	// LegacyNeither: neither hash gives the stored block.
	LegacyNeither = "neither"
)

// Comparison is the outcome of comparing a table's stored filter block
// with the one rebuilt from its keys.
type Comparison struct {
	Match Match
	// Policy is the filter policy name from the metaindex ("" without a
	// filter block).
	Policy string
	// Legacy is set for "leveldb.BuiltinBloomFilter" filters: which hash
	// wrote them (LegacyUnsigned, LegacySigned, LegacyEither,
	// LegacyNeither).
	Legacy string
	// Params are the bits/key and k the stored block implies.
	Params *Params
	// DataBlocks and Keys count the table's data blocks and entries.
	DataBlocks int
	Keys       int
	// Filters counts the filters in the stored block (0 when its layout
	// cannot be decoded, see LayoutError).
	Filters int
	// FilterBlock locates the stored filter block in the file.
	FilterBlockOffset uint64
	FilterBlockSize   int
	// LayoutError says why the stored block's layout could not be decoded.
	LayoutError string
	// Diff is the first difference from the rebuilt block, when Match is
	// MatchDiffers.
	Diff *Diff
	// Blocks holds the data blocks' handles and user keys, as ReadKeys
	// returns them, for measuring the filters further (MeasureFPR).
	Blocks []BlockKeys
}

// CompareTable reads t's data blocks, rebuilds its filter block with the policy
// its name and layout imply, and compares the result with the stored block.
// A mismatch is a Comparison, not an error; the error reports a table that
// cannot be read.
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

// Compare compares stored, the contents of the filter block of policy
// name stored at h, with the block upstream's TableBuilder writes for the
// data blocks blocks (as ReadKeys returns them) with the policy its name
// and layout imply: MatchOK, MatchDiffers, or MatchUnknownPolicy for
// a name other than LevelDB's bloom filters'. Each block is rebuilt once;
// a legacy block twice, once per hash, only when a key hashes differently
// under the two.
func Compare(blocks []BlockKeys, name string, h table.BlockHandle, stored []byte) *Comparison {
	r, ok := compare(blocks, name, h, stored)
	if !ok {
		panic("filtercheck: Compare of blocks holding hashes without their table where it needs the keys; see CompareHashes")
	}
	return r
}

// CompareHashes is Compare for blocks that may hold hashes without keys.
// Hashes are all the rebuild of a filter block of the policy named
// bloom.PolicyName needs, in the usual case; where more is needed
// (another policy, or a stored block implying a rebuilt one too large to
// build whole), the keys are read again from the table, block by block
// (BlockKeys.EachKey, for blocks KeyStore.ReadHashes read). Only for
// blocks of hashes without a table does it then compare nothing and
// return false.
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
			// Nothing constrains bits/key; every value rebuilds the
			// same (empty) filters.
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

// compareBufs is the memory Compare works in, kept between calls in
// compareBufsPool: one process checks table after table, and memory used
// again costs no allocation, no zeroing and no page faults. Nothing
// Compare returns aliases it.
type compareBufs struct {
	layout  Layout
	counts  []int // keys per filter
	params  paramsBufs
	rebuilt []rebuiltFilter
}

var compareBufsPool = sync.Pool{New: func() any { return new(compareBufs) }}

// HashesDiffer reports whether some key of blocks hashes differently with
// bloom.Hash and bloom.HashSignedTail: one whose 1 to 3 tail bytes (those
// after its last whole 4-byte word) include one of 0x80 or more, which a
// signed char sign-extends.
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

// FalseNegatives is what upstream's filter block reader answers for every
// key of a table: how many of them it rejects, though the table holds
// them. Table::InternalGet reports such a key missing without reading its
// data block.
type FalseNegatives struct {
	Keys     int // keys asked about
	Rejected int // keys the filter block says are not in their data block
	// FirstKey is the first rejected user key in table order, and
	// FirstBlock the handle of its data block (Table::InternalGet asks
	// the reader about the block's offset).
	FirstKey   []byte
	FirstBlock table.BlockHandle
}

// CountFalseNegatives asks a filter block reader over contents, with
// policy p, about every key of blocks at its data block's offset, as
// Table::InternalGet does for a key it looks up, and counts the keys it
// rejects. Only the policy's KeyMayMatch is used (a bloom filter's stores
// its probe count, so any bits/key reads it).
func CountFalseNegatives(p bloom.FilterPolicy, contents []byte, blocks []BlockKeys) FalseNegatives {
	fr := bloom.NewFilterBlockReader(p, contents)
	var fn FalseNegatives
	for i := range blocks {
		b := &blocks[i]
		b.EachKey(func(key []byte) {
			fn.Keys++
			if !fr.KeyMayMatch(b.Handle.Offset, key) {
				if fn.Rejected == 0 {
					// A copy when the keys are read again: key is
					// then valid only during the call.
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

// Diff is the first difference between a stored and a rebuilt filter
// block.
type Diff struct {
	// Offset is the first differing byte's offset in the filter block.
	Offset int
	// Stored and Rebuilt are the bytes at Offset, or -1 when that block
	// ends before Offset.
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

// FirstDiff returns the first difference between stored and rebuilt, or nil
// when they are equal.
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
