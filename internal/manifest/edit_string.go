package manifest

import (
	"encoding/binary"
	"fmt"
	"sort"
	"strings"
)

// A version edit as leveldbutil dump prints it (VersionEdit::DebugString).

// Edit is a decoded version edit, every field as the record holds it.
type Edit struct {
	// The pointers are nil when the edit does not set them.
	Comparator                                       *string
	LogNumber, PrevLogNumber, NextFile, LastSequence *uint64
	// CompactPointers hold Level and Smallest only.
	CompactPointers []File
	// Deleted (Level and Number only) and Added are in record order.
	Deleted, Added []File
}

// DecodeEdit decodes a MANIFEST record as VersionEdit::DecodeFrom does; its
// error's Status is upstream's.
func DecodeEdit(rec []byte) (*Edit, error) {
	e, err := decodeEdit(rec)
	if err != nil {
		return nil, &EditError{err: err.(*editError)}
	}
	return &Edit{Comparator: e.comparator, LogNumber: e.logNumber, PrevLogNumber: e.prevLogNumber, NextFile: e.nextFile,
		LastSequence: e.lastSequence, CompactPointers: e.compact, Deleted: e.deleted, Added: e.added}, nil
}

// EditError is a version edit DecodeFrom refuses.
type EditError struct{ err *editError }

func (e *EditError) Error() string { return e.err.Error() }

// Status is upstream's status for it.
func (e *EditError) Status() string { return "Corruption: VersionEdit: " + e.err.what }

// DebugString is VersionEdit::DebugString; removed files are sorted by
// level and number, once each (upstream keeps a set).
func (e *Edit) DebugString() string {
	var b strings.Builder
	b.WriteString("VersionEdit {")
	if e.Comparator != nil {
		b.WriteString("\n  Comparator: " + *e.Comparator)
	}
	for _, f := range []struct {
		name string
		v    *uint64
	}{{"LogNumber", e.LogNumber}, {"PrevLogNumber", e.PrevLogNumber}, {"NextFile", e.NextFile}, {"LastSeq", e.LastSequence}} {
		if f.v != nil {
			fmt.Fprintf(&b, "\n  %s: %d", f.name, *f.v)
		}
	}
	for _, c := range e.CompactPointers {
		fmt.Fprintf(&b, "\n  CompactPointer: %d %s", c.Level, internalKeyString(c.Smallest))
	}
	del := append([]File(nil), e.Deleted...)
	sort.Slice(del, func(i, j int) bool {
		return del[i].Level < del[j].Level || del[i].Level == del[j].Level && del[i].Number < del[j].Number
	})
	for i, f := range del {
		if i == 0 || f.Level != del[i-1].Level || f.Number != del[i-1].Number {
			fmt.Fprintf(&b, "\n  RemoveFile: %d %d", f.Level, f.Number)
		}
	}
	for _, f := range e.Added {
		fmt.Fprintf(&b, "\n  AddFile: %d %d %d %s .. %s", f.Level, f.Number, f.Size, internalKeyString(f.Smallest), internalKeyString(f.Largest))
	}
	b.WriteString("\n}\n")
	return b.String()
}

// internalKeyString is db/dbformat.cc InternalKey::DebugString, "(bad)"
// when ParseInternalKey refuses the key.
func internalKeyString(k []byte) string {
	if len(k) >= 8 {
		tag := binary.LittleEndian.Uint64(k[len(k)-8:])
		if typ := tag & 0xff; typ <= 1 {
			return fmt.Sprintf("'%s' @ %d : %d", escape(k[:len(k)-8]), tag>>8, typ)
		}
	}
	return "(bad)" + escape(k)
}

// escape is util/logging.cc EscapeString.
func escape(s []byte) string {
	var b strings.Builder
	for _, c := range s {
		if c >= ' ' && c <= '~' {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, `\x%02x`, c)
		}
	}
	return b.String()
}
