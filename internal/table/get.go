package table

import (
	"bytes"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/internal/base"
)

// GetResult is what Table::InternalGet does with a lookup key.
type GetResult struct {
	// Found: InternalGet handed its callback an entry, the first at or
	// after the key in the indexed block (Key and Value are copies).
	Found      bool
	Key, Value []byte
	// FilterAsked: the filter was asked; FilterSaysNo: it ruled the block out.
	FilterAsked, FilterSaysNo bool
	// PolicyCalls holds each KeyMayMatch answer (the block reader answers
	// some queries itself: see bloom.FilterBlockReader).
	PolicyCalls []bool
	// Err is upstream's status: nil or a *base.Error.
	Err error
}

// Get looks ikey up as Table::InternalGet does (internal key comparator,
// verify_checksums unless Options skip them, and f's filter over p when
// f.Use is FilterUsed): seek the index; if the filter rules the block out,
// not found; else read the block, seek and hand over the entry; the index
// iteration status comes last. A key under 8 bytes is undefined upstream
// (an error wrapping base.ErrUndefined).
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
