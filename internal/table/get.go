package table

import (
	"bytes"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/internal/base"
)

// A lookup, as table/table.cc Table::InternalGet makes it.

// GetResult is what Table::InternalGet (table/table.cc), as
// TableCache::Get calls it, does with a lookup key.
type GetResult struct {
	// Found is set when InternalGet hands an entry to its callback: the
	// first entry at or after the lookup key in the data block the index
	// points to. Key and Value are that entry's (copies).
	Found      bool
	Key, Value []byte
	// FilterAsked is set when the filter block reader was asked about
	// the key, and FilterSaysNo when it answered that the key is not in
	// the block, so that the block was not read.
	FilterAsked, FilterSaysNo bool
	// PolicyCalls holds the answers of the filter policy's KeyMayMatch,
	// one per call (the filter block reader answers some queries without
	// the policy: see bloom.FilterBlockReader).
	PolicyCalls []bool
	// Err is upstream's status for the call: nil, or a *base.Error whose
	// Status is upstream's.
	Err error
}

// Get looks the internal key ikey up as Table::InternalGet does with the
// internal key comparator, verify_checksums unless the table's Options
// skip checksums (upstream's default ReadOptions) and, when f is used
// (f.Use == FilterUsed), a filter block reader over f.Contents whose
// policy is an InternalFilterPolicy over p: seek ikey in the index block;
// if the seek stops on an entry whose value starts with a block handle and
// the filter says the key is not in the block at that handle's offset, the
// key is not found; otherwise read that block (a bad handle or a read
// error is the status), seek ikey in it and hand over the entry it stops
// on. The index block's iteration status comes last.
//
// Get fails, with a *base.Error wrapping base.ErrUndefined, where upstream's
// behaviour is undefined: a key shorter than 8 bytes compared with the
// internal key comparator (ikey must be at least 8 bytes).
func (t *Table) Get(ikey []byte, f *FilterLookup, p bloom.FilterPolicy) (GetResult, error) {
	var r GetResult
	if len(ikey) < internalKeyTagSize {
		return r, &base.Error{Type: base.TableFile, File: t.name, Msg: "lookup key shorter than an internal key's 8-byte tag", Err: base.ErrUndefined}
	}
	idx := t.newBlockIter(&t.indexBlock, named("index block"))
	found := idx.seek(ikey, compareInternal)
	if base.IsUndefined(idx.err) {
		return r, idx.err
	}
	if found {
		h, hok := decodeHandleOK(idx.value)
		if f != nil && f.Use == FilterUsed && hok {
			rec := &recordingPolicy{p: p}
			r.FilterAsked = true
			r.FilterSaysNo = !bloom.NewFilterBlockReader(rec, f.Contents).KeyMayMatch(h.Offset, ikey)
			r.PolicyCalls = rec.calls
		}
		if !r.FilterSaysNo {
			var b Block
			var it *blockIter
			if !hok {
				r.Err = t.statusErrorf(idx.valueAt(), statusBadHandle, "index entry: value of %d bytes % x does not start with a block handle (two varints)", len(idx.value), truncate(idx.value))
			} else if _, err := t.readBlock(&b, h, named("data block"), nil); err != nil {
				if base.IsUndefined(err) {
					return r, err
				}
				r.Err = err
			} else {
				it = t.newBlockIter(&b, named("data block"))
				if it.seek(ikey, compareInternal) {
					r.Found, r.Key, r.Value = true, bytes.Clone(it.key), bytes.Clone(it.value)
				}
				if base.IsUndefined(it.err) {
					return r, it.err
				}
				r.Err = it.err
			}
		}
	}
	if r.Err == nil {
		r.Err = idx.err
	}
	return r, nil
}
