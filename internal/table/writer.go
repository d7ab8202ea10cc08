package table

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/klauspost/compress/snappy"

	"github.com/ldbcompat/ldbcompat/bloom"
)

// table/table_builder.cc as a database runs it: internal keys, the index
// keyed by db/dbformat.cc's shortened separators, the filter over user keys.

// WriterOptions are the options of leveldb::Options that shape a table.
type WriterOptions struct {
	// BlockSize is Options::block_size: a data block is cut once its
	// size estimate reaches it.
	BlockSize int
	// RestartInterval is Options::block_restart_interval, at least 1.
	// The index block always uses 1, as upstream's does.
	RestartInterval int
	// Snappy selects kSnappyCompression: a block is stored compressed
	// when that saves at least an eighth of it.
	Snappy bool
	// Policy is the filter policy (over user keys); nil writes no filter
	// block.
	Policy bloom.FilterPolicy
}

// Writer writes a table as leveldb::TableBuilder does. Add entries in
// increasing order, then Finish.
type Writer struct {
	o        WriterOptions
	file     []byte
	data     *blockBuilder
	index    *blockBuilder
	filter   *bloom.FilterBlockBuilder
	lastKey  []byte
	entries  int
	pending  bool        // an index entry waits for the next key
	pendingH BlockHandle // the handle of the block it is for
	finished bool
}

// NewWriter returns a Writer; upstream allows no RestartInterval under 1
// or negative BlockSize.
func NewWriter(o WriterOptions) (*Writer, error) {
	if o.RestartInterval < 1 {
		return nil, fmt.Errorf("table writer: restart interval %d, want at least 1", o.RestartInterval)
	}
	if o.BlockSize < 0 {
		return nil, fmt.Errorf("table writer: negative block size %d", o.BlockSize)
	}
	w := &Writer{o: o, data: newBlockBuilder(o.RestartInterval), index: newBlockBuilder(1)}
	if o.Policy != nil {
		w.filter = bloom.NewFilterBlockBuilder(o.Policy)
		w.filter.StartBlock(0)
	}
	return w, nil
}

// Add appends an entry whose internal key follows the previous one.
func (w *Writer) Add(key, value []byte) error {
	if w.finished {
		return errors.New("table writer: Add after Finish")
	}
	if len(key) < internalKeyTagSize {
		return fmt.Errorf("table writer: entry %d: key of %d bytes is shorter than an internal key's 8-byte tag", w.entries, len(key))
	}
	if w.entries > 0 {
		if c, _ := compareInternal(key, w.lastKey); c <= 0 {
			return fmt.Errorf("table writer: entry %d: key %x does not follow %x in internal key order", w.entries, key, w.lastKey)
		}
	}
	if w.pending {
		w.addIndexEntry(shortestSeparator(w.lastKey, key))
	}
	if w.filter != nil {
		// InternalFilterPolicy hands the policy user keys.
		w.filter.AddKey(key[:len(key)-internalKeyTagSize])
	}
	w.lastKey = append(w.lastKey[:0], key...)
	w.entries++
	w.data.add(key, value)
	if w.data.sizeEstimate() >= w.o.BlockSize {
		w.flush()
	}
	return nil
}

// addIndexEntry adds the pending block's handle under sep.
func (w *Writer) addIndexEntry(sep []byte) {
	w.index.add(sep, AppendBlockHandle(nil, w.pendingH))
	w.pending = false
}

// flush writes the data block, if it holds entries, and starts the next.
func (w *Writer) flush() {
	if w.data.empty() {
		return
	}
	w.pendingH = w.writeBlock(w.data)
	w.pending = true
	if w.filter != nil {
		w.filter.StartBlock(uint64(len(w.file)))
	}
}

// writeBlock appends b, compressed if asked and worth it, and resets it.
func (w *Writer) writeBlock(b *blockBuilder) BlockHandle {
	raw := b.finish()
	contents, typ := raw, byte(NoCompression)
	if w.o.Snappy {
		if c := snappy.Encode(nil, raw); len(c) < len(raw)-len(raw)/8 {
			contents, typ = c, SnappyCompression
		}
	}
	h := w.writeRawBlock(contents, typ)
	b.reset()
	return h
}

// writeRawBlock appends contents and their trailer.
func (w *Writer) writeRawBlock(contents []byte, typ byte) BlockHandle {
	h := BlockHandle{Offset: uint64(len(w.file)), Size: uint64(len(contents))}
	w.file = append(w.file, contents...)
	w.file = append(w.file, typ)
	w.file = binary.LittleEndian.AppendUint32(w.file, BlockChecksum(contents, typ))
	return h
}

// Finish writes the remaining blocks and the footer and returns the table.
func (w *Writer) Finish() []byte {
	if w.finished {
		return w.file
	}
	w.flush()
	w.finished = true
	var fh BlockHandle
	if w.filter != nil {
		fh = w.writeRawBlock(w.filter.Finish(), NoCompression)
	}
	meta := newBlockBuilder(w.o.RestartInterval)
	if w.filter != nil {
		meta.add([]byte(FilterPrefix+w.o.Policy.Name()), AppendBlockHandle(nil, fh))
	}
	mh := w.writeBlock(meta)
	if w.pending {
		w.addIndexEntry(shortSuccessor(w.lastKey))
	}
	ih := w.writeBlock(w.index)
	start := len(w.file)
	w.file = AppendBlockHandle(w.file, mh)
	w.file = AppendBlockHandle(w.file, ih)
	for len(w.file) < start+FooterSize-8 {
		w.file = append(w.file, 0)
	}
	w.file = binary.LittleEndian.AppendUint64(w.file, Magic)
	return w.file
}

// seekTag (kMaxSequenceNumber, kValueTypeForSeek) ends a shortened key,
// sorting it before every entry of its user key.
var seekTag = binary.LittleEndian.AppendUint64(nil, MaxSequence<<8|uint64(KindValue))

// shortestSeparator is InternalKeyComparator::FindShortestSeparator.
func shortestSeparator(start, limit []byte) []byte {
	us, ul := start[:len(start)-internalKeyTagSize], limit[:len(limit)-internalKeyTagSize]
	// BytewiseComparator: raise the first differing byte of start by one,
	// when neither is a prefix of the other and that keeps it under limit.
	i := 0
	for i < len(us) && i < len(ul) && us[i] == ul[i] {
		i++
	}
	if i < len(us) && i < len(ul) && us[i] < 0xff && us[i]+1 < ul[i] {
		tmp := append(append([]byte(nil), us[:i]...), us[i]+1)
		if len(tmp) < len(us) && bytes.Compare(us, tmp) < 0 {
			return append(tmp, seekTag...)
		}
	}
	return append([]byte(nil), start...)
}

// shortSuccessor is InternalKeyComparator::FindShortSuccessor.
func shortSuccessor(key []byte) []byte {
	uk := key[:len(key)-internalKeyTagSize]
	for i, c := range uk {
		if c != 0xff {
			tmp := append(append([]byte(nil), uk[:i]...), c+1)
			if len(tmp) < len(uk) {
				return append(tmp, seekTag...)
			}
			break
		}
	}
	return append([]byte(nil), key...)
}
