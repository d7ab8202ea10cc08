// Package sstcraft writes minimal LevelDB tables around a given filter
// block, so that a port whose filter block reader is reachable only through
// its table reader can still be asked FilterBlockReader.KeyMayMatch(offset,
// key).
//
// The table holds no data. Its index has one entry, keyed above every key
// the suite asks about, whose handle points at a "data block" at the
// offset in question; its metaindex names the filter block. A table reader
// that consults the filter before reading a data block (as upstream's
// Table::InternalGet does) asks the filter block about that offset and key,
// and reads the data block only when the filter says the key may match:
// the caller watches the reads (see Reads) to learn the answer.
//
// Layout, from offset 0 (each block followed by its 5-byte trailer: type 0
// and the masked CRC-32C of the contents and type):
//
//	+----------------+-----------------+-------------+--------------------+
//	| filter block   | metaindex block | index block | footer (48 bytes)  |
//	+----------------+-----------------+-------------+--------------------+
//	                   "filter."+name    0xff.. ->
//	                   -> filter handle  (offset, 1)
package sstcraft

import (
	"encoding/binary"
	"hash/crc32"
	"io"
	"sync"
)

const magic = 0xdb4775248b80fb57

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// IndexKey is the index entry's key: above every key of up to 1024 bytes
// under the bytewise comparator.
var IndexKey = func() []byte {
	k := make([]byte, 1024)
	for i := range k {
		k[i] = 0xff
	}
	return k
}()

func appendBlock(file, contents []byte) (out []byte, offset, size uint64) {
	offset, size = uint64(len(file)), uint64(len(contents))
	file = append(file, contents...)
	file = append(file, 0)
	c := crc32.Update(crc32.Checksum(contents, castagnoli), castagnoli, []byte{0})
	return binary.LittleEndian.AppendUint32(file, (c>>15|c<<17)+0xa282ead8), offset, size
}

// oneEntryBlock encodes a block of one entry: shared 0, key, value, one
// restart point at 0.
func oneEntryBlock(key, value []byte) []byte {
	var b []byte
	b = binary.AppendUvarint(b, 0)
	b = binary.AppendUvarint(b, uint64(len(key)))
	b = binary.AppendUvarint(b, uint64(len(value)))
	b = append(b, key...)
	b = append(b, value...)
	b = binary.LittleEndian.AppendUint32(b, 0)
	return binary.LittleEndian.AppendUint32(b, 1)
}

func handle(offset, size uint64) []byte {
	return binary.AppendUvarint(binary.AppendUvarint(nil, offset), size)
}

// Table returns a table whose filter block, named "filter."+policyName in
// the metaindex, is filterBlock and whose index points every key up to
// IndexKey at a 1-byte data block at dataOffset, which the table does not
// hold.
func Table(policyName string, filterBlock []byte, dataOffset uint64) []byte {
	file, fo, fs := appendBlock(nil, filterBlock)
	file, mo, ms := appendBlock(file, oneEntryBlock([]byte("filter."+policyName), handle(fo, fs)))
	file, xo, xs := appendBlock(file, oneEntryBlock(IndexKey, handle(dataOffset, 1)))
	footer := append(handle(mo, ms), handle(xo, xs)...)
	for len(footer) < 40 {
		footer = append(footer, 0)
	}
	footer = binary.LittleEndian.AppendUint64(footer, magic)
	return append(file, footer...)
}

// Reads is an io.ReaderAt over a table that counts the reads once Arm is
// called; each counted read fails.
type Reads struct {
	data  []byte
	mu    sync.Mutex
	armed bool
	n     int
}

// NewReads returns a reader over data.
func NewReads(data []byte) *Reads { return &Reads{data: data} }

// Size returns the table's length.
func (r *Reads) Size() int64 { return int64(len(r.data)) }

// Arm starts counting reads.
func (r *Reads) Arm() {
	r.mu.Lock()
	r.armed = true
	r.mu.Unlock()
}

// Count returns the reads since Arm.
func (r *Reads) Count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.n
}

// errDataBlock is what a counted read returns.
type errDataBlock struct{}

func (errDataBlock) Error() string { return "sstcraft: the data block is not in the table" }

// ReadAt reads from the table until Arm, then counts reads and fails them.
func (r *Reads) ReadAt(p []byte, off int64) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.armed {
		r.n++
		return 0, errDataBlock{}
	}
	if off < 0 || off >= int64(len(r.data)) {
		return 0, io.EOF
	}
	n := copy(p, r.data[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}
