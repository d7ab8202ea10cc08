package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/ldbcompat/ldbcompat/internal/base"
)

// Reading the current version as db/version_set.cc VersionSet::Recover does.

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
	// Files are the live tables by number (then level, smallest key); a
	// number may repeat, as Builder keeps a file re-added with another
	// smallest key (Builder::Apply, SaveTo).
	Files []File
	// The last edits' counters; Recover requires all but PrevLogNumber.
	LogNumber, PrevLogNumber, NextFile, LastSequence uint64
}

// ComparatorError is wrapped for an edit naming another comparator than
// the one read with, which VersionSet::Recover refuses ("Invalid
// argument: NAME does not match existing comparator : ...").
type ComparatorError struct {
	Recorded string // the comparator name the edit records
	ReadWith string // the name the MANIFEST is read with
}

// Error says which comparators differ.
func (e *ComparatorError) Error() string {
	return fmt.Sprintf("comparator %s, not the %s it is read with", short(e.Recorded), short(e.ReadWith))
}

// BytewiseComparator is the name of LevelDB's default comparator.
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

// ErrOutside is wrapped when CURRENT or its MANIFEST leads outside the
// directory (a link, or "../elsewhere/MANIFEST-000001"): upstream would
// read it, but it could be anything, such as /etc/shadow.
var ErrOutside = errors.New("outside the database directory")

// outside tells whether path leads outside dir through links, and where;
// a path that does not resolve is left to the open to fail as upstream's.
func outside(dir, path string) (string, bool) {
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		realDir = dir
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return path, false
	}
	rel, err := filepath.Rel(realDir, real)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return real, true
	}
	return real, false
}

// maxCurrentSize bounds the CURRENT file read: it holds one file name.
const maxCurrentSize = 4096

// Read returns dir's current version as LevelDB opens it with its default
// comparator, opening CURRENT and the MANIFEST read-only.
func Read(dir string) (*Version, error) { return ReadWith(dir, BytewiseComparator) }

// ReadWith is Read for a comparator named comparator: an edit naming
// another fails with a *ComparatorError. Nothing else depends on it, if
// it finds equal only equal bytes (upstream's do).
func ReadWith(dir, comparator string) (*Version, error) {
	cur := filepath.Join(dir, "CURRENT")
	if real, out := outside(dir, cur); out {
		return nil, &base.Error{Type: base.CurrentFile, File: cur, Err: ErrOutside,
			Msg: fmt.Sprintf("a symbolic link to %s, outside the database directory: upstream would read it; not read", real)}
	}
	name, err := readCurrent(cur)
	if err != nil {
		return nil, err
	}
	path := dir + string(filepath.Separator) + name // not cleaned: as upstream opens it
	if real, out := outside(dir, path); out {
		return nil, fmt.Errorf("MANIFEST named by %s: %w", cur, &base.Error{Type: base.DescriptorFile, File: path, Err: ErrOutside,
			Msg: fmt.Sprintf("CURRENT names %s, which is %s, outside the database directory: upstream would open it; not read", short(name), real)})
	}
	f, err := openRegular(path, base.DescriptorFile)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("MANIFEST named by %s: %w", cur, &base.Error{Type: base.DescriptorFile, File: path, Msg: "does not exist",
				Status: "Corruption: CURRENT points to a non-existent file: NotFound: " + path + ": No such file or directory", Err: err})
		}
		return nil, fmt.Errorf("MANIFEST named by %s: %w", cur, err)
	}
	defer f.Close()
	// Record by record: the file's size never becomes an allocation.
	return parse(path, f, comparator)
}

// readCurrent returns what precedes CURRENT's final newline, as
// VersionSet::Recover takes it (even a path).
func readCurrent(path string) (string, error) {
	b, err := readRegular(path, base.CurrentFile, maxCurrentSize)
	if errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("%s: %w", filepath.Dir(path), ErrNoCurrent)
	}
	if err != nil {
		return "", err
	}
	s := string(b)
	if !strings.HasSuffix(s, "\n") {
		return "", &base.Error{Type: base.CurrentFile, File: path, Offset: int64(len(b)), Msg: "does not end with a newline",
			Status: "Corruption: CURRENT file does not end with newline"}
	}
	s = strings.TrimSuffix(s, "\n")
	if strings.IndexByte(s, 0) >= 0 {
		// C++ would open the name up to the NUL.
		return "", &base.Error{Type: base.CurrentFile, File: path, Offset: int64(strings.IndexByte(s, 0)), Msg: fmt.Sprintf("%s: a file name holds no NUL byte", short(s))}
	}
	return s, nil
}

// openRegular opens the regular file at path, refusing anything else.
func openRegular(path string, typ base.FileType) (*os.File, error) {
	// Without blocking: a named pipe would block an ordinary open.
	f, _, err := base.OpenNonBlocking(path)
	if err != nil {
		return nil, ioError(path, typ, err)
	}
	return f, nil
}

// readRegular reads the regular file at path (base.OpenNonBlocking), at
// most limit bytes when limit > 0, even if its size says empty (/proc).
func readRegular(path string, typ base.FileType, limit int64) ([]byte, error) {
	f, fi, err := base.OpenNonBlocking(path)
	if err != nil {
		return nil, ioError(path, typ, err)
	}
	defer f.Close()
	if limit > 0 && fi.Size() > limit {
		return nil, tooLong(path, typ, fmt.Sprintf("%d bytes", fi.Size()), limit)
	}
	var r io.Reader = f
	if limit > 0 {
		r = io.LimitReader(f, limit+1)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, ioError(path, typ, err)
	}
	if limit > 0 && int64(len(b)) > limit {
		// Its size said less: a file of /proc, or one growing.
		return nil, tooLong(path, typ, fmt.Sprintf("more than %d bytes read", limit), limit)
	}
	return b, nil
}

// tooLong is the error for a file over limit bytes.
func tooLong(path string, typ base.FileType, size string, limit int64) error {
	return &base.Error{Type: typ, File: path, Offset: limit, Msg: fmt.Sprintf("%s: longer than the %d it may hold", size, limit)}
}

// ioError is the *base.Error with util/env_posix.cc's status for err at
// path; a missing file's error is left for callers to word.
func ioError(path string, typ base.FileType, err error) error {
	if errors.Is(err, os.ErrNotExist) {
		return err
	}
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return err
	}
	return &base.Error{Type: typ, File: path, Msg: "cannot read it", Err: errno, Status: base.IOStatus(path, errno)}
}

// Parse replays the MANIFEST in data as VersionSet::Recover does with the
// bytewise comparator, failing where it does: the log reader's first
// corruption, an edit DecodeFrom refuses, another comparator
// (*ComparatorError), or no next file, log or last sequence number.
func Parse(name string, data []byte) (*Version, error) {
	return ParseWith(name, data, BytewiseComparator)
}

// ParseWith is Parse with a comparator named comparator (see ReadWith).
func ParseWith(name string, data []byte, comparator string) (*Version, error) {
	return parse(name, bytes.NewReader(data), comparator)
}

// parse is ParseWith of the MANIFEST read from r.
func parse(name string, r io.Reader, comparator string) (*Version, error) {
	v := &Version{Manifest: name}
	var haveLog, haveNext, haveSeq bool
	var b builder
	size, err := records(name, r, func(off int64, rec []byte) error {
		e, err := decodeEdit(rec)
		if err != nil {
			return &base.Error{Type: base.DescriptorFile, File: name, Offset: off, Msg: "version edit " + fmt.Sprint(v.Edits) + ": " + err.Error(),
				Status: "Corruption: VersionEdit: " + err.(*editError).what}
		}
		if e.comparator != nil && *e.comparator != comparator {
			return &base.Error{Type: base.DescriptorFile, File: name, Offset: off, Msg: fmt.Sprintf("version edit %d", v.Edits),
				Status: "Invalid argument: " + *e.comparator + " does not match existing comparator : " + comparator,
				Err:    &ComparatorError{Recorded: *e.comparator, ReadWith: comparator}}
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
			return nil, &base.Error{Type: base.DescriptorFile, File: name, Offset: size, Msg: strings.TrimPrefix(m.status, "Corruption: "), Status: m.status}
		}
	}
	if err := b.check(name); err != nil {
		return nil, err
	}
	v.Files = b.live()
	return v, nil
}

// short quotes s for a message, cut to its first 64 bytes.
func short(s string) string {
	if len(s) > 64 {
		return fmt.Sprintf("%q... (%d bytes)", s[:64], len(s))
	}
	return fmt.Sprintf("%q", s)
}
