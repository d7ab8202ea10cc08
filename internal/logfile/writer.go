package logfile

import (
	"encoding/binary"

	"github.com/ldbcompat/ldbcompat/internal/crc"
)

// Follows db/log_writer.cc: log::Writer on a new file (block offset 0).

// Writer writes records byte for byte as log::Writer::AddRecord does
// (doc.go); an empty record is a FULL fragment of length 0.
type Writer struct {
	buf         []byte
	blockOffset int // bytes of the current block written (block_offset_)
}

// NewWriter returns a writer of a new, empty log.
func NewWriter() *Writer { return &Writer{} }

// AddRecord appends rec to the log.
func (w *Writer) AddRecord(rec []byte) {
	begin := true
	// An empty record still takes one pass: a FULL fragment of length 0.
	for {
		if left := BlockSize - w.blockOffset; left < HeaderSize {
			// No room for a header: zero-fill the trailer, new block.
			w.buf = append(w.buf, make([]byte, left)...)
			w.blockOffset = 0
		}
		avail := BlockSize - w.blockOffset - HeaderSize
		n := min(len(rec), avail)
		end := n == len(rec)
		typ := TypeMiddle
		switch {
		case begin && end:
			typ = TypeFull
		case begin:
			typ = TypeFirst
		case end:
			typ = TypeLast
		}
		w.emit(byte(typ), rec[:n])
		rec = rec[n:]
		begin = false
		if end {
			return
		}
	}
}

// emit appends one physical record.
func (w *Writer) emit(typ byte, data []byte) {
	sum := crc.Mask(crc.Extend(crc.Value([]byte{typ}), data))
	w.buf = binary.LittleEndian.AppendUint32(w.buf, sum)
	w.buf = binary.LittleEndian.AppendUint16(w.buf, uint16(len(data)))
	w.buf = append(w.buf, typ)
	w.buf = append(w.buf, data...)
	w.blockOffset += HeaderSize + len(data)
}

// Bytes returns the log written so far; it is the writer's own buffer.
func (w *Writer) Bytes() []byte { return w.buf }

// WriteLog returns the log one Writer writes for records, in order.
func WriteLog(records [][]byte) []byte {
	w := NewWriter()
	for _, r := range records {
		w.AddRecord(r)
	}
	return w.Bytes()
}
