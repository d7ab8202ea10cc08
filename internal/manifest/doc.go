// Package manifest reads which tables make up a LevelDB database: the
// CURRENT file (the MANIFEST's name and a newline), the MANIFEST it names,
// and the version edits in it. It is read-only and takes no lock: LevelDB
// may be running.
//
// The MANIFEST is a log (db/log_format.h, read by package logfile); a
// record cut short by the end of the file was being written and is ignored,
// as LevelDB ignores it. Each record is a VersionEdit (db/version_edit.cc),
// fields of a varint32 tag and a value:
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
// Levels are below 7; internal keys are not empty. Replaying the edits,
// each edit's deletions before its additions, leaves each level's live
// tables; table N is NNNNNN.ldb (or .sst) (base.TableFileName).
//
// Files follow upstream's: log_reader.go db/log_reader.cc; version_edit.go
// and edit_string.go db/version_edit.cc (DecodeFrom, DebugString);
// builder.go and manifest.go db/version_set.cc (Builder, Recover);
// recover.go db/db_impl.cc (DBImpl::Recover's missing-file check). Errors
// are *base.Error values with upstream's status.
package manifest
