package table

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
)

// Kind is the type byte of an internal key (db/dbformat.h ValueType).
type Kind uint8

// The kinds of entry LevelDB writes.
const (
	KindDeletion Kind = 0 // a tombstone: the user key was deleted
	KindValue    Kind = 1 // a value for the user key
)

// String returns "deletion", "value" or "kind(N)".
func (k Kind) String() string {
	switch k {
	case KindDeletion:
		return "deletion"
	case KindValue:
		return "value"
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// InternalKey is a key as a table stores it: the user's key, a 56-bit
// sequence number and a kind.
type InternalKey struct {
	UserKey []byte // the key the user wrote
	Seq     uint64 // sequence number, at most MaxSequence
	Kind    Kind   // deletion or value
}

// MaxSequence is the largest sequence number an internal key can hold.
const MaxSequence = 1<<56 - 1

// internalKeyTagSize is the size of the tag ending every internal key.
const internalKeyTagSize = 8

// ParseInternalKey splits an encoded internal key into its parts. UserKey
// aliases key. It fails when key is shorter than its 8-byte tag or the kind
// is neither deletion nor value.
func ParseInternalKey(key []byte) (InternalKey, error) {
	if len(key) < internalKeyTagSize {
		return InternalKey{}, fmt.Errorf("internal key of %d bytes is shorter than its %d-byte tag", len(key), internalKeyTagSize)
	}
	n := len(key) - internalKeyTagSize
	tag := binary.LittleEndian.Uint64(key[n:])
	k := InternalKey{UserKey: key[:n:n], Seq: tag >> 8, Kind: Kind(tag & 0xff)}
	if k.Kind > KindValue {
		return InternalKey{}, fmt.Errorf("internal key has type %d; want 0 (deletion) or 1 (value)", uint8(k.Kind))
	}
	return k, nil
}

// AppendInternalKey appends the encoding of k to dst.
func AppendInternalKey(dst []byte, k InternalKey) []byte {
	dst = append(dst, k.UserKey...)
	return binary.LittleEndian.AppendUint64(dst, k.Seq<<8|uint64(k.Kind))
}

// String formats k as "userkey(hex)@seq,kind".
func (k InternalKey) String() string {
	return fmt.Sprintf("%x@%d,%s", k.UserKey, k.Seq, k.Kind)
}

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

// blockIter is upstream's Block::Iter (table/block.cc) over a block's
// decompressed contents, with the Block constructor's checks: a block of
// under 4 bytes, or whose restart count does not fit it, is "bad block
// contents"; a block of 0 restart points is empty, whatever its other
// bytes. Iteration starts at restart point 0's offset (not necessarily 0)
// and ends where the restart array starts; other restart points matter
// only to Seek. Each entry's key is rebuilt in one buffer, as key_ is
// (resize to the shared length, append the rest), so that decoding a
// block costs its size, whatever its prefix compression.
type blockIter struct {
	t        *Table
	b        *Block
	what     string
	data     []byte
	restarts uint32 // offset of the restart array: entries end there
	num      uint32 // restart points
	bad      bool   // the Block constructor's error marker

	next     uint32 // where the entry after the current one starts
	cur      uint32 // where the current entry starts
	index    int    // entries decoded so far, the current one included
	key      []byte // the current entry's key (valid until the next move)
	value    []byte // the current entry's value, aliasing the block
	valuePos uint32
	err      error // the iterator's status: nil while OK
}

func (t *Table) newBlockIter(b *Block, what string) *blockIter {
	it := &blockIter{}
	t.initBlockIter(it, b, what)
	return it
}

// initBlockIter resets it to iterate b, keeping its key buffer.
func (t *Table) initBlockIter(it *blockIter, b *Block, what string) {
	*it = blockIter{t: t, b: b, what: what, data: b.Contents, key: it.key[:0]}
	c := b.Contents
	if len(c) < 4 || uint64(len(c)) > math.MaxUint32 {
		it.bad = true
		return
	}
	it.num = binary.LittleEndian.Uint32(c[len(c)-4:])
	if uint64(it.num) > uint64(len(c)-4)/4 {
		it.bad = true
		return
	}
	it.restarts = uint32(len(c)) - (1+it.num)*4
}

// restart returns restart point i's offset.
func (it *blockIter) restart(i uint32) uint32 {
	return binary.LittleEndian.Uint32(it.data[it.restarts+4*i:])
}

// badContents sets the error of a block the Block constructor marked bad
// (Block::NewIterator's error iterator) and returns false.
func (it *blockIter) badContents() bool {
	c := it.data
	switch {
	case len(c) < 4:
		it.err = it.t.blockErrorf(it.b, it.what, 0, statusBlockContents, "block of %d bytes is too short for its restart count (4 bytes)", len(c))
	case uint64(len(c)) > math.MaxUint32:
		it.err = it.t.blockErrorf(it.b, it.what, 0, "", "block of %d bytes: LevelDB keeps block offsets in 32 bits", len(c))
		it.err.(*Error).Err = ErrUndefined
	default:
		num := binary.LittleEndian.Uint32(c[len(c)-4:])
		it.err = it.t.blockErrorf(it.b, it.what, len(c)-4, statusBlockContents, "restart count %d needs %d bytes; the block has %d before the count", num, 4*uint64(num), len(c)-4)
	}
	return false
}

// first is SeekToFirst: it reports whether there is an entry.
func (it *blockIter) first() bool {
	if it.bad {
		return it.badContents()
	}
	if it.num == 0 {
		return false // Block::NewIterator: NewEmptyIterator
	}
	it.key = it.key[:0]
	it.next = it.restart(0)
	return it.parseNext()
}

// decodeEntry is DecodeEntry (table/block.cc) at p with the entries
// ending at limit: the three lengths and where the key's unshared bytes
// start. why is "" when it decodes, else what upstream's nullptr stands
// for; undefined is set where non_shared + value_length overflows uint32
// yet passes upstream's bounds check, so that it would read far past the
// block.
func (it *blockIter) decodeEntry(p, limit uint32) (shared, nonShared, valueLen, k uint32, why string, undefined bool) {
	if p > limit || limit-p < 3 {
		return 0, 0, 0, 0, fmt.Sprintf("want three varint32 lengths: fewer than 3 bytes before the entries' end at byte %d", limit), false
	}
	q := it.data[p:limit]
	var n, at int
	if shared, n = getVarint32(q); n == 0 {
		return 0, 0, 0, 0, "want the shared key length (varint32)", false
	}
	at += n
	if nonShared, n = getVarint32(q[at:]); n == 0 {
		return 0, 0, 0, 0, "want the unshared key length (varint32)", false
	}
	at += n
	if valueLen, n = getVarint32(q[at:]); n == 0 {
		return 0, 0, 0, 0, "want the value length (varint32)", false
	}
	at += n
	rem := uint32(len(q) - at)
	if rem < nonShared+valueLen { // the uint32 sum, as upstream computes it
		return 0, 0, 0, 0, fmt.Sprintf("key suffix (%d bytes) and value (%d bytes) run past the entries' end at byte %d", nonShared, valueLen, limit), false
	}
	if uint64(nonShared)+uint64(valueLen) > uint64(rem) {
		return nonShared, nonShared, valueLen, 0, "", true
	}
	return shared, nonShared, valueLen, p + uint32(at), "", false
}

// parseNext is ParseNextKey: it decodes the entry at it.next.
func (it *blockIter) parseNext() bool {
	it.cur = it.next
	if it.cur >= it.restarts {
		return false // no more entries
	}
	shared, nonShared, valueLen, k, why, undefined := it.decodeEntry(it.cur, it.restarts)
	switch {
	case undefined:
		return it.undefined(it.cur, "entry %d: key suffix (%d bytes) and value (%d bytes) overflow 32 bits, where LevelDB reads past the block", it.index, nonShared, valueLen)
	case why != "":
		return it.corrupt(it.cur, "entry %d: %s", it.index, why)
	case uint64(shared) > uint64(len(it.key)):
		return it.corrupt(it.cur, "entry %d: shares %d key bytes with a previous key of %d bytes", it.index, shared, len(it.key))
	}
	it.key = append(it.key[:shared], it.data[k:k+nonShared]...)
	it.valuePos = k + nonShared
	it.value = it.data[it.valuePos : it.valuePos+valueLen : it.valuePos+valueLen]
	it.next = it.valuePos + valueLen
	it.index++
	return true
}

// corrupt is CorruptionError: "bad entry in block" at byte pos.
func (it *blockIter) corrupt(pos uint32, format string, args ...any) bool {
	it.err = it.t.blockErrorf(it.b, it.what, int(pos), statusBadEntry, format, args...)
	it.key, it.value = it.key[:0], nil
	return false
}

// undefined ends the iteration where upstream's behaviour is undefined.
func (it *blockIter) undefined(pos uint32, format string, args ...any) bool {
	e := it.t.blockErrorf(it.b, it.what, int(pos), "", format, args...)
	e.(*Error).Err = ErrUndefined
	it.err = e
	it.key, it.value = it.key[:0], nil
	return false
}

// valueAt returns the file offset of the current value, or of the block
// when it is compressed.
func (it *blockIter) valueAt() uint64 {
	if it.b.Compression == NoCompression {
		return it.b.Handle.Offset + uint64(it.valuePos)
	}
	return it.b.Handle.Offset
}

// comparator is a leveldb::Comparator; err is set where upstream's
// comparison is undefined.
type comparator func(a, b []byte) (int, error)

func compareBytewise(a, b []byte) (int, error) { return bytes.Compare(a, b), nil }

// compareInternal is InternalKeyComparator::Compare (db/dbformat.cc) over
// the bytewise comparator: user keys ascending, then tags (sequence and
// type) descending. A key shorter than its 8-byte tag makes ExtractUserKey
// wrap around (its assert is compiled out): undefined.
func compareInternal(a, b []byte) (int, error) {
	if len(a) < internalKeyTagSize || len(b) < internalKeyTagSize {
		return 0, ErrUndefined
	}
	na, nb := len(a)-internalKeyTagSize, len(b)-internalKeyTagSize
	if c := bytes.Compare(a[:na], b[:nb]); c != 0 {
		return c, nil
	}
	ta, tb := binary.LittleEndian.Uint64(a[na:]), binary.LittleEndian.Uint64(b[nb:])
	switch {
	case ta > tb:
		return -1, nil
	case ta < tb:
		return 1, nil
	}
	return 0, nil
}

// seek is Seek on a new iterator: a binary search over the restart points
// for the last whose key is < target, then a linear scan from it for the
// first key >= target. It reports whether it stopped on an entry.
func (it *blockIter) seek(target []byte, cmp comparator) bool {
	if it.bad {
		return it.badContents()
	}
	if it.num == 0 {
		return false
	}
	left, right := uint32(0), it.num-1
	for left < right {
		mid := uint32((uint64(left) + uint64(right) + 1) / 2)
		region := it.restart(mid)
		shared, nonShared, _, k, why, undefined := it.decodeEntry(region, it.restarts)
		if undefined {
			return it.undefined(region, "restart point %d: key and value lengths overflow 32 bits, where LevelDB reads past the block", mid)
		}
		if why != "" || shared != 0 {
			if why == "" {
				why = fmt.Sprintf("shares %d key bytes; want 0", shared)
			}
			return it.corrupt(region, "restart point %d (byte %d): want an entry storing its whole key: %s", mid, region, why)
		}
		c, err := cmp(it.data[k:k+nonShared], target)
		if err != nil {
			return it.undefined(region, "restart point %d: key of %d bytes is shorter than an internal key's tag; LevelDB's comparator reads out of bounds", mid, nonShared)
		}
		if c < 0 {
			left = mid
		} else {
			right = mid - 1
		}
	}
	it.key = it.key[:0]
	it.next = it.restart(left)
	for it.parseNext() {
		c, err := cmp(it.key, target)
		if err != nil {
			return it.undefined(it.cur, "entry %d: key of %d bytes is shorter than an internal key's tag; LevelDB's comparator reads out of bounds", it.index-1, len(it.key))
		}
		if c >= 0 {
			return true
		}
	}
	return false
}

// blockErrorf returns an *Error at byte pos of block b's decompressed
// contents, for a problem upstream reports with status: its file offset
// when the block is stored uncompressed, else the block's offset with pos
// given in the message.
func (t *Table) blockErrorf(b *Block, what string, pos int, status, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if b.Compression == NoCompression {
		return t.statusErrorf(b.Handle.Offset+uint64(pos), status, "%s %s: %s", what, b.Handle, msg)
	}
	return t.statusErrorf(b.Handle.Offset, status, "%s %s: at byte %d of %d decompressed: %s", what, b.Handle, pos, len(b.Contents), msg)
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
	what := "data block " + strconv.Itoa(i)
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
// a full scan (SeekToFirst, then Next while Valid) with verify_checksums,
// in order, and returns the iterator's final status: nil, or an *Error
// whose Status is upstream's. Entries of a block before a bad entry are
// yielded; blocks after a bad one are still read (see walker). Keys are
// not checked: ParseInternalKey tells what DBIter would make of each.
// A non-nil error from fn stops the scan and is returned.
func (t *Table) Scan(fn func(ScanEntry) error) error {
	t.loadFile()
	w := walker{t: t}
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
	w := walker{t: t}
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
				e.(*Error).Err = ErrLimit
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
	w := walker{t: t}
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
			e.(*Error).Err = ErrLimit
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

// DataBlocks calls fn with each data block in index order, as the table's
// scan reads them, until the first error; the scan goes on without fn to
// find the error upstream reports, which DataBlocks returns (see
// DataKeys). Only one block is held at a time, so a large table can be
// walked in little memory if fn keeps nothing.
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
// table iterator's status: see Scan) as an *Error with upstream's Status;
// or, when upstream reads the table but its keys decode to more than a
// bounded multiple of their block's size, an *Error wrapping ErrLimit.
// The callbacks stop at the first error, but the scan goes on to find the
// error to return. A non-nil error from block stops it and is returned.
func (t *Table) DataKeys(key func(k []byte), block func(i int, h BlockHandle, n int) error) error {
	return t.walkKeys(func(it *blockIter) { key(it.key) },
		func(i int, b *Block, n int) error { return block(i, b.Handle, n) })
}
