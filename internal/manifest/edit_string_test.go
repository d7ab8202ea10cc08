package manifest

import (
	"testing"

	mt "github.com/ldbcompat/ldbcompat/internal/manifest/manifesttest"
)

// TestDebugString checks DecodeEdit and DebugString against
// db/version_edit.cc's DebugString, written out by hand: fields in its
// order whatever the record's, removed files as a set (std::set of level
// and number: sorted by level, then number, each once), keys as
// InternalKey::DebugString prints them: user key escaped (two quotes for an empty
// one), or (bad) and the whole key when its type byte is above 1.
func TestDebugString(t *testing.T) {
	rec := new(mt.Edit).NewFile(1, 7, 1500, mt.InternalKey("a\x00", 5), "short").
		Deleted(2, 9).Deleted(0, 4).Deleted(2, 9).Deleted(2, 3).Deleted(0, 11).Deleted(1, 4).
		CompactPointer(3, mt.InternalKey("k~", 1<<40)).CompactPointer(1, mt.InternalKey("", 7)).
		CompactPointer(2, "\x1f a\x02\x00\x00\x00\x00\x00\x00\x00").
		Counters(4, 10, 100).Comparator("leveldb.BytewiseComparator").B
	e, err := DecodeEdit(rec)
	if err != nil {
		t.Fatal(err)
	}
	want := "VersionEdit {" +
		"\n  Comparator: leveldb.BytewiseComparator" +
		"\n  LogNumber: 4\n  PrevLogNumber: 0\n  NextFile: 10\n  LastSeq: 100" +
		"\n  CompactPointer: 3 'k~' @ 1099511627776 : 1" +
		"\n  CompactPointer: 1 '' @ 7 : 1" +
		"\n  CompactPointer: 2 (bad)\\x1f a\\x02\\x00\\x00\\x00\\x00\\x00\\x00\\x00" +
		"\n  RemoveFile: 0 4\n  RemoveFile: 0 11\n  RemoveFile: 1 4\n  RemoveFile: 2 3\n  RemoveFile: 2 9" +
		"\n  AddFile: 1 7 1500 'a\\x00' @ 5 : 1 .. (bad)short" +
		"\n}\n"
	if got := e.DebugString(); got != want {
		t.Errorf("DebugString:\n%s\nwant\n%s", got, want)
	}
	if _, err := DecodeEdit([]byte{99}); err == nil || err.(*EditError).Status() != "Corruption: VersionEdit: unknown tag" {
		t.Errorf("unknown tag: %v", err)
	}
}
