package verify

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ldbcompat/ldbcompat/internal/base"
	"github.com/ldbcompat/ldbcompat/internal/manifest"
	"github.com/ldbcompat/ldbcompat/internal/table"
)

// Item is one entry of what verify reports, in order: a database, a table
// file, a path error or a note.
type Item struct {
	Database *Database // a database directory
	Table    *Target   // a table file
	// PathErr is why Path is neither a table nor a database, or cannot be looked at.
	PathErr error
	// Note is a remark about Path that changes no outcome (a link not followed).
	Note string
	Path string
}

// Database is a database directory as upstream would open it (DBImpl::Recover).
type Database struct {
	Dir string // the directory, cleaned
	// Manifest is the path of the MANIFEST CURRENT names, once read.
	Manifest string
	// Version is the database's current version, when the MANIFEST reads.
	Version *manifest.Version
	// Comparator is the name the MANIFEST records ("" when none).
	Comparator string
	// DefaultStatus is upstream's status opening it with the default
	// comparator, when Comparator is another; verify reads it with Comparator.
	DefaultStatus string
	// Err says why upstream cannot open the database; Status is upstream's.
	Err    error
	Status string
	// Missing lists the live tables not in the directory ("N missing files").
	Missing []uint64
	// Live counts the live tables the MANIFEST lists.
	Live int
	// Kind names another store of LevelDB's lineage that wrote it
	// ("Pebble", "RocksDB"), KindEvidence how that was told.
	Kind, KindEvidence string
	// CurrentLink and ManifestLink are where they lead, when symbolic links.
	CurrentLink, ManifestLink string
	// Logs are the logs upstream replays when it opens the database, in order.
	Logs []*LogReport
	// Mode is the option set the database's line follows (Each sets it).
	Mode Mode
}

// Opens tells whether upstream opens the database under d.Mode.
func (d *Database) Opens() bool { return d.Err == nil && d.logFailure(d.Mode) == nil }

// logFailure returns the first log whose replay fails the open under mode.
func (d *Database) logFailure(mode Mode) *LogReport {
	for _, l := range d.Logs {
		if l.verdictIn(mode) == OpenFails {
			return l
		}
	}
	return nil
}

// setMode makes the database's line and its logs' follow the option set.
func (d *Database) setMode(mode Mode) {
	d.Mode = mode
	for _, l := range d.Logs {
		l.setMode(mode)
	}
}

// readComparator is the comparator the MANIFEST is read with.
func (d *Database) readComparator() string {
	if d.Comparator != "" {
		return d.Comparator
	}
	return manifest.BytewiseComparator
}

// manifestName is the MANIFEST's file name.
func (d *Database) manifestName() string { return filepath.Base(d.Manifest) }

// Target is a table file to examine, or to skip.
type Target struct {
	Path string
	// DB is the table's database, or nil for a table file named directly.
	DB *Database
	// Live is the MANIFEST's record of a live table, read at Live.Size;
	// nil when the table is read at its own size.
	Live *manifest.File
	// Skip says why the file is not examined, when it is not.
	Skip string
	// NotTable is set for a file named that is no table (Skip says so).
	NotTable bool
	// missing is set for a live table that is not in the directory.
	missing bool
}

// Resolve is ResolveWith without progress.
func Resolve(paths []string) []Item { return ResolveWith(paths, nil) }

// ResolveWith expands paths into what verify reports, in order: a database
// directory's live tables are examined and others skipped; other directories
// are searched for databases, without following symbolic links; a file named
// like a table or ending in a table's magic number is a table. progress, when
// not nil, is called now and then during a search.
func ResolveWith(paths []string, progress func(dirs, databases int)) []Item {
	var items []Item
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			items = append(items, Item{Path: p, PathErr: err})
			continue
		}
		if !fi.IsDir() {
			items = append(items, Item{Table: namedTable(p, fi), Path: p})
			continue
		}
		if it, ok := resolveDir(filepath.Clean(p)); ok {
			items = append(items, it...)
			continue
		}
		items = append(items, search(filepath.Clean(p), progress)...)
	}
	return items
}

// resolveDir returns the items of dir when it is a database.
func resolveDir(dir string) ([]Item, bool) {
	var db *Database
	var ts []*Target
	_, err := os.Lstat(filepath.Join(dir, "CURRENT"))
	switch ents, rerr := os.ReadDir(dir); {
	case err == nil:
		db, ts = resolveDB(dir)
	case !errors.Is(err, fs.ErrNotExist) && rerr == nil:
		db, ts = resolveUnsearchable(dir, ents, err)
	case rerr == nil:
		db, ts = resolveNoCurrent(dir, ents)
	}
	if db == nil {
		return nil, false
	}
	items := []Item{{Database: db, Path: db.Dir}}
	for _, t := range ts {
		items = append(items, Item{Table: t, Path: t.Path})
	}
	return items, true
}

// resolveUnsearchable returns the database in dir when CURRENT is among its
// entries but cannot be looked at (EACCES): upstream refuses it.
func resolveUnsearchable(dir string, ents []fs.DirEntry, err error) (*Database, []*Target) {
	if !slices.ContainsFunc(ents, func(e fs.DirEntry) bool { return e.Name() == "CURRENT" }) {
		return resolveNoCurrent(dir, ents)
	}
	db := &Database{Dir: dir, Status: noCurrentStatus(dir)}
	db.Err = fmt.Errorf("%s: CURRENT is there but cannot be looked at: %w (a directory readable but not searchable lists its files and opens none)", dir, errors.Unwrap(err))
	return db, tableTargets(db, ents)
}

// namedTable is the target for a file named on the command line.
func namedTable(path string, fi fs.FileInfo) *Target {
	tg := &Target{Path: path}
	if !fi.Mode().IsRegular() {
		// A device, a named pipe or a socket is no table, whatever its name.
		tg.NotTable = true
		tg.Skip = "not a table: " + strings.TrimPrefix(base.NotRegular(path, fi.Mode()).Error(), path+": ")
		return tg
	}
	if base.HasTableExt(path) {
		return tg
	}
	magic, err := readMagic(path, fi.Size())
	if err != nil || magic == table.Magic || table.ForeignTable(magic) != "" {
		return tg // Examine reports the read error, or the table
	}
	tg.NotTable = true
	tg.Skip = "not a table: its name does not end in .ldb or .sst, nor its contents in a table's magic number"
	if IsLogName(path) {
		tg.Skip = "not a table but a log or MANIFEST: verify replays it with its database (name the database's directory); dump prints its records"
	}
	return tg
}

// readMagic reads the file's last 8 bytes as a magic number (0 when shorter).
func readMagic(path string, size int64) (uint64, error) {
	if size < 8 {
		return 0, nil
	}
	f, _, err := base.OpenNonBlocking(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var b [8]byte
	if _, err := f.ReadAt(b[:], size-8); err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(b[:]), nil
}

// resolveDB reads the database in dir and lists its table files.
func resolveDB(dir string) (*Database, []*Target) {
	db := &Database{Dir: dir}
	ents, err := os.ReadDir(dir)
	if err != nil {
		db.Err = err
		return db, nil
	}
	var files []string // named like tables, sorted as os.ReadDir sorts
	names := make([]string, len(ents))
	for i, e := range ents {
		names[i] = e.Name()
		// Anything named like a table is one, as LevelDB would open it.
		if base.HasTableExt(names[i]) {
			files = append(files, names[i])
		}
	}
	db.Kind, db.KindEvidence = foreignKind(dir, ents)
	db.CurrentLink = linkOf(filepath.Join(dir, "CURRENT"))
	defer func() {
		if db.Manifest != "" && filepath.Base(db.Manifest) != "CURRENT" {
			db.ManifestLink = linkOf(db.Manifest)
		}
	}()
	v, err := manifest.Read(dir)
	if ce := (*manifest.ComparatorError)(nil); errors.As(err, &ce) {
		// The application's comparator: read as it would be.
		db.Comparator, db.DefaultStatus = ce.Recorded, base.StatusOf(err)
		v, err = manifest.ReadWith(dir, ce.Recorded)
	}
	if err != nil {
		db.Err = err
		if be := (*base.Error)(nil); errors.As(err, &be) {
			db.Manifest, db.Status = be.File, be.Status
		}
		return db, tableTargets(db, ents)
	}
	db.Version, db.Manifest, db.Comparator, db.Live = v, v.Manifest, v.Comparator, len(v.Files)
	replayLogs(db, names)
	db.setMode(db.Mode)
	ts := liveTargets(db, files, manifest.Missing(v, names))
	if len(db.Missing) > 0 {
		db.Status = manifest.MissingStatus(dir, db.Missing)
		db.Err = fmt.Errorf("%s lists %d live tables that are not in %s: %s", db.manifestName(), len(db.Missing), dir, tableList(db.Missing))
	}
	return db, ts
}

// notLiveText says why a table file its MANIFEST does not list is skipped.
func notLiveText(db *Database) string {
	return "not listed in " + db.manifestName() + ", so upstream never reads it: a table LevelDB is still writing (if the database is open), or an obsolete one, which LevelDB deletes when it next opens the database"
}

// tableList lists table numbers as file names, at most 5.
func tableList(nums []uint64) string {
	var s []string
	for i, n := range nums {
		if i == 5 {
			s = append(s, fmt.Sprintf("and %d more", len(nums)-5))
			break
		}
		s = append(s, fmt.Sprintf("%06d.ldb", n))
	}
	return strings.Join(s, ", ")
}

// liveTargets sorts a database's table files into live tables and others to
// skip, adding a missing target per live table not there; missing lists those
// upstream's check finds missing (manifest.Missing).
func liveTargets(db *Database, files []string, missing []uint64) []*Target {
	v := db.Version
	found := map[uint64]bool{}
	var ts []*Target
	for _, n := range files {
		path := filepath.Join(db.Dir, n)
		num, typ, ok := base.ParseFileName(n)
		if !ok || typ != base.TableFile {
			ts = append(ts, &Target{Path: path, DB: db, Skip: "not a LevelDB table file name (NNNNNN.ldb or NNNNNN.sst)"})
			continue
		}
		f, live := v.Live(num)
		switch {
		case !live:
			ts = append(ts, &Target{Path: path, DB: db, Skip: notLiveText(db)})
		case found[num]:
			// TableCache opens NNNNNN.ldb, and NNNNNN.sst only without it.
			ts = append(ts, &Target{Path: path, DB: db, Skip: fmt.Sprintf("LevelDB reads table %d from %06d.ldb", num, num)})
		default:
			found[num] = true
			ts = append(ts, &Target{Path: path, DB: db, Live: &f})
		}
	}
	inListing := map[uint64]bool{}
	for _, n := range missing {
		inListing[n] = true
	}
	// The MANIFEST is read again once for all tables not found (10,000 reads took 53 s).
	var again *manifest.Version
	reread := false
	var relisted map[string]bool
	notFound := 0
	for i := range v.Files {
		f := &v.Files[i]
		if found[f.Number] {
			continue
		}
		found[f.Number] = true // a number listed at several levels is one file
		// A compaction may have written it after the directory was listed.
		ldb := base.TableFileName(db.Dir, f.Number)
		if notFound++; notFound == 64 {
			relisted = listNames(db.Dir)
		}
		if path, ok := firstExisting(relisted, ldb, base.SSTTableFileName(db.Dir, f.Number)); ok {
			ts = append(ts, &Target{Path: path, DB: db, Live: f})
			continue
		}
		tg := &Target{Path: ldb, DB: db, Live: f}
		if !reread {
			again, reread = rereadManifest(db), true
		}
		if again != nil && notLiveIn(again, f.Number) {
			// Written and compacted away again since the listing.
			tg.Skip = vanishedText(again)
		} else {
			tg.missing = true
			if inListing[f.Number] {
				db.Missing = append(db.Missing, f.Number)
			}
		}
		ts = append(ts, tg)
	}
	return ts
}

// rereadManifest reads db's MANIFEST again, or returns nil.
func rereadManifest(db *Database) *manifest.Version {
	v, err := manifest.ReadWith(db.Dir, db.readComparator())
	if err != nil {
		return nil
	}
	return v
}

// notLiveIn tells whether table n is not a live table of v.
func notLiveIn(v *manifest.Version, n uint64) bool {
	_, live := v.Live(n)
	return !live
}

// vanishedText says why a live table v no longer lists is skipped.
func vanishedText(v *manifest.Version) string {
	return "LevelDB deleted it while it was being checked: no longer a live table of " + filepath.Base(v.Manifest)
}

// firstExisting returns the first of paths in names, or on disk when nil.
func firstExisting(names map[string]bool, paths ...string) (string, bool) {
	for _, p := range paths {
		if names != nil {
			if names[filepath.Base(p)] {
				return p, true
			}
			continue
		}
		if _, err := os.Lstat(p); err == nil {
			return p, true
		}
	}
	return "", false
}

// listNames returns the names in dir (none when it cannot be read).
func listNames(dir string) map[string]bool {
	names := map[string]bool{}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		names[e.Name()] = true
	}
	return names
}

// vanished tells whether err, reading the live table tg, is because LevelDB
// deleted it after a compaction, and returns the reason to skip it.
func vanished(tg *Target, err error) (string, bool) {
	if tg.Live == nil || !errors.Is(err, fs.ErrNotExist) {
		return "", false
	}
	v := rereadManifest(tg.DB)
	if v == nil || !notLiveIn(v, tg.Live.Number) {
		return "", false
	}
	return vanishedText(v), true
}
