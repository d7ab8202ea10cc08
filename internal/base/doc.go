// Package base holds what every reader of LevelDB's files shares: the one
// error type, with upstream's status for each problem (status.h,
// util/env_posix.cc), varints (util/coding.cc), file names (db/filename.cc)
// and opening files without blocking.
package base
