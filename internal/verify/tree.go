package verify

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/ldbcompat/ldbcompat/internal/base"
)

// The files that tell other stores of LevelDB's lineage, matched by hand:
// package regexp would bring unicode's tables into every run (TestStoreMatchers).

// isPebbleMarker reports whether name is Pebble's marker of its MANIFEST:
// (?i)^marker\.manifest\.[0-9]+\.
func isPebbleMarker(name string) bool {
	rest, ok := cutPrefixFold(name, "marker.manifest.")
	if !ok {
		return false
	}
	digits := len(rest) - len(strings.TrimLeft(rest, "0123456789"))
	return digits > 0 && digits < len(rest) && rest[digits] == '.'
}

// cutPrefixFold returns s after prefix when s begins with it under Unicode
// simple case folding, as (?i) does (the k matches the Kelvin sign).
func cutPrefixFold(s, prefix string) (string, bool) {
	for _, p := range prefix {
		r, size := utf8.DecodeRuneInString(s)
		if size == 0 || !strings.EqualFold(string(r), string(p)) {
			return s, false
		}
		s = s[size:]
	}
	return s, true
}

// isOptionsFile reports whether name is RocksDB's or Pebble's options file:
// ^OPTIONS-[0-9]+$.
func isOptionsFile(name string) bool {
	n, ok := strings.CutPrefix(name, "OPTIONS-")
	return ok && n != "" && strings.Trim(n, "0123456789") == ""
}

// isSpace is \s of package regexp: the ASCII spaces of Perl's class.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

// storeVersion returns the key and value of the leftmost match in head of
// (?m)^\s*(rocksdb_version|pebble_version)\s*=\s*(\S+).
func storeVersion(head []byte) (key, value []byte, ok bool) {
	for line := head; ; {
		if key, value, ok = versionAt(line); ok {
			return key, value, true
		}
		var more bool
		if _, line, more = bytes.Cut(line, []byte{'\n'}); !more {
			return nil, nil, false
		}
	}
}

// versionAt is storeVersion's match at the start of b.
func versionAt(b []byte) (key, value []byte, ok bool) {
	b = trimSpace(b)
	for _, name := range []string{"rocksdb_version", "pebble_version"} {
		if rest, found := bytes.CutPrefix(b, []byte(name)); found {
			key, b = b[:len(name)], trimSpace(rest)
			break
		}
	}
	if key == nil || len(b) == 0 || b[0] != '=' {
		return nil, nil, false
	}
	b = trimSpace(b[1:])
	n := 0
	for n < len(b) && !isSpace(b[n]) {
		n++
	}
	return key, b[:n], n > 0
}

// trimSpace returns b without the spaces (isSpace) it starts with.
func trimSpace(b []byte) []byte {
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	return b
}

// foreignKind tells from dir's entries whether another store wrote it:
// "Pebble" or "RocksDB", with what tells so.
func foreignKind(dir string, ents []fs.DirEntry) (kind, evidence string) {
	for _, e := range ents {
		if isPebbleMarker(e.Name()) {
			return "Pebble", e.Name() + " names its MANIFEST, as Pebble does instead of CURRENT"
		}
	}
	for _, e := range ents {
		if !isOptionsFile(e.Name()) || !e.Type().IsRegular() {
			continue
		}
		f, _, err := base.OpenNonBlocking(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		head, _ := io.ReadAll(io.LimitReader(f, 16<<10))
		f.Close()
		if key, value, ok := storeVersion(head); ok {
			kind := "RocksDB"
			if string(key) == "pebble_version" {
				kind = "Pebble"
			}
			return kind, fmt.Sprintf("%s records %s=%s", e.Name(), key, value)
		}
	}
	return "", ""
}

// resolveNoCurrent returns the database in dir, which has no CURRENT, when
// it holds one all the same (another store's, or LevelDB's that lost
// CURRENT); upstream cannot open it. nil when dir holds no database.
func resolveNoCurrent(dir string, ents []fs.DirEntry) (*Database, []*Target) {
	db := &Database{Dir: dir, Status: noCurrentStatus(dir)}
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
	return db, tableTargets(db, ents)
}

// noCurrentStatus is upstream's status for a directory without CURRENT.
func noCurrentStatus(dir string) string {
	return "Invalid argument: " + dir + ": does not exist (create_if_missing is false)"
}

// tableTargets are db's table files among ents, read at their own size.
func tableTargets(db *Database, ents []fs.DirEntry) []*Target {
	var ts []*Target
	for _, e := range ents {
		if n := e.Name(); base.HasTableExt(n) {
			ts = append(ts, &Target{Path: filepath.Join(db.Dir, n), DB: db})
		}
	}
	return ts
}

// search returns the items of the databases below root, depth first by
// name, following no symbolic link; without any, root gets an error.
func search(root string, progress func(dirs, databases int)) []Item {
	var items []Item
	dirs, dbs, loose := 0, 0, 0
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		realRoot = root
	}
	// visit searches dir; in a database (inDB) its files are the database's.
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
		msg := fmt.Sprintf("%s: no LevelDB database in it or below it (a database is a directory with a CURRENT file; %s searched)", root, nouns(dirs, "directory", "directories"))
		if loose > 0 {
			msg += fmt.Sprintf("; %s outside any database: name %s to check %s", plural(loose, "table file"), them(loose), them(loose))
		}
		items = append(items, Item{Path: root, PathErr: errors.New(msg)})
	}
	return items
}

// within tells whether link resolves to root or a directory below it.
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
