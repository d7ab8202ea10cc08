package table

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/ldbcompat/ldbcompat/internal/base"
	"github.com/ldbcompat/ldbcompat/internal/crc"
)

// Blocks whose checksums do not match, and what a single flipped bit in
// one hits. table/format.cc ReadBlock compares the checksum only with
// verify_checksums; under LevelDB's default options upstream decodes a
// damaged block as it is, and this tells what it then reads wrong.

// ChecksumFailure is a block read whose stored checksum does not match its
// contents and compression type.
type ChecksumFailure struct {
	// What names the block: "data block 3", "index block",
	// "metaindex block" or "filter block".
	What   string
	Handle BlockHandle
	// Stored is the masked CRC-32C in the block's trailer, Computed the
	// one its contents and type byte have.
	Stored, Computed uint32
	// Flip is the one flipped bit that explains the mismatch, when one
	// does (crc.FindBitFlip over the contents and the type byte), else
	// nil; Site then says what it hits.
	Flip *crc.BitFlip
	Site *FlipSite
}

// FlipField is the part of a block that a flipped bit lies in.
type FlipField int

// The parts of a block a flipped bit can hit.
const (
	// FlipUnknown: a byte of the contents outside any entry that decodes
	// (the block, with the bit restored, does not parse there), or of a
	// block whose contents are not entries (the filter block).
	FlipUnknown FlipField = iota
	// FlipChecksum: the stored checksum itself. The block is intact:
	// upstream under its default options reads it right.
	FlipChecksum
	// FlipType: the compression type byte of the trailer.
	FlipType
	// FlipCompressed: the stored bytes of a snappy-compressed block.
	FlipCompressed
	// FlipShared, FlipNonShared and FlipValueLen: the varint lengths
	// that start an entry.
	FlipShared
	FlipNonShared
	FlipValueLen
	// FlipKey and FlipValue: an entry's stored key bytes (after those
	// it shares) and its value.
	FlipKey
	FlipValue
	// FlipRestart: an offset in the restart array.
	FlipRestart
	// FlipRestartCount: the restart count that ends the block.
	FlipRestartCount
)

var flipFieldNames = [...]string{
	FlipUnknown: "contents", FlipChecksum: "stored checksum", FlipType: "compression type byte",
	FlipCompressed: "compressed bytes", FlipShared: "shared key length", FlipNonShared: "non-shared key length",
	FlipValueLen: "value length", FlipKey: "key bytes", FlipValue: "value bytes",
	FlipRestart: "restart array", FlipRestartCount: "restart count",
}

// String names the field: "value bytes", "stored checksum", ...
func (f FlipField) String() string {
	if f >= 0 && int(f) < len(flipFieldNames) {
		return flipFieldNames[f]
	}
	return fmt.Sprintf("FlipField(%d)", int(f))
}

// FlipSite is where a flipped bit lies in a block and what it hits.
type FlipSite struct {
	// Offset is the file offset of the byte holding the bit, and Bit
	// the bit (0 is the least significant).
	Offset uint64
	Bit    int
	Field  FlipField
	// Pos is the byte's position in the block's stored contents (in its
	// trailer for FlipType and FlipChecksum: 0 for the type byte, 1 to 4
	// for the checksum's bytes).
	Pos int
	// Entry is the index in the block of the entry whose field it is
	// (FlipShared to FlipValue), else -1; Key is that entry's key as
	// written (the bit restored), whole.
	Entry int
	Key   []byte
	// Restart is the index of the restart point, for FlipRestart, else -1.
	Restart int
}

// ChecksumFailures returns the blocks read so far (by the open, scans,
// LookupFilter and Get) whose checksums do not match, each once, in the
// order first read. Reading with Options.SkipChecksums, upstream uses
// these blocks as they are; otherwise each read of one failed with
// "Corruption: block checksum mismatch" (an index block's fails the open,
// so it is never listed). The caller must not modify them.
func (t *Table) ChecksumFailures() []ChecksumFailure {
	t.failMu.Lock()
	defer t.failMu.Unlock()
	return slices.Clip(t.failures)
}

// noteChecksumFailure records that the block what at h, whose contents and
// type byte are stored, has the checksum computed instead of stored.
func (t *Table) noteChecksumFailure(what blockName, h BlockHandle, stored []byte, storedSum, computed uint32) {
	if what.kind == "data block" && what.n < 0 {
		// Get reads a data block by its handle: name it by its index
		// entry, the first with that handle.
		for i := range t.index {
			if e := &t.index[i]; e.HandleOK && e.Handle == h {
				what.n = i
				break
			}
		}
	}
	name := what.String()
	t.failMu.Lock()
	defer t.failMu.Unlock()
	for _, f := range t.failures {
		if f.Handle == h && f.What == name {
			return
		}
	}
	f := ChecksumFailure{What: name, Handle: h, Stored: storedSum, Computed: computed}
	if flip, ok := crc.FindBitFlip(stored, storedSum); ok {
		f.Flip = &flip
		f.Site = locateFlip(what.kind, h, stored, flip)
	}
	t.failures = append(t.failures, f)
}

// locateFlip says what the flipped bit flip hits in the block of kind at
// h, whose stored contents and type byte are stored.
func locateFlip(kind string, h BlockHandle, stored []byte, flip crc.BitFlip) *FlipSite {
	n := len(stored) - 1
	s := &FlipSite{Bit: flip.Bit, Pos: flip.Byte, Entry: -1, Restart: -1}
	switch {
	case flip.InChecksum:
		s.Field, s.Pos = FlipChecksum, 1+flip.Byte
		s.Offset = h.Offset + uint64(n) + 1 + uint64(flip.Byte)
		return s
	case flip.Byte == n:
		s.Field, s.Pos, s.Offset = FlipType, 0, h.Offset+uint64(n)
		return s
	}
	s.Offset = h.Offset + uint64(flip.Byte)
	switch {
	case stored[n] == SnappyCompression:
		s.Field = FlipCompressed
	case stored[n] != NoCompression || kind == "filter block":
		s.Field = FlipUnknown
	default:
		// The block as written: the bit restored.
		c := bytes.Clone(stored[:n])
		c[flip.Byte] ^= 1 << flip.Bit
		s.Field, s.Entry, s.Key, s.Restart = locateInBlock(c, flip.Byte)
	}
	return s
}

// locateInBlock says which field of the block c (decompressed contents)
// byte p lies in: the restart count, a restart point, or a field of an
// entry, whose index and key it returns. Entries are read in order from
// the block's start, as BlockBuilder writes them; where they stop
// decoding before p, the field is FlipUnknown.
func locateInBlock(c []byte, p int) (field FlipField, entry int, key []byte, restart int) {
	if len(c) < 4 {
		return FlipUnknown, -1, nil, -1
	}
	if p >= len(c)-4 {
		return FlipRestartCount, -1, nil, -1
	}
	num := uint64(binary.LittleEndian.Uint32(c[len(c)-4:]))
	if num > uint64(len(c)-4)/4 {
		return FlipUnknown, -1, nil, -1
	}
	restarts := len(c) - 4 - 4*int(num)
	if p >= restarts {
		return FlipRestart, -1, nil, (p - restarts) / 4
	}
	var k []byte
	for i, off := 0, 0; off < restarts; i++ {
		at := off
		var lens [3]uint32
		var ends [3]int
		for j := range lens {
			v, m := base.DecodeVarint32(c[at:restarts])
			if m == 0 {
				return FlipUnknown, -1, nil, -1
			}
			lens[j], at = v, at+m
			ends[j] = at
		}
		shared, nonShared, valueLen := lens[0], lens[1], lens[2]
		if uint64(shared) > uint64(len(k)) || uint64(nonShared)+uint64(valueLen) > uint64(restarts-at) {
			return FlipUnknown, -1, nil, -1
		}
		k = append(k[:shared], c[at:at+int(nonShared)]...)
		keyEnd := at + int(nonShared)
		next := keyEnd + int(valueLen)
		if p < next {
			switch {
			case p < ends[0]:
				field = FlipShared
			case p < ends[1]:
				field = FlipNonShared
			case p < ends[2]:
				field = FlipValueLen
			case p < keyEnd:
				field = FlipKey
			default:
				field = FlipValue
			}
			return field, i, bytes.Clone(k), -1
		}
		off = next
	}
	return FlipUnknown, -1, nil, -1
}
