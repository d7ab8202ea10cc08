// Package base holds what every reader of LevelDB's files shares, in the
// spirit of pebble's internal/base: the one error type, with upstream's
// status for each problem, and the few facts of LevelDB's format that
// tables, the MANIFEST and verify's search of a directory all need.
//
// Each file follows an upstream one:
//
//	error.go     include/leveldb/status.h   Error, ErrUndefined, StatusOf
//	iostatus.go  util/env_posix.cc          IOStatus: upstream's words for an I/O error
//	coding.go    util/coding.cc             varints and length-prefixed slices
//	filename.go  db/filename.cc             file names: ParseFileName, TableFileName
//	open.go      util/env_posix.cc          OpenNonBlocking: open(2) and fstat(2) that never block
package base
