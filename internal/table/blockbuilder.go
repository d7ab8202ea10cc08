package table

import (
	"encoding/binary"
)

// blockBuilder builds one block as table/block_builder.cc does.
type blockBuilder struct {
	interval int      // Options::block_restart_interval, at least 1
	buf      []byte   // the entries so far
	restarts []uint32 // offsets of the entries that store a whole key
	counter  int      // entries since the last restart point
	lastKey  []byte
}

func newBlockBuilder(interval int) *blockBuilder {
	b := &blockBuilder{interval: max(interval, 1)}
	b.reset()
	return b
}

// reset empties b for the next block: the first restart point is at 0.
func (b *blockBuilder) reset() {
	b.buf = b.buf[:0]
	b.restarts = append(b.restarts[:0], 0)
	b.counter = 0
	b.lastKey = b.lastKey[:0]
}

func (b *blockBuilder) empty() bool { return len(b.buf) == 0 }

// sizeEstimate is BlockBuilder::CurrentSizeEstimate.
func (b *blockBuilder) sizeEstimate() int { return len(b.buf) + 4*len(b.restarts) + 4 }

// add appends an entry; keys must come in increasing order.
func (b *blockBuilder) add(key, value []byte) {
	shared := 0
	if b.counter < b.interval {
		for shared < len(b.lastKey) && shared < len(key) && b.lastKey[shared] == key[shared] {
			shared++
		}
	} else {
		b.restarts = append(b.restarts, uint32(len(b.buf)))
		b.counter = 0
	}
	b.buf = binary.AppendUvarint(b.buf, uint64(shared))
	b.buf = binary.AppendUvarint(b.buf, uint64(len(key)-shared))
	b.buf = binary.AppendUvarint(b.buf, uint64(len(value)))
	b.buf = append(b.buf, key[shared:]...)
	b.buf = append(b.buf, value...)
	b.lastKey = append(b.lastKey[:0], key...)
	b.counter++
}

// finish appends the restarts and returns the block, valid until reset.
func (b *blockBuilder) finish() []byte {
	for _, r := range b.restarts {
		b.buf = binary.LittleEndian.AppendUint32(b.buf, r)
	}
	b.buf = binary.LittleEndian.AppendUint32(b.buf, uint32(len(b.restarts)))
	return b.buf
}
