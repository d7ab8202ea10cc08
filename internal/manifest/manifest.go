// Package manifest reads which tables make up a LevelDB database: the
// CURRENT file, the MANIFEST it names, and the version edits in it. It is
// read-only, like package table, and takes no lock: LevelDB may be running.
//
// # CURRENT
//
// The name of the MANIFEST, such as "MANIFEST-000002", and a newline.
//
// # The MANIFEST: a log file (db/log_format.h)
//
// The file is a sequence of 32 KiB blocks (the last one may be short).
// Each block holds records; a record never starts in the last 6 bytes of a
// block, which are zero-filled instead:
//
//	+---------------------------+------------------+----------+----------------+
//	| masked crc32c (LE u32)    | length (LE u16)  | type (1) | data (length)  |
//	+---------------------------+------------------+----------+----------------+
//
// The crc32c covers the type byte and the data, masked as in table blocks.
// Type 1 (FULL) holds a whole logical record; a longer one is split into
// FIRST (2), MIDDLE (3) ... and LAST (4) fragments across blocks. Type 0
// with length 0 is preallocated space and skipped. A record cut short by the
// end of the file was being written, and is ignored, as LevelDB ignores it.
//
// # Logical records: version edits (db/version_edit.cc)
//
// Each record is a VersionEdit, a sequence of fields, each a varint32 tag
// and its value:
//
//	1 comparator       length-prefixed name
//	2 log number       varint64
//	3 next file        varint64
//	4 last sequence    varint64
//	5 compact pointer  varint32 level, length-prefixed internal key
//	6 deleted file     varint32 level, varint64 file number
//	7 new file         varint32 level, varint64 file number, varint64 size,
//	                   length-prefixed smallest and largest internal keys
//	9 prev log number  varint64
//
// Levels are below 7; internal keys are not empty. Replaying the edits in
// order, each edit's deletions before its additions, leaves the live tables
// of each level: the database's current version. Table N is the file
// NNNNNN.ldb (or NNNNNN.sst, the older name) in the database directory.
package manifest

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ldbcompat/ldbcompat/internal/crc"
)

// Log format constants (db/log_format.h).
const (
	BlockSize  = 32768
	HeaderSize = 7

	typeZero   = 0
	typeFull   = 1
	typeFirst  = 2
	typeMiddle = 3
	typeLast   = 4
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

// Error is a malformed CURRENT or MANIFEST: the file and the byte offset in
// it where reading failed.
type Error struct {
	File   string // the file's path
	Offset int64  // byte offset in the file
	Msg    string // what is wrong at Offset
}

// Error formats e as "FILE: offset N: MSG".
func (e *Error) Error() string {
	return fmt.Sprintf("%s: offset %d: %s", e.File, e.Offset, e.Msg)
}

// File is a live table of the current version.
type File struct {
	Level    int    // 0..6
	Number   uint64 // the table is NNNNNN.ldb (or .sst)
	Size     uint64 // its size in bytes, as LevelDB recorded it
	Smallest []byte // smallest internal key
	Largest  []byte // largest internal key
}

// Version is the database's current version as the MANIFEST describes it.
type Version struct {
	Manifest   string // path of the MANIFEST read
	Comparator string // the comparator's name, "" if no edit named one
	Edits      int    // version edits replayed
	Files      []File // live tables, by file number
}

// Live returns the live table with file number n, if there is one.
func (v *Version) Live(n uint64) (File, bool) {
	i := sort.Search(len(v.Files), func(i int) bool { return v.Files[i].Number >= n })
	if i < len(v.Files) && v.Files[i].Number == n {
		return v.Files[i], true
	}
	return File{}, false
}

// ErrNoCurrent is wrapped by Read's error when dir has no CURRENT file.
var ErrNoCurrent = errors.New("no CURRENT file")

// maxCurrentSize bounds the CURRENT file read: it holds one file name.
const maxCurrentSize = 4096

// Read reads dir's CURRENT file and the MANIFEST it names, and returns the
// current version. It opens both files read-only and writes nothing.
func Read(dir string) (*Version, error) {
	cur := filepath.Join(dir, "CURRENT")
	name, err := readCurrent(cur)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, name)
	data, err := readRegular(path, 0)
	if err != nil {
		return nil, fmt.Errorf("MANIFEST named by %s: %w", cur, err)
	}
	return Parse(path, data)
}

// readCurrent returns the MANIFEST file name in the CURRENT file at path.
func readCurrent(path string) (string, error) {
	b, err := readRegular(path, maxCurrentSize)
	if errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("%s: %w", filepath.Dir(path), ErrNoCurrent)
	}
	if err != nil {
		return "", err
	}
	s := string(b)
	if !strings.HasSuffix(s, "\n") {
		return "", &Error{File: path, Offset: int64(len(b)), Msg: "does not end with a newline"}
	}
	s = strings.TrimSuffix(s, "\n")
	if i := strings.IndexAny(s, "/\\\n\x00"); i >= 0 || !strings.HasPrefix(s, "MANIFEST-") {
		if i < 0 {
			i = 0
		}
		return "", &Error{File: path, Offset: int64(i), Msg: fmt.Sprintf("%q is not a MANIFEST file name", s)}
	}
	return s, nil
}

// readRegular reads the regular file at path, of at most limit bytes when
// limit > 0; anything else (a named pipe would block) is refused.
func readRegular(path string, limit int64) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	if limit > 0 && fi.Size() > limit {
		return nil, &Error{File: path, Offset: limit, Msg: fmt.Sprintf("%d bytes: longer than the %d it may hold", fi.Size(), limit)}
	}
	return os.ReadFile(path)
}

// Parse replays the version edits in data, the contents of the MANIFEST
// file name, and returns the current version.
func Parse(name string, data []byte) (*Version, error) {
	v := &Version{Manifest: name}
	type key struct {
		level  int
		number uint64
	}
	live := map[key]File{}
	err := records(name, data, func(off int64, rec []byte) error {
		e, err := decodeEdit(rec)
		if err != nil {
			return &Error{File: name, Offset: off, Msg: "version edit " + fmt.Sprint(v.Edits) + ": " + err.Error()}
		}
		v.Edits++
		if e.comparator != nil {
			v.Comparator = *e.comparator
		}
		for _, d := range e.deleted {
			delete(live, key{d.Level, d.Number})
		}
		for _, f := range e.added {
			live[key{f.Level, f.Number}] = f
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, f := range live {
		v.Files = append(v.Files, f)
	}
	sort.Slice(v.Files, func(i, j int) bool {
		a, b := v.Files[i], v.Files[j]
		if a.Number != b.Number {
			return a.Number < b.Number
		}
		return a.Level < b.Level
	})
	return v, nil
}

// records calls fn with each logical record in the log data and the file
// offset of its first fragment's header. It follows upstream's log::Reader
// as VersionSet::Recover uses it: whatever the reader reports as corruption
// is an error; what it drops silently (a record cut short by the end of
// the file, preallocated zeros) ends or skips quietly.
func records(name string, data []byte, fn func(off int64, rec []byte) error) error {
	var (
		rec      []byte
		recStart int64 = -1 // offset of the pending FIRST fragment, or -1
	)
	corrupt := func(off int, format string, args ...any) error {
		return &Error{File: name, Offset: int64(off), Msg: fmt.Sprintf(format, args...)}
	}
	for off := 0; off < len(data); {
		blockEnd := off - off%BlockSize + BlockSize
		full := blockEnd <= len(data) // the file holds the whole block
		avail := min(blockEnd, len(data)) - off
		if avail < HeaderSize {
			if !full {
				return nil // a header cut short: being written
			}
			off = blockEnd // the block's zero-filled trailer
			continue
		}
		h := data[off : off+HeaderSize]
		n := int(binary.LittleEndian.Uint16(h[4:6]))
		typ := h[6]
		if HeaderSize+n > avail {
			if !full {
				return nil // a record cut short: being written
			}
			return corrupt(off, "bad record length: %d bytes run past the 32 KiB block", n)
		}
		payload := data[off+HeaderSize : off+HeaderSize+n]
		if typ == typeZero && n == 0 {
			// Preallocated space: upstream skips the rest of the block,
			// which breaks a fragmented record.
			if recStart >= 0 {
				return corrupt(off, "error in middle of record (from offset %d)", recStart)
			}
			off = blockEnd
			continue
		}
		want := binary.LittleEndian.Uint32(h[0:4])
		if got := crc.Mask(crc.Extend(crc.Value([]byte{typ}), payload)); got != want {
			return corrupt(off, "record checksum mismatch (stored %#08x, computed %#08x)", want, got)
		}
		start := off
		off += HeaderSize + n
		switch typ {
		case typeFull, typeFirst:
			// An unfinished record with data is corruption; an empty
			// FIRST fragment (written by old versions) is not.
			if recStart >= 0 && len(rec) > 0 {
				return corrupt(start, "partial record without end (from offset %d)", recStart)
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
				return corrupt(start, "missing start of fragmented record (%s fragment)", fragmentName(typ))
			}
			rec = append(rec, payload...)
			if typ == typeLast {
				if err := fn(recStart, rec); err != nil {
					return err
				}
				recStart = -1
			}
		default:
			return corrupt(start, "unknown record type %d", typ)
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

// edit is a decoded VersionEdit: what the current version needs of it.
type edit struct {
	comparator *string
	deleted    []File // Level and Number only
	added      []File
}

// decodeEdit decodes one VersionEdit as upstream's DecodeFrom does,
// rejecting what it rejects.
func decodeEdit(b []byte) (*edit, error) {
	e := &edit{}
	d := decoder{b: b}
	for len(d.b) > 0 {
		at := len(b) - len(d.b)
		tag, ok := d.varint(32)
		if !ok {
			return nil, fmt.Errorf("byte %d: invalid tag", at)
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
			if _, ok := d.varint(64); !ok {
				what = map[uint64]string{tagLogNumber: "log number", tagNextFileNumber: "next file number",
					tagLastSequence: "last sequence number", tagPrevLogNumber: "previous log number"}[tag]
			}
		case tagCompactPointer:
			if _, ok := d.level(); !ok {
				what = "compaction pointer"
			} else if _, ok := d.internalKey(); !ok {
				what = "compaction pointer"
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
			return nil, fmt.Errorf("byte %d: unknown tag %d", at, tag)
		}
		if what != "" {
			return nil, fmt.Errorf("byte %d: invalid %s", at, what)
		}
	}
	return e, nil
}

// decoder reads LevelDB's varints and length-prefixed strings from b.
type decoder struct{ b []byte }

// varint reads a varint of at most bits bits (32 or 64).
func (d *decoder) varint(bits uint) (uint64, bool) {
	var v uint64
	for shift := uint(0); shift < bits; shift += 7 {
		if len(d.b) == 0 {
			return 0, false
		}
		c := d.b[0]
		d.b = d.b[1:]
		if c < 0x80 {
			v |= uint64(c) << shift
			if bits == 32 {
				v = uint64(uint32(v)) // upstream drops the bits past 32
			}
			return v, true
		}
		v |= uint64(c&0x7f) << shift
	}
	return 0, false
}

// bytes reads a varint32 length and that many bytes.
func (d *decoder) bytes() ([]byte, bool) {
	n, ok := d.varint(32)
	if !ok || n > uint64(len(d.b)) {
		return nil, false
	}
	s := d.b[:n:n]
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
