package logfile

import (
	"bytes"
	"encoding/binary"

	"github.com/ldbcompat/ldbcompat/internal/crc"
)

// What damage hides beyond upstream's report: a flipped bit explaining it,
// and the records in it (by following lengths and checksums, else scanning
// for a verifying header). The work budget grows with the bytes read, so
// hostile input stays linear; past it counts are lower bounds (AtLeast).

const (
	diagnosisBase    = 4 << 20 // bytes of checksum work allowed at the start
	diagnosisPerByte = 32      // and for each byte read
)

// isStart tells whether type typ begins a logical record.
func isStart(typ int) bool { return typ == TypeFull || typ == TypeFirst }

// spend takes n bytes of checksum work, false when the budget is spent.
func (r *Reader) spend(n int) bool {
	if r.budget < int64(n) {
		return false
	}
	r.budget -= int64(n)
	return true
}

// verifies tells whether b starts with a record of type 1 to 6 that fits
// and checks; ok is false when the budget is spent.
func (r *Reader) verifies(b []byte) (match, ok bool) {
	if len(b) < HeaderSize {
		return false, true
	}
	typ, length := b[6], int(binary.LittleEndian.Uint16(b[4:6]))
	if typ == TypeZero || typ > TypeBad || HeaderSize+length > len(b) {
		return false, true
	}
	if !r.spend(1 + length) {
		return false, false
	}
	return crc.Mask(crc.Value(b[6:HeaderSize+length])) == binary.LittleEndian.Uint32(b[0:4]), true
}

// diagnose fills d's Flip, Records and AtLeast for a "checksum mismatch" or
// "bad record length" drop of region (the rest of the block).
func (r *Reader) diagnose(d *Drop, region []byte) {
	if r.opts.NoDiagnosis {
		d.AtLeast = true
		return
	}
	typ, length := int(region[6]), int(binary.LittleEndian.Uint16(region[4:6]))
	next := 1 // where counting goes on; 1: scan from the next byte
	if f, ok := r.findFlip(region, d.Offset); ok {
		d.Flip = &f
		if isStart(f.Type) {
			d.Records = 1
		}
		next = HeaderSize + f.Length
	} else if end := HeaderSize + length; typ >= TypeFull && typ <= TypeLast && end <= len(region) {
		// Several bits damaged: trust the length if the chain goes on.
		if rest := len(region) - end; rest < HeaderSize && allZero(region[end:]) {
			next = end
		} else if m, ok := r.verifies(region[end:]); m && ok {
			next = end
		}
		if next == end && isStart(typ) {
			d.Records = 1
		}
		d.AtLeast = true
	} else {
		d.AtLeast = true
	}
	n, atLeast := r.count(region, next)
	d.Records += n
	d.AtLeast = d.AtLeast || atLeast
}

// findFlip looks for one flipped bit explaining the record at region's
// start (offset off): in type, data or checksum (crc.FindBitFlip), or in
// the length, which the checksum does not cover.
func (r *Reader) findFlip(region []byte, off int64) (Flip, bool) {
	stored := binary.LittleEndian.Uint32(region[0:4])
	typ, length := int(region[6]), int(binary.LittleEndian.Uint16(region[4:6]))
	if end := HeaderSize + length; end <= len(region) && r.spend(8*(1+length)) {
		// FindBitFlip steps bit by bit: charged as 8 bytes a byte.
		if f, ok := crc.FindBitFlip(region[6:end], stored); ok {
			switch {
			case f.InChecksum:
				return Flip{Field: FlipChecksum, Offset: off + int64(f.Byte), Bit: f.Bit, Type: typ, Length: length}, true
			case f.Byte == 0:
				return Flip{Field: FlipType, Offset: off + 6, Bit: f.Bit, Type: typ ^ 1<<f.Bit, Length: length}, true
			default:
				return Flip{Field: FlipData, Offset: off + 6 + int64(f.Byte), Bit: f.Bit, Type: typ, Length: length}, true
			}
		}
	}
	for b := 0; b < 16; b++ {
		l := length ^ 1<<b
		if HeaderSize+l > len(region) || !r.spend(1+l) {
			continue
		}
		if crc.Mask(crc.Value(region[6:HeaderSize+l])) == stored {
			return Flip{Field: FlipLength, Offset: off + 4 + int64(b/8), Bit: b % 8, Type: typ, Length: l}, true
		}
	}
	return Flip{}, false
}

// count returns the logical records (verifying FULL and FIRST records,
// followed by lengths, else by scanning for a header of type 1 to 4) that
// begin in region from pos; atLeast: non-zero bytes unexplained, or the
// budget ran out.
func (r *Reader) count(region []byte, pos int) (n int, atLeast bool) {
	for pos+HeaderSize <= len(region) {
		match, ok := r.verifies(region[pos:])
		if !ok {
			return n, true
		}
		if match {
			if isStart(int(region[pos+6])) {
				n++
			}
			pos += HeaderSize + int(binary.LittleEndian.Uint16(region[pos+4:pos+6]))
			continue
		}
		// The chain breaks here: scan for the next record.
		from := pos
		for pos++; pos+HeaderSize <= len(region); pos++ {
			if t := region[pos+6]; t < TypeFull || t > TypeLast {
				continue
			}
			match, ok := r.verifies(region[pos:])
			if !ok {
				return n, true
			}
			if match {
				break
			}
		}
		if !allZero(region[from:min(pos, len(region))]) {
			atLeast = true
		}
	}
	if !allZero(region[min(pos, len(region)):]) {
		atLeast = true // a block's trailer is zeros
	}
	return n, atLeast
}

// zeroBlock is a block of zeros, for allZero to compare with.
var zeroBlock [BlockSize]byte

// allZero tells whether b is all zeros, a block at a time (sparse holes
// are gigabytes of them).
func allZero(b []byte) bool {
	for len(b) > 0 {
		n := min(len(b), BlockSize)
		if !bytes.Equal(b[:n], zeroBlock[:n]) {
			return false
		}
		b = b[n:]
	}
	return true
}

// diagnoseTorn counts the records lost with r.torn: itself (unless it
// continues a pending record) or what a flipped length bit hides
// (End.Flip), then the records that verify after it.
func (r *Reader) diagnoseTorn() {
	e, region := &r.ended, r.torn
	r.torn = nil
	if r.opts.NoDiagnosis {
		if e.Pending < 0 {
			e.Records++
		}
		return
	}
	next := 1
	if f, ok := r.findFlip(region, e.Offset); ok {
		e.Flip = &f
		if isStart(f.Type) {
			e.Records++
		}
		next = HeaderSize + f.Length
	} else if e.Pending < 0 {
		e.Records++
	}
	// Only a flip's explanation says more may be lost.
	n, atLeast := r.count(region, next)
	e.Records += n
	e.AtLeast = e.AtLeast || (e.Flip != nil && atLeast)
}

// diagnoseZero counts the records lost in a block's rest skipped after a
// zero header (region); one with a non-zero checksum is looked at for a
// flipped bit.
func (r *Reader) diagnoseZero(s *Skip, region []byte) {
	if r.opts.NoDiagnosis {
		s.AtLeast = !allZero(region)
		return
	}
	next := HeaderSize
	if !allZero(region[:4]) {
		if f, ok := r.findFlip(region, s.Offset); ok {
			s.Flip = &f
			if isStart(f.Type) {
				s.Records++
			}
			next = HeaderSize + f.Length
		}
	}
	n, atLeast := r.count(region, next)
	s.Records += n
	s.AtLeast = atLeast
}
