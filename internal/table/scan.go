package table

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/ldbcompat/ldbcompat/internal/base"
)

// statusBadKey is DBIter's status for a key that is not an internal key.
const statusBadKey = "Corruption: corrupted internal key in DBIter"

// ErrLimit is wrapped for a table upstream reads but whose keys this
// package will not decode in full, to bound its memory.
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

// walker is upstream's two-level iterator: a bad handle, unreadable block
// or bad entry ends that block only (Table::BlockReader ignores bytes after
// a handle); the first such error is reported at the end, after the index
// iteration's own (TwoLevelIterator::status).
type walker struct {
	t       *Table
	i       int // the index entry being read
	it      blockIter
	b       Block
	scratch []byte
	first   error // the first data block error
}

// walkerBufs are a walker's buffers, kept by a table between scans.
type walkerBufs struct {
	scratch, key []byte
}

// newWalker returns a walker with t's buffers unless a scan has them.
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

// block reads entry i's block, reporting whether it has an entry (else it.err).
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

// Scan calls fn with every entry upstream's table iterator yields in a
// full scan, in order, and returns its final status (a *base.Error) or
// fn's error. Keys are not checked (see ParseInternalKey).
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

// The key budget of a block whose keys the caller keeps: upstream holds one
// key at a time, but keeping every key of a crafted block grows with the
// square of its size. The stored-size bound stops snappy's expansion and
// prefix compression compounding (a 25 KB table gave 38 MB of keys); the
// per-block slack stays small since many small blocks multiply it.
const (
	keyBudgetFactor       = 64
	storedKeyBudgetFactor = 256
	keyBudgetSlack        = 4 << 10
)

// keyBudget bounds the key bytes a kept block may decode to.
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

// verdict is the error DBIter reports: its "corrupted internal key" first,
// then the iterator's status; our key budget last.
func verdict(badKey, status, limit error) error {
	switch {
	case badKey != nil:
		return badKey
	case status != nil:
		return status
	}
	return limit
}

// walkKeys runs the scan for DataKeys and DataBlocks, calling entry and
// block until the first error; the scan goes on to find upstream's error.
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

// ReadDataBlock reads and decodes the i-th data block, failing as
// DataBlocks does on it alone.
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

// BlockKeys calls fn with each internal key of the i-th data block, valid
// only during the call, holding one key at a time (kept keys could take
// many times the table's size). It fails as ReadDataBlock does, but for
// the key budget.
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

// DataBlocks calls fn with each data block until the first error and
// returns the error upstream reports (see DataKeys). A compressed block's
// Contents are reused by the next block; its entries are copies.
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

// DataKeys calls key with each entry's internal key (valid only during the
// call), then block with the block's index position, handle and entry
// count. It returns nil exactly when upstream's DB iterator reads every
// entry, else its error (DBIter's "corrupted internal key", else the
// table iterator's status), or one wrapping ErrLimit past the key budget.
// A non-nil error from block stops it and is returned.
func (t *Table) DataKeys(key func(k []byte), block func(i int, h BlockHandle, n int) error) error {
	return t.walkKeys(func(it *blockIter) { key(it.key) },
		func(i int, b *Block, n int) error { return block(i, b.Handle, n) })
}
