// Package upstreamdb asks upstream LevelDB 1.23 itself, through
// cgo/upstream, what it does with a database and each of its live tables:
// the expectations internal/verify's verdicts are tested against. All but
// this file is behind the build tag "leveldb".
package upstreamdb
