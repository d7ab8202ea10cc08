package table

import (
	"bytes"
	"fmt"
	"strings"
)

// Finding a table's filter as table/table.cc ReadMeta and ReadFilter do.

// FilterPrefix starts a filter block's metaindex key; the policy name follows.
const FilterPrefix = "filter."

// FilterUse is what upstream makes of a table's filter block for a policy.
type FilterUse int

// The outcomes of Table::ReadMeta and Table::ReadFilter.
const (
	// FilterUsed: found and read; upstream consults it on every Get.
	FilterUsed FilterUse = iota + 1
	// FilterNotFound: Block::Iter::Seek finds no "filter."+name entry (or
	// hits a bad entry); no filter.
	FilterNotFound
	// FilterNoMetaindex: the metaindex cannot be read (Err); no filter.
	FilterNoMetaindex
	// FilterUnreadable: no block handle, or the block cannot be read
	// (Err); upstream silently reads without a filter.
	FilterUnreadable
)

// String returns "used", "not found", "no metaindex" or "unreadable".
func (u FilterUse) String() string {
	if u > 0 && int(u) < len(filterUseNames) {
		return filterUseNames[u]
	}
	return fmt.Sprintf("FilterUse(%d)", int(u))
}

var filterUseNames = [...]string{FilterUsed: "used", FilterNotFound: "not found", FilterNoMetaindex: "no metaindex", FilterUnreadable: "unreadable"}

// FilterLookup is upstream's filter decision for a table and a policy name.
type FilterLookup struct {
	Policy string    // the policy name asked about
	Use    FilterUse // what upstream does
	// Handle is the filter block's handle, when found.
	Handle   BlockHandle
	HandleOK bool
	// Compression and Contents (decompressed) are set when Used.
	Compression byte
	Contents    []byte
	// Err says why, for FilterNoMetaindex and FilterUnreadable; for
	// FilterNotFound, the seek's "bad entry in block", if any.
	Err error
}

// LookupFilter returns what LevelDB 1.23 makes of the table's filter block
// for a policy named policy (table/table.cc ReadMeta, ReadFilter): Seek
// "filter."+policy in the metaindex bytewise, and on an exact match decode
// a handle from the value's start and read (and decompress) the block,
// its checksum verified unless Options.SkipChecksums. Any failure silently
// leaves the table without a filter.
func (t *Table) LookupFilter(policy string) *FilterLookup {
	f := &FilterLookup{Policy: policy}
	if t.metaErr != nil {
		f.Use, f.Err = FilterNoMetaindex, t.metaErr
		return f
	}
	target := []byte(FilterPrefix + policy)
	it := t.newBlockIter(&t.metaBlock, named("metaindex block"))
	if !it.seek(target, compareBytewise) || !bytes.Equal(it.key, target) {
		f.Use, f.Err = FilterNotFound, it.err
		return f
	}
	f.Handle, f.HandleOK = decodeHandleOK(it.value)
	if !f.HandleOK {
		f.Use = FilterUnreadable
		f.Err = t.statusErrorf(it.valueAt(), statusBadHandle, "metaindex entry %q: want a block handle (two varints), got %d bytes % x", target, len(it.value), truncate(it.value))
		return f
	}
	var b Block
	if _, err := t.readBlock(&b, f.Handle, named("filter block"), nil); err != nil {
		f.Use, f.Err = FilterUnreadable, err
		return f
	}
	f.Use, f.Compression, f.Contents = FilterUsed, b.Compression, b.Contents
	return f
}

// FilterBlock returns the name and decompressed contents of the filter
// block upstream reads for the first FilterPrefix entry in the metaindex,
// under that entry's policy name; ok is false when there is none. Do not
// modify contents.
func (t *Table) FilterBlock() (name string, contents []byte, ok bool) {
	f := t.firstFilter()
	if f == nil || f.Use != FilterUsed {
		return "", nil, false
	}
	return f.Policy, f.Contents, true
}

// FilterHandle returns the handle of FilterBlock's block.
func (t *Table) FilterHandle() (h BlockHandle, ok bool) {
	f := t.firstFilter()
	if f == nil || f.Use != FilterUsed {
		return BlockHandle{}, false
	}
	return f.Handle, true
}

// firstFilter is LookupFilter for the first "filter." entry's name, or nil.
func (t *Table) firstFilter() *FilterLookup {
	t.firstOnce.Do(func() {
		for _, m := range t.meta {
			if name, ok := strings.CutPrefix(m.Name, FilterPrefix); ok {
				t.first = t.LookupFilter(name)
				return
			}
		}
	})
	return t.first
}
