// Package manifest reads which tables make up a LevelDB database: the
// CURRENT file, the MANIFEST it names, and the version edits in it. It is
// read-only, like package table, and takes no lock: LevelDB may be running.
//
// # CURRENT
//
// The name of the MANIFEST, such as "MANIFEST-000002", and a newline.
//
// # The MANIFEST: a log file (db/log_format.h)
//
// The file is a sequence of 32 KiB blocks (the last one may be short).
// Each block holds records; a record never starts in the last 6 bytes of a
// block, which are zero-filled instead:
//
//	+---------------------------+------------------+----------+----------------+
//	| masked crc32c (LE u32)    | length (LE u16)  | type (1) | data (length)  |
//	+---------------------------+------------------+----------+----------------+
//
// The crc32c covers the type byte and the data, masked as in table blocks.
// Type 1 (FULL) holds a whole logical record; a longer one is split into
// FIRST (2), MIDDLE (3) ... and LAST (4) fragments across blocks. Type 0
// with length 0 is preallocated space and skipped. A record cut short by the
// end of the file was being written, and is ignored, as LevelDB ignores it.
//
// # Logical records: version edits (db/version_edit.cc)
//
// Each record is a VersionEdit, a sequence of fields, each a varint32 tag
// and its value:
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
// Levels are below 7; internal keys are not empty. Replaying the edits in
// order, each edit's deletions before its additions, leaves the live tables
// of each level: the database's current version. Table N is the file
// NNNNNN.ldb (or NNNNNN.sst, the older name) in the database directory
// (base.TableFileName).
//
// # Files
//
// Each file follows an upstream one:
//
//	log_reader.go    db/log_reader.cc     the log's records, read by package logfile (records)
//	version_edit.go  db/version_edit.cc   VersionEdit::DecodeFrom (decodeEdit)
//	edit_string.go   db/version_edit.cc   DebugString, for dump (DecodeEdit, Edit)
//	builder.go       db/version_set.cc    VersionSet::Builder (builder)
//	manifest.go      db/version_set.cc    VersionSet::Recover (Read, Parse)
//	recover.go       db/db_impl.cc        DBImpl::Recover's missing-file check (Missing)
//
// Errors are *base.Error values with upstream's status.
package manifest
