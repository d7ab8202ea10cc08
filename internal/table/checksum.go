package table

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/ldbcompat/ldbcompat/internal/base"
	"github.com/ldbcompat/ldbcompat/internal/crc"
)

// Checksum mismatches and what a flipped bit hits: under default options
// table/format.cc ReadBlock skips the check and decodes a damaged block.

// ChecksumFailure is a block read whose stored checksum does not match.
type ChecksumFailure struct {
	// What names the block: "data block 3", "filter block", ...
	What   string
	Handle BlockHandle
	// Stored is the trailer's masked CRC-32C, Computed the contents'.
	Stored, Computed uint32
	// Flip is the one flipped bit explaining it (crc.FindBitFlip), or nil;
	// Site says what it hits.
	Flip *crc.BitFlip
	Site *FlipSite
}

// FlipField is the part of a block that a flipped bit lies in.
type FlipField int

// The parts of a block a flipped bit can hit.
const (
	// FlipUnknown: outside any entry that decodes, or in a filter block.
	FlipUnknown FlipField = iota
	// FlipChecksum: the stored checksum; the block itself is intact.
	FlipChecksum
	// FlipType: the compression type byte of the trailer.
	FlipType
	// FlipCompressed: the stored bytes of a snappy-compressed block.
	FlipCompressed
	// FlipShared, FlipNonShared and FlipValueLen: an entry's lengths.
	FlipShared
	FlipNonShared
	FlipValueLen
	// FlipKey and FlipValue: an entry's unshared key bytes and value.
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
	// Offset is the byte's file offset, Bit the bit (0 least significant).
	Offset uint64
	Bit    int
	Field  FlipField
	// Pos is the byte's position in the stored contents (for FlipType and
	// FlipChecksum, in the trailer: 0 type, 1-4 checksum).
	Pos int
	// Entry is the entry's index (FlipShared to FlipValue, else -1), Key
	// its whole key with the bit restored.
	Entry int
	Key   []byte
	// Restart is the index of the restart point, for FlipRestart, else -1.
	Restart int
}

// ChecksumFailures returns the blocks read so far whose checksums do not
// match, once each, in order. With Options.SkipChecksums upstream uses
// them as they are; otherwise each read failed (an index block's fails
// the open, so is never listed). Do not modify them.
func (t *Table) ChecksumFailures() []ChecksumFailure {
	t.failMu.Lock()
	defer t.failMu.Unlock()
	return slices.Clip(t.failures)
}

// noteChecksumFailure records block what at h's mismatch.
func (t *Table) noteChecksumFailure(what blockName, h BlockHandle, stored []byte, storedSum, computed uint32) {
	if what.kind == "data block" && what.n < 0 {
		// Get reads by handle: name it by the first index entry with it.
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

// locateFlip says what flip hits in the block of kind at h.
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

// locateInBlock says which field of decompressed block c byte p lies in,
// reading entries in order as BlockBuilder writes them (FlipUnknown past
// where they stop decoding).
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
