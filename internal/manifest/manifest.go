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

// Reading a database's current version, as db/version_set.cc
// VersionSet::Recover does: CURRENT, then every edit of the MANIFEST it
// names, replayed through the builder.

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

// ComparatorError is wrapped by the *base.Error for a version edit that
// names another comparator than the one the MANIFEST is read with:
// upstream's VersionSet::Recover refuses the database ("Invalid argument:
// NAME does not match existing comparator : ..."). An application whose
// comparator's name is Recorded opens the database (see ReadWith).
type ComparatorError struct {
	Recorded string // the comparator name the edit records
	ReadWith string // the name the MANIFEST is read with
}

// Error says which comparator the edit names and which the MANIFEST is
// read with.
func (e *ComparatorError) Error() string {
	return fmt.Sprintf("comparator %s, not the %s it is read with", short(e.Recorded), short(e.ReadWith))
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

// ErrOutside is wrapped by Read's error when CURRENT, or the MANIFEST it
// names, is outside the database directory: CURRENT a symbolic link out of
// it, or naming "../elsewhere/MANIFEST-000001" or a link out of it.
// Upstream would read that file; Read reads nothing outside the directory
// it is given (the file could be anything: /etc/shadow, /proc/kmsg).
var ErrOutside = errors.New("outside the database directory")

// outside tells whether path, a file of the database in dir, is outside
// dir once its symbolic links are followed, and returns where it leads.
// A path that does not resolve (missing, a loop, a component that is no
// directory) is left to the open, which fails as upstream's does.
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

// Read reads dir's CURRENT file and the MANIFEST it names, and returns the
// current version, as LevelDB opens the database with its default
// comparator. It opens both files read-only and writes nothing.
func Read(dir string) (*Version, error) { return ReadWith(dir, BytewiseComparator) }

// ReadWith is Read for an application whose comparator's Name() is
// comparator, as VersionSet::Recover runs with it: an edit that names
// another comparator fails the read with a *base.Error wrapping a
// *ComparatorError.
// Nothing else depends on the comparator: the live files are the same
// whatever order it gives keys, as long as it finds equal only keys of
// equal bytes (upstream's comparators do), and Version.Files is sorted by
// number.
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
	// Read record by record: the file's size never becomes an
	// allocation.
	return parse(path, f, comparator)
}

// readCurrent returns the MANIFEST file name in the CURRENT file at path.
// As VersionSet::Recover, it takes whatever precedes the final newline:
// the MANIFEST is that name joined to the directory, even a path.
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

// openRegular opens the regular file at path, of type typ; anything else
// (a named pipe would block) is refused.
func openRegular(path string, typ base.FileType) (*os.File, error) {
	// Without blocking, and checked on the open descriptor: a named pipe
	// swapped in would block an ordinary open.
	f, _, err := base.OpenNonBlocking(path)
	if err != nil {
		return nil, ioError(path, typ, err)
	}
	return f, nil
}

// readRegular reads the regular file at path, of type typ, of at most
// limit bytes when limit > 0. It opens the file without blocking and
// checks it on the open descriptor (base.OpenNonBlocking): anything but a
// regular file (a named pipe would block) is refused, and a file that
// says it is empty but reads on (one of /proc) is cut at limit.
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

// tooLong is the error for a file of type typ longer (size says how
// long) than the limit bytes it may hold.
func tooLong(path string, typ base.FileType, size string, limit int64) error {
	return &base.Error{Type: typ, File: path, Offset: limit, Msg: fmt.Sprintf("%s: longer than the %d it may hold", size, limit)}
}

// ioError is the *base.Error for the I/O error err on the file at path, of
// type typ, with
// upstream's status for it (util/env_posix.cc: an open or read that fails
// fails VersionSet::Recover with that status); a missing file's error is
// left as it is, for the callers to word.
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

// Parse replays the version edits in data, the contents of the MANIFEST
// file name, as VersionSet::Recover (db/version_set.cc) does with the
// bytewise comparator, and returns the current version. It fails exactly
// where Recover does: the first corruption the log reader reports (see
// records), an edit VersionEdit::DecodeFrom refuses, an edit naming another
// comparator (a *ComparatorError), or no next file number, log number or last
// sequence number in any edit.
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
