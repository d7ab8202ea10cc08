package table

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/ldbcompat/ldbcompat/internal/base"
)

// A table's full scan: table/two_level_iterator.cc over the index and
// data blocks, as a scan with verify_checksums runs it, and the check of
// each key that db/db_iter.cc's DBIter makes; Scan, DataKeys, DataBlocks
// and ReadDataBlock run it.

// statusBadKey is DBIter's status for a key that is not an internal key
// (db/db_iter.cc).
const statusBadKey = "Corruption: corrupted internal key in DBIter"

// ErrLimit is wrapped by a *base.Error for a table that upstream reads but
// this package will not decode in full, to bound its memory: keys that
// prefix compression makes many times longer in total than their block.
var ErrLimit = errors.New("beyond this reader's memory bound")

// Entry is one entry of a data block.
type Entry struct {
	Key   InternalKey // UserKey is the entry's own copy
	Value []byte      // aliases the block's contents
}

// DataBlock is a data block and its entries in table order.
type DataBlock struct {
	Block
	Entries []Entry // in table order
}

// walker runs upstream's two-level iterator (table/two_level_iterator.cc)
// over the table's data blocks, as a scan with verify_checksums does: for
// each index entry in turn, it decodes a block handle from the start of
// the entry's value (Table::BlockReader ignores any bytes after it), reads
// the block (table/format.cc ReadBlock) and iterates it. A bad handle, a
// block that cannot be read and a "bad entry in block" each end that
// block's entries only: the scan goes on with the next index entry and
// reports the first such error at the end, unless the index block's own
// iteration failed, whose error comes first (TwoLevelIterator::status).
type walker struct {
	t       *Table
	i       int // the index entry being read
	it      blockIter
	b       Block
	scratch []byte
	first   error // the first data block error
}

// walkerBufs are the buffers a walker reads into: a compressed block's
// contents and the current key. A table keeps them between scans (and
// OpenBytesReusing between tables), so that a scan does not allocate
// them afresh.
type walkerBufs struct {
	scratch, key []byte
}

// newWalker returns a walker over t's data blocks, with the buffers t
// keeps unless another scan has them; done gives them back.
func (t *Table) newWalker() *walker {
	bufs := t.takeBufs()
	return &walker{t: t, scratch: bufs.scratch, it: blockIter{key: bufs.key}}
}

// done gives the walker's buffers back to its table.
func (w *walker) done() {
	t := w.t
	t.bufMu.Lock()
	t.bufs = walkerBufs{scratch: w.scratch, key: w.it.key[:0]}
	t.bufMu.Unlock()
}

// takeBufs takes the buffers t keeps, leaving none.
func (t *Table) takeBufs() walkerBufs {
	t.bufMu.Lock()
	defer t.bufMu.Unlock()
	bufs := t.bufs
	t.bufs = walkerBufs{}
	return bufs
}

// block starts index entry i: it reads the block and positions the
// iterator on its first entry, reporting whether there is one. Its error,
// if any, is it.err.
func (w *walker) block(i int) bool {
	t := w.t
	w.i = i
	e := &t.index[i]
	w.it = blockIter{key: w.it.key[:0]}
	if !e.HandleOK {
		w.it.err = t.statusErrorf(e.At, statusBadHandle, "index entry %d: value of %d bytes % x does not start with a block handle (two varints)", i, len(e.Value), truncate(e.Value))
		return false
	}
	var err error
	what := blockName{kind: "data block", n: i}
	if w.scratch, err = t.readBlock(&w.b, e.Handle, what, w.scratch); err != nil {
		w.it.err = err
		return false
	}
	t.initBlockIter(&w.it, &w.b, what)
	return w.it.first()
}

// endBlock records the block's error, if any, as the iterator's.
func (w *walker) endBlock() error {
	if err := w.it.err; err != nil && w.first == nil {
		w.first = err
	}
	return w.it.err
}

// status is the iterator's status after the scan.
func (w *walker) status() error {
	if w.t.indexErr != nil {
		return w.t.indexErr
	}
	return w.first
}

// ScanEntry is one entry of a table scan.
type ScanEntry struct {
	Block int         // the entry's data block: its position in Index
	Key   []byte      // the entry's key, valid only during the call
	Value []byte      // the entry's value, valid only during the call
	At    uint64      // the entry's file offset, or its block's when compressed
	Ptr   BlockHandle // its block's handle
}

// Scan calls fn with every entry that upstream's table iterator yields in
// a full scan (SeekToFirst, then Next while Valid) with verify_checksums
// (without, when the table's Options skip checksums), in order, and returns the iterator's final status: nil, or a *base.Error
// whose Status is upstream's. Entries of a block before a bad entry are
// yielded; blocks after a bad one are still read (see walker). Keys are
// not checked: ParseInternalKey tells what DBIter would make of each.
// A non-nil error from fn stops the scan and is returned.
func (t *Table) Scan(fn func(ScanEntry) error) error {
	t.loadFile()
	w := t.newWalker()
	defer w.done()
	for i := range t.index {
		for ok := w.block(i); ok; ok = w.it.parseNext() {
			at := w.b.Handle.Offset
			if w.b.Compression == NoCompression {
				at += uint64(w.it.cur)
			}
			if err := fn(ScanEntry{Block: i, Key: w.it.key, Value: w.it.value, At: at, Ptr: w.b.Handle}); err != nil {
				return err
			}
		}
		w.endBlock()
	}
	return w.status()
}

// The key budget of a block whose keys the caller keeps (DataKeys,
// DataBlocks, ReadDataBlock): keyBudgetFactor times its decompressed size
// and, for a compressed block, at most storedKeyBudgetFactor times its
// stored size, plus keyBudgetSlack bytes. Upstream keeps one key at a time
// and reads any such block; a caller keeping every key of a crafted block
// (each entry repeating the whole previous key) would need memory growing
// with the square of its size. The second bound keeps snappy's expansion
// (up to 22 times) and prefix compression's from compounding: a 25 KB table
// of one snappy block of identical entries, each repeating a 2000-byte key,
// decoded to 38 MB of keys without it. The slack is per block, so it must
// stay small: a table of many small blocks, each filled up to its budget,
// would otherwise decode to the slack times the number of blocks.
const (
	keyBudgetFactor       = 64
	storedKeyBudgetFactor = 256
	keyBudgetSlack        = 4 << 10
)

// keyBudget bounds the key bytes a block may decode to when the caller
// keeps every key (see the constants).
type keyBudget struct {
	left   uint64
	factor int
	of     string
}

func newKeyBudget(b *Block) keyBudget {
	kb := keyBudget{left: keyBudgetFactor * uint64(len(b.Contents)), factor: keyBudgetFactor, of: "size"}
	if b.Compression != NoCompression && storedKeyBudgetFactor*b.Handle.Size < kb.left {
		kb.left, kb.factor, kb.of = storedKeyBudgetFactor*b.Handle.Size, storedKeyBudgetFactor, "stored size"
	}
	kb.left += keyBudgetSlack
	return kb
}

// take spends n bytes; false once the budget is exceeded.
func (kb *keyBudget) take(n int) bool {
	if uint64(n) > kb.left {
		return false
	}
	kb.left -= uint64(n)
	return true
}

// verdict combines a scan's outcomes into the error upstream's DBIter
// reports: its own "corrupted internal key" first (DBIter::status), then
// the iterator's status; a key budget exceeded (ours, not upstream's)
// last.
func verdict(badKey, status, limit error) error {
	switch {
	case badKey != nil:
		return badKey
	case status != nil:
		return status
	}
	return limit
}

// walkKeys runs the scan for DataKeys and DataBlocks: entry is called with
// each entry and block after each block, until the first error of any
// kind; the scan itself goes on to find the error upstream reports.
func (t *Table) walkKeys(entry func(it *blockIter), block func(i int, b *Block, n int) error) error {
	t.loadFile()
	w := t.newWalker()
	defer w.done()
	var badKey, limit error
	for i := range t.index {
		n := 0
		live := badKey == nil && limit == nil && w.first == nil
		kb := keyBudget{}
		for ok := w.block(i); ok; ok = w.it.parseNext() {
			if m := len(w.it.key) - internalKeyTagSize; m < 0 || Kind(w.it.key[m]) > KindValue {
				_, err := ParseInternalKey(w.it.key)
				if badKey == nil {
					badKey = w.t.blockErrorf(&w.b, w.it.what, int(w.it.cur), statusBadKey, "entry %d: %v", w.it.index-1, err)
				}
				live = false
				continue
			}
			if !live {
				continue
			}
			if n == 0 {
				kb = newKeyBudget(&w.b)
			}
			if !kb.take(len(w.it.key)) {
				e := w.t.blockErrorf(&w.b, w.it.what, int(w.it.cur), "", "entry %d: keys decode to more than %d times the block's %s; want prefix compression as shallow as LevelDB writes", w.it.index-1, kb.factor, kb.of)
				e.(*base.Error).Err = ErrLimit
				limit, live = e, false
				continue
			}
			entry(&w.it)
			n++
		}
		if w.endBlock() != nil {
			live = false
		}
		if live {
			if err := block(i, &w.b, n); err != nil {
				return err
			}
		}
	}
	return verdict(badKey, w.status(), limit)
}

// ReadDataBlock reads and decodes the i-th data block listed by the index.
// It fails as DataBlocks does on that block alone: a bad handle, a block
// that cannot be read, a bad entry, a key that is not an internal key, or
// keys beyond the memory bound.
func (t *Table) ReadDataBlock(i int) (*DataBlock, error) {
	if i < 0 || i >= len(t.index) {
		return nil, fmt.Errorf("table %s: data block %d out of range [0, %d)", t.name, i, len(t.index))
	}
	// Not t.newWalker: the block returned keeps the walker's buffer.
	w := &walker{t: t}
	var db *DataBlock
	var badKey, limit error
	kb := keyBudget{}
	for ok := w.block(i); ok; ok = w.it.parseNext() {
		if db == nil {
			db = &DataBlock{Block: w.b}
			kb = newKeyBudget(&w.b)
		}
		k, err := ParseInternalKey(w.it.key)
		if err != nil {
			if badKey == nil {
				badKey = w.t.blockErrorf(&w.b, w.it.what, int(w.it.cur), statusBadKey, "entry %d: %v", w.it.index-1, err)
			}
			continue
		}
		if limit != nil {
			continue
		}
		if !kb.take(len(w.it.key)) {
			e := w.t.blockErrorf(&w.b, w.it.what, int(w.it.cur), "", "entry %d: keys decode to more than %d times the block's %s; want prefix compression as shallow as LevelDB writes", w.it.index-1, kb.factor, kb.of)
			e.(*base.Error).Err = ErrLimit
			limit = e
			continue
		}
		k.UserKey = bytes.Clone(k.UserKey)
		if k.UserKey == nil {
			k.UserKey = []byte{}
		}
		db.Entries = append(db.Entries, Entry{Key: k, Value: w.it.value})
	}
	if err := verdict(badKey, w.endBlock(), limit); err != nil {
		return nil, err
	}
	if db == nil {
		db = &DataBlock{Block: w.b}
	}
	return db, nil
}

// BlockKeys calls fn with the internal key of each entry of the i-th data
// block listed by the index, in order, without copying it: k is valid only
// during the call. It holds one block and one key at a time, so that a
// caller can read the keys of a table again, block by block, where
// keeping them all could take many times the table's size (prefix
// compression shares all but a few bytes of long keys). It fails as
// ReadDataBlock does on that block, but for the key budget, which bounds
// only the keys a caller keeps.
func (t *Table) BlockKeys(i int, fn func(k []byte)) error {
	if i < 0 || i >= len(t.index) {
		return fmt.Errorf("table %s: data block %d out of range [0, %d)", t.name, i, len(t.index))
	}
	t.loadFile()
	w := t.newWalker()
	defer w.done()
	var badKey error
	for ok := w.block(i); ok; ok = w.it.parseNext() {
		if _, err := ParseInternalKey(w.it.key); err != nil {
			if badKey == nil {
				badKey = w.t.blockErrorf(&w.b, w.it.what, int(w.it.cur), statusBadKey, "entry %d: %v", w.it.index-1, err)
			}
			continue
		}
		if badKey == nil {
			fn(w.it.key)
		}
	}
	return verdict(badKey, w.endBlock(), nil)
}

// DataBlocks calls fn with each data block in index order, as the table's
// scan reads them, until the first error; the scan goes on without fn to
// find the error upstream reports, which DataBlocks returns (see
// DataKeys). Only one block is held at a time, so a large table can be
// walked in little memory if fn keeps nothing: a compressed block's
// Contents are decoded into memory that the next block, and later scans,
// use again (its entries are copies).
func (t *Table) DataBlocks(fn func(*DataBlock) error) error {
	var cur *DataBlock
	return t.walkKeys(func(it *blockIter) {
		if cur == nil {
			cur = &DataBlock{Block: *it.b}
		}
		k, _ := ParseInternalKey(it.key) // walkKeys checked it
		k.UserKey = bytes.Clone(k.UserKey)
		if k.UserKey == nil {
			k.UserKey = []byte{}
		}
		cur.Entries = append(cur.Entries, Entry{Key: k, Value: bytes.Clone(it.value)})
	}, func(_ int, b *Block, _ int) error {
		if cur == nil {
			cur = &DataBlock{Block: *b}
		}
		err := fn(cur)
		cur = nil
		return err
	})
}

// DataKeys reads the table's data blocks as a full scan does and calls key
// with the internal key of each entry, in order, then block with the
// block's position i in the index, its handle and its number of entries.
// k is valid only during the call to key, which must copy what it keeps.
//
// It returns nil exactly when upstream's DB iterator would read every
// entry without error, else the error it reports (the first key
// ParseInternalKey refuses, "corrupted internal key in DBIter", else the
// table iterator's status: see Scan) as a *base.Error with upstream's Status;
// or, when upstream reads the table but its keys decode to more than a
// bounded multiple of their block's size, a *base.Error wrapping ErrLimit.
// The callbacks stop at the first error, but the scan goes on to find the
// error to return. A non-nil error from block stops it and is returned.
func (t *Table) DataKeys(key func(k []byte), block func(i int, h BlockHandle, n int) error) error {
	return t.walkKeys(func(it *blockIter) { key(it.key) },
		func(i int, b *Block, n int) error { return block(i, b.Handle, n) })
}
