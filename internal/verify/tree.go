package verify

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/ldbcompat/ldbcompat/internal/base"
)

// The files that tell other stores of LevelDB's lineage, and LevelDB
// databases that lost CURRENT, from directories of anything else.
var (
	// pebbleMarker: Pebble names its MANIFEST in a marker file instead of
	// CURRENT (marker.manifest.000001.MANIFEST-000001).
	pebbleMarker = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)^marker\.manifest\.[0-9]+\.`) })
	// optionsFile: RocksDB, and Pebble, write their options there, under
	// a [Version] section naming the store.
	optionsFile = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^OPTIONS-[0-9]+$`) })
	// storeVersion is that section's line.
	storeVersion = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?m)^\s*(rocksdb_version|pebble_version)\s*=\s*(\S+)`)
	})
)

// foreignKind tells, from the entries of the directory dir, whether
// another store than LevelDB wrote it: "Pebble" or "RocksDB", with what
// tells so; "" otherwise.
func foreignKind(dir string, ents []fs.DirEntry) (kind, evidence string) {
	for _, e := range ents {
		if pebbleMarker().MatchString(e.Name()) {
			return "Pebble", e.Name() + " names its MANIFEST, as Pebble does instead of CURRENT"
		}
	}
	for _, e := range ents {
		if !optionsFile().MatchString(e.Name()) || !e.Type().IsRegular() {
			continue
		}
		f, err := os.Open(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		head, _ := io.ReadAll(io.LimitReader(f, 16<<10))
		f.Close()
		if m := storeVersion().FindSubmatch(head); m != nil {
			kind := "RocksDB"
			if string(m[1]) == "pebble_version" {
				kind = "Pebble"
			}
			return kind, fmt.Sprintf("%s records %s=%s", e.Name(), m[1], m[2])
		}
	}
	return "", ""
}

// resolveNoCurrent returns the database in dir, which has no CURRENT file,
// when it holds one all the same: another store's (Pebble's markers, an
// OPTIONS file), or a LevelDB database that lost CURRENT (a MANIFEST is
// there). Upstream cannot open either (DBImpl::Recover: no CURRENT, and
// create_if_missing false); every table file in it is read at its own
// size. It returns nil when dir holds no database.
func resolveNoCurrent(dir string, ents []fs.DirEntry) (*Database, []*Target) {
	db := &Database{Dir: dir, Status: "Invalid argument: " + dir + ": does not exist (create_if_missing is false)"}
	db.Kind, db.KindEvidence = foreignKind(dir, ents)
	var manifests []string
	for _, e := range ents {
		if _, typ, _ := base.ParseFileName(e.Name()); typ == base.DescriptorFile { // LevelDB's (and RocksDB's)
			manifests = append(manifests, e.Name())
		}
	}
	switch {
	case db.Kind != "":
		db.Err = fmt.Errorf("%s: no CURRENT file", dir)
	case len(manifests) > 0:
		db.Err = fmt.Errorf("%s: no CURRENT file, although %s is there: a LevelDB database that lost its CURRENT file (upstream opened with create_if_missing would make a new, empty database here)", dir, strings.Join(manifests, ", "))
	default:
		return nil, nil
	}
	var ts []*Target
	for _, e := range ents {
		if n := e.Name(); base.HasTableExt(n) {
			ts = append(ts, &Target{Path: filepath.Join(dir, n), DB: db})
		}
	}
	return db, ts
}

// search finds the databases in and below the directory root, which is
// none itself, and returns their items in the order of a depth-first walk
// by name. It follows no symbolic link (a link to a directory gets a
// note), searches a database's subdirectories too, and reports a directory it cannot read
// as an error. Without any database, root gets an error saying so.
func search(root string, progress func(dirs, databases int)) []Item {
	var items []Item
	dirs, dbs, loose := 0, 0, 0
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		realRoot = root
	}
	// visit searches dir, whose entries are ents; in a database (inDB),
	// its files are the database's, not tables outside any.
	var visit func(dir string, ents []fs.DirEntry, inDB bool)
	visit = func(dir string, ents []fs.DirEntry, inDB bool) {
		dirs++
		if progress != nil && dirs%256 == 0 {
			progress(dirs, dbs)
		}
		for _, e := range ents {
			p := filepath.Join(dir, e.Name())
			switch {
			case e.Type()&fs.ModeSymlink != 0:
				// A link into the tree is searched through its target's own
				// path (a loop ends there); one out of it gets a note.
				if fi, err := os.Stat(p); err == nil && fi.IsDir() && !within(realRoot, p) {
					items = append(items, Item{Path: p, Note: "not followed: a symbolic link to a directory outside the tree (name it to check what it leads to)"})
				}
			case e.IsDir():
				it, isDB := resolveDir(p)
				if isDB {
					items = append(items, it...)
					dbs++
				}
				sub, err := os.ReadDir(p)
				if err != nil {
					items = append(items, Item{Path: p, PathErr: fmt.Errorf("cannot search %s for databases: %w", p, err)})
					continue
				}
				// A database may hold others (Chromium's shared_proto_db
				// holds metadata/): its subdirectories are searched too.
				visit(p, sub, isDB)
			default:
				if _, typ, _ := base.ParseFileName(e.Name()); typ == base.TableFile && !inDB {
					loose++
				}
			}
		}
	}
	ents, err := os.ReadDir(root)
	if err != nil {
		return []Item{{Path: root, PathErr: fmt.Errorf("cannot search %s for databases: %w", root, err)}}
	}
	visit(root, ents, false)
	if progress != nil {
		progress(dirs, dbs)
	}
	if dbs == 0 {
		msg := fmt.Sprintf("%s: no LevelDB database in it or below it (a database is a directory with a CURRENT file; %s searched)", root, directories(dirs))
		if loose > 0 {
			msg += fmt.Sprintf("; %s outside any database: name %s to check %s", plural(loose, "table file"), them(loose), them(loose))
		}
		items = append(items, Item{Path: root, PathErr: errorString(msg)})
	}
	return items
}

// directories is "1 directory" or "N directories".
func directories(n int) string {
	if n == 1 {
		return "1 directory"
	}
	return fmt.Sprintf("%d directories", n)
}

// within tells whether the symbolic link link resolves to root (resolved)
// or a directory below it.
func within(root, link string) bool {
	target, err := filepath.EvalSymlinks(link)
	if err != nil {
		return false
	}
	rel, err := filepath.Rel(root, target)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// them is "it" or "them".
func them(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

// errorString is an error with a fixed message.
type errorString string

func (e errorString) Error() string { return string(e) }
