// Package upstreamdb asks upstream LevelDB 1.23 itself, through package
// cgo/upstream, what it does with a database and with each of its live
// tables: whether VersionSet::Recover and DBImpl::Recover's missing-file
// check accept the database, and for each table whether TableCache opens
// it and scans it in full, and whether a Get of each of its keys consults
// a filter and finds the key. It gives the expectations that
// internal/verify's verdicts are tested against, and the upstream column
// of ports/cmd/report's section on databases other implementations wrote.
//
// Everything but this file is behind the build tag "leveldb" (see
// cgo/upstream).
package upstreamdb
