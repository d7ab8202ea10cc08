package manifest

import (
	"fmt"

	"github.com/ldbcompat/ldbcompat/internal/base"
)

// NumLevels is LevelDB's number of levels (config::kNumLevels).
const NumLevels = 7

// Version edit tags (db/version_edit.cc).
const (
	tagComparator     = 1
	tagLogNumber      = 2
	tagNextFileNumber = 3
	tagLastSequence   = 4
	tagCompactPointer = 5
	tagDeletedFile    = 6
	tagNewFile        = 7
	tagPrevLogNumber  = 9
)

// edit is a decoded VersionEdit: what the current version needs of it.
type edit struct {
	comparator                                       *string
	logNumber, prevLogNumber, nextFile, lastSequence *uint64
	compact                                          []File // Level and Smallest (the key) only
	deleted                                          []File // Level and Number only
	added                                            []File
}

// editError is a VersionEdit DecodeFrom refuses, at byte at: what is
// upstream's message ("new-file entry", "unknown tag", "invalid tag", ...).
type editError struct {
	at   int
	what string
	tag  uint64 // the unknown tag
}

func (e *editError) Error() string {
	switch e.what {
	case "unknown tag":
		return fmt.Sprintf("byte %d: unknown tag %d", e.at, e.tag)
	case "invalid tag":
		return fmt.Sprintf("byte %d: invalid tag", e.at)
	}
	return fmt.Sprintf("byte %d: invalid %s", e.at, e.what)
}

// decodeEdit decodes a VersionEdit as DecodeFrom does.
func decodeEdit(b []byte) (*edit, error) {
	e := &edit{}
	d := decoder{b: b}
	for len(d.b) > 0 {
		at := len(b) - len(d.b)
		tag, ok := d.varint(32)
		if !ok {
			return nil, &editError{at: at, what: "invalid tag"}
		}
		var what string
		switch tag {
		case tagComparator:
			s, ok := d.bytes()
			if !ok {
				what = "comparator name"
				break
			}
			name := string(s)
			e.comparator = &name
		case tagLogNumber, tagNextFileNumber, tagLastSequence, tagPrevLogNumber:
			v, ok := d.varint(64)
			if !ok {
				what = map[uint64]string{tagLogNumber: "log number", tagNextFileNumber: "next file number",
					tagLastSequence: "last sequence number", tagPrevLogNumber: "previous log number"}[tag]
				break
			}
			p := map[uint64]**uint64{tagLogNumber: &e.logNumber, tagNextFileNumber: &e.nextFile,
				tagLastSequence: &e.lastSequence, tagPrevLogNumber: &e.prevLogNumber}[tag]
			*p = &v
		case tagCompactPointer:
			if level, ok := d.level(); !ok {
				what = "compaction pointer"
			} else if key, ok := d.internalKey(); !ok {
				what = "compaction pointer"
			} else {
				e.compact = append(e.compact, File{Level: level, Smallest: key})
			}
		case tagDeletedFile:
			level, ok1 := d.level()
			num, ok2 := d.varint(64)
			if !ok1 || !ok2 {
				what = "deleted file"
				break
			}
			e.deleted = append(e.deleted, File{Level: level, Number: num})
		case tagNewFile:
			var f File
			var ok bool
			if f.Level, ok = d.level(); ok {
				if f.Number, ok = d.varint(64); ok {
					if f.Size, ok = d.varint(64); ok {
						if f.Smallest, ok = d.internalKey(); ok {
							f.Largest, ok = d.internalKey()
						}
					}
				}
			}
			if !ok {
				what = "new-file entry"
				break
			}
			e.added = append(e.added, f)
		default:
			return nil, &editError{at: at, what: "unknown tag", tag: tag}
		}
		if what != "" {
			return nil, &editError{at: at, what: what}
		}
	}
	return e, nil
}

// decoder reads LevelDB's varints and length-prefixed strings from b.
type decoder struct{ b []byte }

// varint is GetVarint32 or GetVarint64, by bits.
func (d *decoder) varint(bits uint) (uint64, bool) {
	var v uint64
	var n int
	if bits == 32 {
		var v32 uint32
		v32, n = base.DecodeVarint32(d.b)
		v = uint64(v32)
	} else {
		v, n = base.DecodeVarint64(d.b)
	}
	if n == 0 {
		return 0, false
	}
	d.b = d.b[n:]
	return v, true
}

// bytes is GetLengthPrefixedSlice.
func (d *decoder) bytes() ([]byte, bool) {
	s, n := base.DecodeLengthPrefixed(d.b)
	if n == 0 {
		return nil, false
	}
	d.b = d.b[n:]
	return s, true
}

// level reads a varint32 level below NumLevels.
func (d *decoder) level() (int, bool) {
	v, ok := d.varint(32)
	if !ok || v >= NumLevels {
		return 0, false
	}
	return int(v), true
}

// internalKey reads a length-prefixed, non-empty internal key.
func (d *decoder) internalKey() ([]byte, bool) {
	s, ok := d.bytes()
	if !ok || len(s) == 0 {
		return nil, false
	}
	return s, true
}
