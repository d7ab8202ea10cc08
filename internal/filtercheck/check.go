package filtercheck

import (
	"fmt"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/internal/table"
)

// Status is the outcome of checking one table.
type Status string

// The statuses Check reports.
const (
	StatusOK            Status = "ok"             // the stored block is what upstream writes
	StatusMismatch      Status = "mismatch"       // it is not
	StatusNoFilter      Status = "no-filter"      // the table has no filter block
	StatusUnknownPolicy Status = "unknown-policy" // the filter's policy is not a bloom filter of LevelDB's
)

// Legacy hash variants, for tables whose filter is named
// "leveldb.BuiltinBloomFilter" (LevelDB before 1.16).
const (
	LegacyUnsigned = "unsigned" // written with the unsigned-char hash (ARM)
	LegacySigned   = "signed"   // written with the signed-char hash (x86)
	LegacyEither   = "either"   // both hashes give the stored block: no key tells them apart
	LegacyNeither  = "neither"  // neither hash gives the stored block
)

// Result is the outcome of checking one table's filter block.
type Result struct {
	Status Status
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
	// Diff is the first difference from the rebuilt block, when the status
	// is StatusMismatch.
	Diff *Diff
	// Blocks holds the data blocks' handles and user keys, as ReadKeys
	// returns them, for measuring the filters further (MeasureFPR).
	Blocks []Block
}

// Check reads t's data blocks, rebuilds its filter block with the policy
// its name and layout imply, and compares the result with the stored block.
// A mismatch is a Result, not an error; the error reports a table that
// cannot be read.
func Check(t *table.Table) (*Result, error) {
	blocks, err := ReadKeys(t)
	if err != nil {
		return nil, err
	}
	r := &Result{DataBlocks: len(blocks), Blocks: blocks}
	for _, b := range blocks {
		r.Keys += len(b.Keys)
	}
	name, stored, ok := t.FilterBlock()
	if !ok {
		r.Status = StatusNoFilter
		return r, nil
	}
	h, _ := t.FilterHandle()
	r.Policy, r.FilterBlockOffset, r.FilterBlockSize = name, h.Offset, len(stored)

	params := Params{BitsPerKey: 10}
	if l, err := ParseLayout(stored); err != nil {
		r.LayoutError = err.Error()
	} else {
		r.Filters = len(l.Filters)
		params = InferParams(stored, l, KeysPerFilter(blocks, l.BaseLg, len(l.Filters)))
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
		r.Diff = rebuildDiff(stored, blocks, bloom.NewPolicy(bpk), bpk, bloom.Hash)
	case bloom.LegacyPolicyName:
		r.Params = &params
		du := rebuildDiff(stored, blocks, bloom.NewLegacyPolicy(bpk, false), bpk, bloom.Hash)
		ds := rebuildDiff(stored, blocks, bloom.NewLegacyPolicy(bpk, true), bpk, bloom.HashSignedTail)
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
		r.Status = StatusUnknownPolicy
		return r, nil
	}
	r.Status = StatusOK
	if r.Diff != nil {
		r.Status = StatusMismatch
	}
	return r, nil
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

// Compare returns the first difference between stored and rebuilt, or nil
// when they are equal.
func Compare(stored, rebuilt []byte) *Diff {
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
