package table

import (
	"bytes"
	"fmt"
	"strings"
)

// Finding a table's filter block and deciding on it, as table/table.cc
// Table::ReadMeta and Table::ReadFilter do for a filter policy's name.

// FilterPrefix starts the metaindex key of a filter block; the rest of the
// key is the filter policy's name.
const FilterPrefix = "filter."

// FilterUse is what upstream makes of a table's filter block for a
// filter policy name.
type FilterUse int

// The outcomes of Table::ReadMeta and Table::ReadFilter.
const (
	// FilterUsed: the filter block is found and read; upstream consults
	// it on every Get.
	FilterUsed FilterUse = iota + 1
	// FilterNotFound: the metaindex block was read, but seeking
	// "filter."+name in it finds no such entry (none, or none where
	// Block::Iter::Seek looks, or the seek hits a bad entry); upstream
	// reads the table without a filter.
	FilterNotFound
	// FilterNoMetaindex: the metaindex block cannot be read (Err says
	// why); upstream reads the table without a filter.
	FilterNoMetaindex
	// FilterUnreadable: the entry is found but its value does not start
	// with a block handle, or the block cannot be read (Err says why);
	// upstream silently reads the table without a filter.
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
	// Handle is the filter block's handle, when the entry was found and
	// its value starts with one.
	Handle   BlockHandle
	HandleOK bool
	// Compression is the filter block's compression type and Contents
	// its contents as upstream reads them (decompressed), when Used.
	Compression byte
	Contents    []byte
	// Err says why the filter is not used when Use is
	// FilterNoMetaindex or FilterUnreadable; for FilterNotFound it is the
	// metaindex's "bad entry in block" when the seek hit one, else nil.
	Err error
}

// LookupFilter returns what LevelDB 1.23, given a filter policy whose Name() is
// policy, makes of the table's filter block (table/table.cc ReadMeta and
// ReadFilter): it reads the metaindex block, seeks
// "filter."+policy in it with the bytewise comparator (Block::Iter::Seek:
// a binary search over the restart points, then a linear scan), and when
// that entry's key is exactly the name, decodes a block handle from the
// start of its value (ignoring the rest) and reads that block,
// decompressing a snappy one. With paranoid_checks (the zero Options) the
// block's checksum is verified; under upstream's default options
// (Options.SkipChecksums) it is not, and a damaged filter block is used as
// it is (ChecksumFailures lists it). Any failure silently leaves the table
// without a filter.
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

// FilterBlock returns the filter block that upstream reads for the first
// metaindex entry, in the block's order, whose name starts with
// FilterPrefix, when its policy's name is the rest of that name: the name
// and the contents (decompressed). ok is false when there is no such
// entry, or when upstream would read the table without a filter under
// that name (see LookupFilter). The caller must not modify contents.
func (t *Table) FilterBlock() (name string, contents []byte, ok bool) {
	f := t.firstFilter()
	if f == nil || f.Use != FilterUsed {
		return "", nil, false
	}
	return f.Policy, f.Contents, true
}

// FilterHandle returns the handle of the filter block FilterBlock returns;
// ok is false when it returns none.
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
