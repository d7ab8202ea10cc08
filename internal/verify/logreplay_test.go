package verify

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/ldbcompat/ldbcompat/internal/manifest"
)

// copyLogDB copies the database testdata/logdbs/name (upstream left its
// writes in 000003.log; its MANIFEST's log number is 3, previous log
// number 0) to a new directory.
func copyLogDB(t *testing.T, name string) string {
	t.Helper()
	src := filepath.Join("../../testdata/logdbs", name)
	dir := t.TempDir()
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func openLogDB(t *testing.T, dir string) *Database {
	t.Helper()
	items := Resolve([]string{dir})
	if len(items) != 1 || items[0].Database == nil || items[0].Database.Version == nil {
		t.Fatalf("%s: %+v", dir, items)
	}
	return items[0].Database
}

// TestReplayLogs: the crash database's log replayed whole (200 writes,
// each synced, testdata/logdbs/crash.json).
func TestReplayLogs(t *testing.T) {
	db := openLogDB(t, copyLogDB(t, "crash"))
	if len(db.Logs) != 1 {
		t.Fatalf("%d logs", len(db.Logs))
	}
	l := db.Logs[0]
	if l.Number != 3 || l.Err != nil || l.Recovery == nil || l.Verdict != Replayed || l.Recovery.Defaults.Ops != 200 {
		t.Errorf("%+v", l)
	}
}

// TestReplayMissingLogs: logs listed but gone when opened. One the
// MANIFEST, read again, has retired (below its log number, not its
// previous log number) was deleted by LevelDB moving on: not replayed.
// Others are reported, as upstream's open ignores (defaults) or fails on
// (paranoid) a log that does not open.
func TestReplayMissingLogs(t *testing.T) {
	dir := copyLogDB(t, "crash")
	db := openLogDB(t, dir)
	if err := os.Remove(filepath.Join(dir, "000003.log")); err != nil {
		t.Fatal(err)
	}
	// As if the directory was listed, and the MANIFEST read, before
	// LevelDB moved on to log 3.
	v := *db.Version
	v.LogNumber, v.PrevLogNumber = 0, 0
	db.Version, db.Logs = &v, nil
	replayLogs(db, []string{"000000.log", "000002.log", "000003.log", "000004.log"})
	var got []uint64
	for _, l := range db.Logs {
		got = append(got, l.Number)
		if l.Recovery != nil || !errors.Is(l.Err, fs.ErrNotExist) || l.Status == "" {
			t.Errorf("log %d: %+v", l.Number, l)
		}
	}
	// 0 is the previous log number (none), 3 and 4 not below the log number.
	if len(got) != 3 || got[0] != 0 || got[1] != 3 || got[2] != 4 {
		t.Errorf("logs reported %v, want [0 3 4]", got)
	}
}

// TestSearchLinkOut: a symbolic link in a searched tree to a directory
// outside it is not followed, and says so.
func TestSearchLinkOut(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	link := filepath.Join(root, "elsewhere")
	if err := os.Symlink(outside, link); err != nil {
		t.Skip(err)
	}
	var notes []string
	for _, it := range Resolve([]string{root}) {
		if it.Note != "" {
			notes = append(notes, it.Path+": "+it.Note)
		}
	}
	if len(notes) != 1 || notes[0] != link+": not followed: a symbolic link to a directory outside the tree (name it to check what it leads to)" {
		t.Errorf("notes %q", notes)
	}
}

// TestLiveTableMissingUnreread: a live table not found, the MANIFEST no
// longer readable when read again: the table is reported missing.
func TestLiveTableMissingUnreread(t *testing.T) {
	dir := copyLogDB(t, "crash")
	db := openLogDB(t, dir)
	v := *db.Version
	v.Files = []manifest.File{{Number: 9, Level: 0, Smallest: []byte("a\x01\x00\x00\x00\x00\x00\x00\x00"), Largest: []byte("b\x01\x00\x00\x00\x00\x00\x00\x00")}}
	db.Version = &v
	if err := os.Remove(filepath.Join(dir, "CURRENT")); err != nil {
		t.Fatal(err)
	}
	ts := liveTargets(db, nil, []uint64{9})
	if len(ts) != 1 || !ts[0].missing || ts[0].Skip != "" || ts[0].Path != filepath.Join(dir, "000009.ldb") {
		t.Errorf("%+v", ts)
	}
}
