package manifest

import (
	"encoding/binary"
	"fmt"
	"runtime"

	"github.com/ldbcompat/ldbcompat/internal/base"
	"github.com/ldbcompat/ldbcompat/internal/crc"
)

// The MANIFEST is a log file: db/log_format.h defines its blocks and
// records (drawn in doc.go), db/log_reader.cc reads them (records).

// Log format constants (db/log_format.h).
const (
	BlockSize  = 32768
	HeaderSize = 7

	typeZero   = 0
	typeFull   = 1
	typeFirst  = 2
	typeMiddle = 3
	typeLast   = 4

	// log::Reader's own codes (db/log_reader.h), which ReadRecord also
	// takes from a physical record of that type.
	typeReaderEOF = 5 // kEof
	typeReaderBad = 6 // kBadRecord
)

// records calls fn with each logical record in the log data and the file
// offset of its first fragment's header. It follows upstream's log::Reader
// (db/log_reader.cc) with checksums, as VersionSet::Recover uses it: the
// first corruption the reader reports is the error, and Recover stops
// there; what the reader drops silently (a record cut short by the end of
// the file, preallocated zeros, a physical record of type 6 outside a
// fragmented record) is skipped, and a physical record of type 5, which
// the reader takes for its own end-of-file marker, ends the log.
func records(name string, data []byte, fn func(off int64, rec []byte) error) error {
	var (
		rec      []byte
		recStart int64 = -1 // offset of the pending FIRST fragment, or -1
	)
	corrupt := func(off int, status, format string, args ...any) error {
		return &base.Error{Type: base.DescriptorFile, File: name, Offset: int64(off), Msg: fmt.Sprintf(format, args...), Status: "Corruption: " + status}
	}
	for off := 0; off < len(data); {
		blockEnd := off - off%BlockSize + BlockSize
		full := blockEnd <= len(data) // the file holds the whole block
		avail := min(blockEnd, len(data)) - off
		if avail < HeaderSize {
			if !full {
				return nil // a header cut short: being written
			}
			off = blockEnd // the block's trailer, skipped unread
			continue
		}
		h := data[off : off+HeaderSize]
		n := int(binary.LittleEndian.Uint16(h[4:6]))
		typ := h[6]
		if HeaderSize+n > avail {
			if !full {
				return nil // a record cut short: being written
			}
			return corrupt(off, "bad record length", "bad record length: %d bytes run past the 32 KiB block", n)
		}
		payload := data[off+HeaderSize : off+HeaderSize+n]
		if typ == typeZero && n == 0 {
			// Preallocated space: upstream skips the rest of the block,
			// which breaks a fragmented record.
			if recStart >= 0 {
				return corrupt(off, "error in middle of record", "error in middle of record (from offset %d)", recStart)
			}
			off = blockEnd
			continue
		}
		want := binary.LittleEndian.Uint32(h[0:4])
		if got := crc.Mask(crc.Extend(crc.Value([]byte{typ}), payload)); got != want {
			return corrupt(off, "checksum mismatch", "record checksum mismatch (stored %#08x, computed %#08x)", want, got)
		}
		start := off
		off += HeaderSize + n
		switch typ {
		case typeFull, typeFirst:
			// An unfinished record with data is corruption; an empty
			// FIRST fragment (written by old versions) is not.
			if recStart >= 0 && len(rec) > 0 {
				which := map[byte]string{typeFull: "(1)", typeFirst: "(2)"}[typ]
				return corrupt(start, "partial record without end"+which, "partial record without end (from offset %d)", recStart)
			}
			recStart = -1
			if typ == typeFull {
				if err := fn(int64(start), payload); err != nil {
					return err
				}
				continue
			}
			rec = append(rec[:0], payload...)
			recStart = int64(start)
		case typeMiddle, typeLast:
			if recStart < 0 {
				which := map[byte]string{typeMiddle: "(1)", typeLast: "(2)"}[typ]
				return corrupt(start, "missing start of fragmented record"+which, "missing start of fragmented record (%s fragment)", fragmentName(typ))
			}
			rec = append(rec, payload...)
			if typ == typeLast {
				if err := fn(recStart, rec); err != nil {
					return err
				}
				recStart = -1
			}
		case typeReaderEOF:
			// ReadRecord's kEof: the log ends here, a pending
			// fragmented record dropped.
			return nil
		case typeReaderBad:
			// ReadRecord's kBadRecord: skipped, unless it breaks a
			// fragmented record.
			if recStart >= 0 {
				return corrupt(start, "error in middle of record", "error in middle of record (from offset %d)", recStart)
			}
		default:
			// header[6] is a plain char, read into an unsigned int:
			// signed on x86, where types from 128 print as 4294967168
			// and up.
			shown := uint32(typ)
			if runtime.GOARCH == "amd64" || runtime.GOARCH == "386" {
				shown = uint32(int32(int8(typ)))
			}
			return corrupt(start, fmt.Sprintf("unknown record type %d", shown), "unknown record type %d", typ)
		}
	}
	return nil
}

func fragmentName(typ byte) string {
	if typ == typeMiddle {
		return "MIDDLE"
	}
	return "LAST"
}
