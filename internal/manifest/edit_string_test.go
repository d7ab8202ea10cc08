package manifest

import (
	"testing"

	mt "github.com/ldbcompat/ldbcompat/internal/manifest/manifesttest"
)

// TestDebugString checks DecodeEdit and DebugString against
// db/version_edit.cc's DebugString, written out by hand: fields in its
// order whatever the record's, removed files as a set, keys as
// InternalKey::DebugString prints them.
func TestDebugString(t *testing.T) {
	rec := new(mt.Edit).NewFile(1, 7, 1500, mt.InternalKey("a\x00", 5), "short").
		Deleted(2, 9).Deleted(0, 4).Deleted(2, 9).
		CompactPointer(3, mt.InternalKey("k~", 1<<40)).
		Counters(4, 10, 100).Comparator("leveldb.BytewiseComparator").B
	e, err := DecodeEdit(rec)
	if err != nil {
		t.Fatal(err)
	}
	want := "VersionEdit {" +
		"\n  Comparator: leveldb.BytewiseComparator" +
		"\n  LogNumber: 4\n  PrevLogNumber: 0\n  NextFile: 10\n  LastSeq: 100" +
		"\n  CompactPointer: 3 'k~' @ 1099511627776 : 1" +
		"\n  RemoveFile: 0 4\n  RemoveFile: 2 9" +
		"\n  AddFile: 1 7 1500 'a\\x00' @ 5 : 1 .. (bad)short" +
		"\n}\n"
	if got := e.DebugString(); got != want {
		t.Errorf("DebugString:\n%s\nwant\n%s", got, want)
	}
	if _, err := DecodeEdit([]byte{99}); err == nil || err.(*EditError).Status() != "Corruption: VersionEdit: unknown tag" {
		t.Errorf("unknown tag: %v", err)
	}
}
