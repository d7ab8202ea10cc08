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
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"syscall"

	"github.com/ldbcompat/ldbcompat/internal/base"
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

	// log::Reader's own codes (db/log_reader.h), which ReadRecord also
	// takes from a physical record of that type.
	typeReaderEOF = 5 // kEof
	typeReaderBad = 6 // kBadRecord
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
	// Status is what VersionSet::Recover returns for the same problem, as
	// Status::ToString() prints it ("Corruption: checksum mismatch"), or
	// "" when upstream's behaviour is undefined (Err is ErrUndefined).
	Status string
	Err    error // ErrUndefined, ErrComparator, an I/O error, or nil
	// Comparator is, when Err is ErrComparator, the comparator name the
	// version edit records.
	Comparator string
}

// ErrComparator is wrapped by the *Error for a version edit that names
// another comparator than the one the MANIFEST is read with: upstream's
// VersionSet::Recover refuses the database ("Invalid argument: NAME does
// not match existing comparator : ..."). Error.Comparator holds the name
// the edit records: an application whose comparator has that name opens
// the database (see ReadWith).
var ErrComparator = errors.New("comparator mismatch")

// ErrUndefined is wrapped by an *Error for a MANIFEST on which upstream's
// behaviour is undefined: VersionSet::Builder compares the smallest keys of
// the files added to a level with the internal key comparator, which reads
// out of bounds for a key shorter than its 8-byte tag.
var ErrUndefined = errors.New("LevelDB's behaviour is undefined here")

// Unwrap returns Err.
func (e *Error) Unwrap() error { return e.Err }

// Error formats e as "FILE: offset N: MSG[: ERR]".
func (e *Error) Error() string {
	s := fmt.Sprintf("%s: offset %d: %s", e.File, e.Offset, e.Msg)
	if e.Err != nil && e.Err != ErrUndefined && e.Err != ErrComparator {
		s += ": " + e.Err.Error()
	}
	return s
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
	// Files are the live tables, by file number (then level, then
	// smallest key). A number may appear more than once: upstream's
	// Builder keeps a file added again at a level with another smallest
	// key beside the first (db/version_set.cc Builder::Apply, SaveTo).
	Files []File
	// The counters of the last edits that set them; Recover requires
	// NextFile, LogNumber and LastSequence (PrevLogNumber is 0 if unset).
	LogNumber, PrevLogNumber, NextFile, LastSequence uint64
}

// BytewiseComparator is the name of LevelDB's default comparator, the one
// Read and Parse require of edits that name one.
const BytewiseComparator = "leveldb.BytewiseComparator"

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
// current version, as LevelDB opens the database with its default
// comparator. It opens both files read-only and writes nothing.
func Read(dir string) (*Version, error) { return ReadWith(dir, BytewiseComparator) }

// ReadWith is Read for an application whose comparator's Name() is
// comparator, as VersionSet::Recover runs with it: an edit that names
// another comparator fails the read with an *Error wrapping ErrComparator.
// Nothing else depends on the comparator: the live files are the same
// whatever order it gives keys, as long as it finds equal only keys of
// equal bytes (upstream's comparators do), and Version.Files is sorted by
// number.
func ReadWith(dir, comparator string) (*Version, error) {
	cur := filepath.Join(dir, "CURRENT")
	name, err := readCurrent(cur)
	if err != nil {
		return nil, err
	}
	path := dir + string(filepath.Separator) + name // not cleaned: as upstream opens it
	data, err := readRegular(path, 0)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("MANIFEST named by %s: %w", cur, &Error{File: path, Msg: "does not exist",
				Status: "Corruption: CURRENT points to a non-existent file: NotFound: " + path + ": No such file or directory", Err: err})
		}
		return nil, fmt.Errorf("MANIFEST named by %s: %w", cur, err)
	}
	return ParseWith(path, data, comparator)
}

// readCurrent returns the MANIFEST file name in the CURRENT file at path.
// As VersionSet::Recover, it takes whatever precedes the final newline:
// the MANIFEST is that name joined to the directory, even a path.
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
		return "", &Error{File: path, Offset: int64(len(b)), Msg: "does not end with a newline",
			Status: "Corruption: CURRENT file does not end with newline"}
	}
	s = strings.TrimSuffix(s, "\n")
	if strings.IndexByte(s, 0) >= 0 {
		// C++ would open the name up to the NUL.
		return "", &Error{File: path, Offset: int64(strings.IndexByte(s, 0)), Msg: fmt.Sprintf("%s: a file name holds no NUL byte", short(s))}
	}
	return s, nil
}

// readRegular reads the regular file at path, of at most limit bytes when
// limit > 0; anything else (a named pipe would block) is refused.
func readRegular(path string, limit int64) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, ioError(path, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	if limit > 0 && fi.Size() > limit {
		return nil, &Error{File: path, Offset: limit, Msg: fmt.Sprintf("%d bytes: longer than the %d it may hold", fi.Size(), limit)}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, ioError(path, err)
	}
	return b, nil
}

// ioError is the *Error for the I/O error err on the file at path, with
// upstream's status for it (util/env_posix.cc: an open or read that fails
// fails VersionSet::Recover with that status); a missing file's error is
// left as it is, for the callers to word.
func ioError(path string, err error) error {
	if errors.Is(err, os.ErrNotExist) {
		return err
	}
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return err
	}
	return &Error{File: path, Msg: "cannot read it", Err: errno, Status: base.IOStatus(path, errno)}
}

// Parse replays the version edits in data, the contents of the MANIFEST
// file name, as VersionSet::Recover (db/version_set.cc) does with the
// bytewise comparator, and returns the current version. It fails exactly
// where Recover does: the first corruption the log reader reports (see
// records), an edit VersionEdit::DecodeFrom refuses, an edit naming another
// comparator (ErrComparator), or no next file number, log number or last
// sequence number in any edit.
func Parse(name string, data []byte) (*Version, error) {
	return ParseWith(name, data, BytewiseComparator)
}

// ParseWith is Parse with a comparator named comparator (see ReadWith).
func ParseWith(name string, data []byte, comparator string) (*Version, error) {
	v := &Version{Manifest: name}
	var haveLog, haveNext, haveSeq bool
	var b builder
	err := records(name, data, func(off int64, rec []byte) error {
		e, err := decodeEdit(rec)
		if err != nil {
			return &Error{File: name, Offset: off, Msg: "version edit " + fmt.Sprint(v.Edits) + ": " + err.Error(),
				Status: "Corruption: VersionEdit: " + err.(*editError).what}
		}
		if e.comparator != nil && *e.comparator != comparator {
			return &Error{File: name, Offset: off, Msg: fmt.Sprintf("version edit %d: comparator %s, not the %s it is read with", v.Edits, short(*e.comparator), short(comparator)),
				Status: "Invalid argument: " + *e.comparator + " does not match existing comparator : " + comparator,
				Err:    ErrComparator, Comparator: *e.comparator}
		}
		v.Edits++
		if e.comparator != nil {
			v.Comparator = *e.comparator
		}
		if err := b.apply(e, name, off); err != nil {
			return err
		}
		if e.logNumber != nil {
			v.LogNumber, haveLog = *e.logNumber, true
		}
		if e.prevLogNumber != nil {
			v.PrevLogNumber = *e.prevLogNumber
		}
		if e.nextFile != nil {
			v.NextFile, haveNext = *e.nextFile, true
		}
		if e.lastSequence != nil {
			v.LastSequence, haveSeq = *e.lastSequence, true
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, m := range []struct {
		have   bool
		status string
	}{
		{haveNext, "Corruption: no meta-nextfile entry in descriptor"},
		{haveLog, "Corruption: no meta-lognumber entry in descriptor"},
		{haveSeq, "Corruption: no last-sequence-number entry in descriptor"},
	} {
		if !m.have {
			return nil, &Error{File: name, Offset: int64(len(data)), Msg: strings.TrimPrefix(m.status, "Corruption: "), Status: m.status}
		}
	}
	if err := b.check(name); err != nil {
		return nil, err
	}
	v.Files = b.live()
	return v, nil
}

// builder is VersionSet::Builder (db/version_set.cc) from an empty base
// version: per level, the numbers deleted so far and the files added, a
// set ordered by smallest internal key then number.
type builder struct {
	levels [NumLevels]struct {
		deleted map[uint64]bool
		added   map[addedKey]File
		short   bool // a file with a smallest key under 8 bytes was added
		adds    int  // insertions tried
		at      int64
	}
}

// addedKey identifies a file in a level's added set: the set's comparator
// (smallest key by the internal key comparator, then number) finds two
// files equal when their smallest keys are the same bytes and their
// numbers are equal; inserting an equal file keeps the first.
type addedKey struct {
	smallest string
	number   uint64
}

// apply is Builder::Apply: the edit's deletions, then its additions, each
// of which cancels an earlier deletion of its number at its level.
func (b *builder) apply(e *edit, name string, off int64) error {
	for _, d := range e.deleted {
		l := &b.levels[d.Level]
		if l.deleted == nil {
			l.deleted = map[uint64]bool{}
		}
		l.deleted[d.Number] = true
	}
	for _, f := range e.added {
		l := &b.levels[f.Level]
		delete(l.deleted, f.Number)
		if l.added == nil {
			l.added = map[addedKey]File{}
		}
		l.adds++
		if len(f.Smallest) < 8 && !l.short {
			l.short, l.at = true, off
		}
		k := addedKey{string(f.Smallest), f.Number}
		if _, ok := l.added[k]; !ok {
			l.added[k] = f
		}
	}
	return nil
}

// check refuses what upstream cannot compare: a level where a file whose
// smallest key is shorter than an internal key's 8-byte tag meets another
// file in the added set (InternalKeyComparator::Compare, ExtractUserKey's
// assert compiled out).
func (b *builder) check(name string) error {
	for level, l := range b.levels {
		if l.short && l.adds > 1 {
			return &Error{File: name, Offset: l.at, Err: ErrUndefined,
				Msg: fmt.Sprintf("level %d: a new file's smallest key is shorter than an internal key's 8-byte tag, and LevelDB's comparator reads past it when it sorts the level's files", level)}
		}
	}
	return nil
}

// live is Builder::SaveTo: the added files of every level whose numbers
// are not deleted there, sorted by number, then level, then smallest key.
func (b *builder) live() []File {
	var files []File
	for _, l := range b.levels {
		for k, f := range l.added {
			if !l.deleted[k.number] {
				files = append(files, f)
			}
		}
	}
	sort.Slice(files, func(i, j int) bool {
		a, b := files[i], files[j]
		if a.Number != b.Number {
			return a.Number < b.Number
		}
		if a.Level != b.Level {
			return a.Level < b.Level
		}
		return string(a.Smallest) < string(b.Smallest)
	})
	return files
}

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
		return &Error{File: name, Offset: int64(off), Msg: fmt.Sprintf(format, args...), Status: "Corruption: " + status}
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

// edit is a decoded VersionEdit: what the current version needs of it.
type edit struct {
	comparator                                       *string
	logNumber, prevLogNumber, nextFile, lastSequence *uint64
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

// decodeEdit decodes one VersionEdit as upstream's DecodeFrom
// (db/version_edit.cc) does, rejecting what it rejects.
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

// short quotes s for a message, cut to its first 64 bytes.
func short(s string) string {
	if len(s) > 64 {
		return fmt.Sprintf("%q... (%d bytes)", s[:64], len(s))
	}
	return fmt.Sprintf("%q", s)
}

// Missing returns, in increasing order, the numbers of v's live files that
// DBImpl::Recover (db/db_impl.cc) finds missing when it opens dir: those
// that no name in dir has as its number by ParseFileName, whatever the
// name's type (a log file or a MANIFEST of that number counts, and
// CURRENT, LOCK, LOG and LOG.old count as number 0). Upstream then
// refuses to open the database: "N missing files; e.g. <dir>/<first>.ldb".
func Missing(dir string, v *Version) ([]uint64, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	present := map[uint64]bool{}
	for _, e := range ents {
		if n, ok := ParseFileName(e.Name()); ok {
			present[n] = true
		}
	}
	var missing []uint64
	for _, f := range v.Files {
		if !present[f.Number] && (len(missing) == 0 || missing[len(missing)-1] != f.Number) {
			missing = append(missing, f.Number)
		}
	}
	return missing, nil
}

// ParseFileName returns the number db/filename.cc ParseFileName gives a
// file name of a database directory: 0 for CURRENT, LOCK, LOG and LOG.old,
// N for MANIFEST-N and for N.log, N.sst, N.ldb and N.dbtmp, with N decimal
// digits that fit 64 bits. ok is false for any other name.
func ParseFileName(name string) (number uint64, ok bool) {
	switch name {
	case "CURRENT", "LOCK", "LOG", "LOG.old":
		return 0, true
	}
	if rest, isManifest := strings.CutPrefix(name, "MANIFEST-"); isManifest {
		n, tail, ok := consumeDecimal(rest)
		return n, ok && tail == ""
	}
	n, tail, ok := consumeDecimal(name)
	switch tail {
	case ".log", ".sst", ".ldb", ".dbtmp":
		return n, ok
	}
	return 0, false
}

// consumeDecimal is util/logging.cc ConsumeDecimalNumber: the leading
// digits of s as a number (false when there are none or they overflow 64
// bits) and the rest of s.
func consumeDecimal(s string) (uint64, string, bool) {
	var v uint64
	i := 0
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		d := uint64(s[i] - '0')
		if v > (math.MaxUint64-d)/10 {
			return 0, s, false
		}
		v = v*10 + d
	}
	return v, s[i:], i > 0
}
