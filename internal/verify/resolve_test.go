package verify_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/ldbcompat/ldbcompat/internal/verify"
)

// TestResolveNoCurrent: a directory with a MANIFEST but no CURRENT is a
// LevelDB database that lost its CURRENT file, which upstream cannot open,
// with its table files; a directory with neither holds no database.
func TestResolveNoCurrent(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "db")
	writeTo(t, filepath.Join(dir, "MANIFEST-000001"), []byte("x"))
	writeTo(t, filepath.Join(dir, "000005.ldb"), nil)
	writeTo(t, filepath.Join(dir, "notes.txt"), nil)
	items := verify.Resolve([]string{dir})
	if len(items) != 2 || items[0].Database == nil || items[1].Table == nil {
		t.Fatalf("items %+v, want the database and its table", items)
	}
	db := items[0].Database
	if db.Err == nil || !strings.Contains(db.Err.Error(), "no CURRENT file, although MANIFEST-000001 is there") || db.Opens() {
		t.Errorf("database error %v, want no CURRENT although MANIFEST-000001 is there", db.Err)
	}
	if want := "Invalid argument: " + dir + ": does not exist (create_if_missing is false)"; db.Status != want {
		t.Errorf("status %q, want %q", db.Status, want)
	}
	if tg := items[1].Table; tg.Path != filepath.Join(dir, "000005.ldb") || tg.DB != db || tg.Live != nil {
		t.Errorf("table %+v", tg)
	}

	empty := filepath.Join(root, "empty")
	writeTo(t, filepath.Join(empty, "000005.ldb"), nil)
	items = verify.Resolve([]string{empty})
	for _, it := range items {
		if it.Database != nil {
			t.Errorf("a directory without CURRENT or MANIFEST resolves to database %+v", it.Database)
		}
	}
}

// dirEntry is a directory entry of a name.
type dirEntry string

func (e dirEntry) Name() string               { return string(e) }
func (e dirEntry) IsDir() bool                { return false }
func (e dirEntry) Type() fs.FileMode          { return 0 }
func (e dirEntry) Info() (fs.FileInfo, error) { return nil, errors.New("no info") }

// TestResolveUnsearchable: where CURRENT is listed but cannot be looked
// at, upstream finds no CURRENT and refuses the database; verify says
// why, and lists its tables. Where it is not listed, the directory is
// judged as one without CURRENT.
func TestResolveUnsearchable(t *testing.T) {
	eacces := &fs.PathError{Op: "lstat", Path: "d/CURRENT", Err: syscall.EACCES}
	db, ts := verify.ResolveUnsearchable("d", []fs.DirEntry{dirEntry("000007.sst"), dirEntry("CURRENT"), dirEntry("LOG")}, eacces)
	if db == nil || db.Err == nil || !errors.Is(db.Err, syscall.EACCES) || !strings.Contains(db.Err.Error(), "d: CURRENT is there but cannot be looked at") {
		t.Fatalf("database %+v", db)
	}
	if want := "Invalid argument: d: does not exist (create_if_missing is false)"; db.Status != want {
		t.Errorf("status %q, want %q", db.Status, want)
	}
	if len(ts) != 1 || ts[0].Path != filepath.Join("d", "000007.sst") || ts[0].DB != db {
		t.Errorf("tables %+v, want d/000007.sst", ts)
	}
	db, ts = verify.ResolveUnsearchable("d", []fs.DirEntry{dirEntry("000007.sst"), dirEntry("LOG")}, eacces)
	if db != nil || ts != nil {
		t.Errorf("without CURRENT or a MANIFEST listed: %+v, %+v, want none", db, ts)
	}
	db, _ = verify.ResolveUnsearchable("d", []fs.DirEntry{dirEntry("MANIFEST-000003")}, eacces)
	if db == nil || !strings.Contains(db.Err.Error(), "no CURRENT file, although MANIFEST-000003 is there") {
		t.Errorf("with a MANIFEST and no CURRENT listed: %+v", db)
	}
}

// TestResolveLinks: a database's CURRENT and MANIFEST that are symbolic
// links within it are read through, and where they lead is reported.
func TestResolveLinks(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	copyFixtureTo(t, "b10-bs4096-snappy", dir)
	for _, name := range []string{"CURRENT", "MANIFEST-000002"} {
		p := filepath.Join(dir, name)
		if err := os.Rename(p, p+".real"); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(name+".real", p); err != nil {
			t.Fatal(err)
		}
	}
	items := verify.Resolve([]string{dir})
	if len(items) == 0 || items[0].Database == nil {
		t.Fatalf("items %+v", items)
	}
	db := items[0].Database
	if db.CurrentLink != "CURRENT.real" || db.ManifestLink != "MANIFEST-000002.real" || db.Err != nil {
		t.Errorf("CURRENT leads to %q, the MANIFEST to %q (error %v), want CURRENT.real and MANIFEST-000002.real", db.CurrentLink, db.ManifestLink, db.Err)
	}
	plain := filepath.Join(t.TempDir(), "db")
	copyFixtureTo(t, "b10-bs4096-snappy", plain)
	db = verify.Resolve([]string{plain})[0].Database
	if db == nil || db.CurrentLink != "" || db.ManifestLink != "" {
		t.Errorf("database without links: %+v", db)
	}
}

// TestNamedDevice: a device named on the command line is no table file,
// whatever its name.
func TestNamedDevice(t *testing.T) {
	fi, err := os.Stat(os.DevNull)
	if err != nil || fi.Mode().IsRegular() {
		t.Skipf("%s: %v", os.DevNull, err)
	}
	items := verify.Resolve([]string{os.DevNull})
	if len(items) != 1 || items[0].Table == nil || !items[0].Table.NotTable || !strings.HasPrefix(items[0].Table.Skip, "not a table: ") {
		t.Errorf("items %+v, want %s as no table", items, os.DevNull)
	}
}

// TestResolveCurrentTooLong: a directory that lists CURRENT where looking
// at it fails otherwise than by its absence (here its path is longer than
// the system takes, where the directory's own is not) is a database that
// upstream refuses: it finds no CURRENT. Root searches any directory, so
// this stands in for one readable but not searchable.
func TestResolveCurrentTooLong(t *testing.T) {
	dir := t.TempDir()
	for len(dir) < 4096-len("/CURRENT")-200 {
		dir = filepath.Join(dir, strings.Repeat("d", 200))
	}
	dir = filepath.Join(dir, strings.Repeat("e", 4096-len("/CURRENT")-len(dir)-1))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Skipf("cannot make a directory of %d bytes: %v", len(dir), err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "CURRENT")); !errors.Is(err, syscall.ENAMETOOLONG) {
		t.Skipf("no ENAMETOOLONG here: %v", err)
	}
	// The directory's path is too long for CURRENT's: make it from within.
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chdir(dir); err != nil {
		t.Skip(err)
	}
	f, err := os.Create("CURRENT")
	if cerr := os.Chdir(wd); cerr != nil {
		t.Fatal(cerr)
	}
	if err != nil {
		t.Skip(err)
	}
	f.Close()
	items := verify.Resolve([]string{dir})
	if len(items) == 0 || items[0].Database == nil {
		t.Fatalf("items %+v, want a database", items)
	}
	db := items[0].Database
	if db.Err == nil || !errors.Is(db.Err, syscall.ENAMETOOLONG) || !strings.Contains(db.Err.Error(), "CURRENT is there but cannot be looked at") {
		t.Errorf("database error %v, want CURRENT there but not looked at", db.Err)
	}
}
