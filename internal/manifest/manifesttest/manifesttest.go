// Package manifesttest writes LevelDB MANIFEST files for tests, from
// db/log_writer.cc and db/version_edit.cc without package manifest, so the
// reader is checked against an independent writer.
package manifesttest

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
)

// Log format constants (db/log_format.h).
const (
	BlockSize  = 32768
	HeaderSize = 7

	TypeZero   = 0
	TypeFull   = 1
	TypeFirst  = 2
	TypeMiddle = 3
	TypeLast   = 4
)

// Version edit tags (db/version_edit.cc).
const (
	TagComparator     = 1
	TagLogNumber      = 2
	TagNextFileNumber = 3
	TagLastSequence   = 4
	TagCompactPointer = 5
	TagDeletedFile    = 6
	TagNewFile        = 7
	TagPrevLogNumber  = 9
)

// Log builds a log file as upstream's log::Writer does: records fragmented
// at 32 KiB block boundaries, a block's last < 7 bytes zero-filled.
type Log struct {
	buf bytes.Buffer
	// Offsets holds the file offset of each record's first header.
	Offsets []int
}

// Bytes returns the log written so far.
func (w *Log) Bytes() []byte { return w.buf.Bytes() }

// Len returns the number of bytes written so far.
func (w *Log) Len() int { return w.buf.Len() }

// Write appends raw bytes, such as zeros, to the log.
func (w *Log) Write(b []byte) { w.buf.Write(b) }

// Add appends one logical record, fragmented as needed.
func (w *Log) Add(rec []byte) {
	w.Offsets = append(w.Offsets, w.buf.Len())
	first := true
	for {
		left := BlockSize - w.buf.Len()%BlockSize
		if left < HeaderSize {
			w.buf.Write(make([]byte, left))
			left = BlockSize
		}
		n := min(len(rec), left-HeaderSize)
		last := n == len(rec)
		typ := byte(TypeMiddle)
		switch {
		case first && last:
			typ = TypeFull
		case first:
			typ = TypeFirst
		case last:
			typ = TypeLast
		}
		w.Physical(typ, rec[:n])
		rec = rec[n:]
		first = false
		if last {
			return
		}
	}
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Checksum is the masked crc32c of a physical record's type and data.
func Checksum(typ byte, data []byte) uint32 {
	c := crc32.Update(0, castagnoli, []byte{typ})
	c = crc32.Update(c, castagnoli, data)
	return (c>>15 | c<<17) + 0xa282ead8 // util/crc32c.h Mask
}

// Physical appends one checksummed record of type typ, ignoring blocks.
func (w *Log) Physical(typ byte, data []byte) {
	var h [HeaderSize]byte
	binary.LittleEndian.PutUint32(h[0:], Checksum(typ, data))
	binary.LittleEndian.PutUint16(h[4:], uint16(len(data)))
	h[6] = typ
	w.buf.Write(h[:])
	w.buf.Write(data)
}

// Edit encodes a VersionEdit field by field.
type Edit struct{ B []byte }

// U appends a varint.
func (e *Edit) U(v uint64) *Edit { e.B = binary.AppendUvarint(e.B, v); return e }

// S appends a length-prefixed string.
func (e *Edit) S(s string) *Edit { e.U(uint64(len(s))); e.B = append(e.B, s...); return e }

// Comparator appends the comparator's name.
func (e *Edit) Comparator(name string) *Edit { return e.U(TagComparator).S(name) }

// NewFile appends a table added at level.
func (e *Edit) NewFile(level int, num, size uint64, smallest, largest string) *Edit {
	return e.U(TagNewFile).U(uint64(level)).U(num).U(size).S(smallest).S(largest)
}

// CompactPointer appends a level's compaction pointer (an internal key).
func (e *Edit) CompactPointer(level int, key string) *Edit {
	return e.U(TagCompactPointer).U(uint64(level)).S(key)
}

// Deleted appends a table removed from level.
func (e *Edit) Deleted(level int, num uint64) *Edit {
	return e.U(TagDeletedFile).U(uint64(level)).U(num)
}

// Counters appends the counters every MANIFEST's first edits hold.
func (e *Edit) Counters(log, next, seq uint64) *Edit {
	return e.U(TagLogNumber).U(log).U(TagPrevLogNumber).U(0).U(TagNextFileNumber).U(next).U(TagLastSequence).U(seq)
}

// InternalKey is a user key and the LE tag sequence<<8 | 1 (a value).
func InternalKey(user string, seq uint64) string {
	return user + string(binary.LittleEndian.AppendUint64(nil, seq<<8|1))
}

// Table is a live table for WriteDB.
type Table struct {
	Level  int
	Number uint64
	Size   uint64
	// Smallest and Largest bound the user keys Get looks for (empty: "a"
	// at sequence 1, "z" at 2).
	Smallest, Largest string
	// LastSequence is the table's largest sequence; the MANIFEST's is the
	// largest of these, or 100.
	LastSequence uint64
}

// WriteDB writes dir/CURRENT naming MANIFEST-<number> and that MANIFEST,
// whose one version edit after the comparator makes tables live.
func WriteDB(dir string, number uint64, tables ...Table) error {
	var w Log
	w.Add(new(Edit).Comparator("leveldb.BytewiseComparator").B)
	seq := uint64(100)
	for _, t := range tables {
		seq = max(seq, t.LastSequence)
	}
	e := new(Edit).Counters(number+1, number+1000, seq)
	for _, t := range tables {
		smallest, largest := t.Smallest, t.Largest
		if smallest == "" && largest == "" {
			smallest, largest = InternalKey("a", 1), InternalKey("z", 2)
		}
		e.NewFile(t.Level, t.Number, t.Size, smallest, largest)
	}
	w.Add(e.B)
	name := fmt.Sprintf("MANIFEST-%06d", number)
	if err := os.WriteFile(filepath.Join(dir, name), w.Bytes(), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "CURRENT"), []byte(name+"\n"), 0o644)
}
