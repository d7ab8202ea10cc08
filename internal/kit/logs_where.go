package kit

import (
	"encoding/binary"
	"fmt"

	"github.com/ldbcompat/ldbcompat/internal/cases"
	"github.com/ldbcompat/ldbcompat/internal/logfile"
)

// logTypeNames name the physical record types.
var logTypeNames = map[byte]string{
	logfile.TypeZero: "zero", logfile.TypeFull: "FULL", logfile.TypeFirst: "FIRST",
	logfile.TypeMiddle: "MIDDLE", logfile.TypeLast: "LAST",
}

func logTypeName(t byte) string {
	if n, ok := logTypeNames[t]; ok {
		return n
	}
	return fmt.Sprintf("type %d", t)
}

// whereLogDiffers names the block, offset and field of upstream's log
// want where got, the port's, first differs from it.
func whereLogDiffers(want, got []byte) string {
	i := 0
	for i < len(want) && i < len(got) && want[i] == got[i] {
		i++
	}
	pos := fmt.Sprintf("block %d, offset %d (file offset %d)", i/logfile.BlockSize, i%logfile.BlockSize, i)
	if i == len(want) {
		return fmt.Sprintf("%s: upstream's log ends there; the port's goes on for %d more bytes", pos, len(got)-i)
	}
	field := logField(want, i)
	if i == len(got) {
		return fmt.Sprintf("%s, %s: the port's log ends there, %d bytes short of upstream's", pos, field, len(want)-i)
	}
	return fmt.Sprintf("%s, %s: upstream 0x%02x, port 0x%02x", pos, field, want[i], got[i])
}

// logField names the field of the clean log at byte i: a field of a
// physical record's header, its data, or a block's trailer.
func logField(log []byte, i int) string {
	rec, end := 0, 0 // end: where the previous physical record ends
	trailer := func() string {
		blockEnd := (i/logfile.BlockSize + 1) * logfile.BlockSize
		return fmt.Sprintf("the trailer padding of the block (its last %d bytes, too few for a header, which upstream zero-fills)", blockEnd-end)
	}
	for n, h := range cases.LogFragments(log) {
		if i < h {
			return trailer()
		}
		typ := log[h+6]
		length := int(binary.LittleEndian.Uint16(log[h+4:]))
		if i < h+logfile.HeaderSize+length {
			frag := fmt.Sprintf("physical record %d (%s, length %d, of logical record %d)", n, logTypeName(typ), length, rec)
			switch off := i - h; {
			case off < 4:
				return "the header checksum of " + frag
			case off < 6:
				return "the length of " + frag
			case off == 6:
				return "the type of " + frag
			default:
				return fmt.Sprintf("byte %d of the payload of %s", off-logfile.HeaderSize, frag)
			}
		}
		if typ == logfile.TypeFull || typ == logfile.TypeLast {
			rec++
		}
		end = h + logfile.HeaderSize + length
	}
	return trailer()
}
