//go:build !leveldb

package kit

import "errors"

// liveOpen stands for recovery_live.go's: without the leveldb tag there
// is no upstream library to open a database with.
func liveOpen(string, bool) ([]kv, error) {
	return nil, errors.New("built without the leveldb tag")
}

// liveLogDBs stands for recovery_live.go's: without the leveldb tag
// upstream writes no database.
func liveLogDBs(string) ([]upstreamDB, error) { return nil, nil }

// liveLogDBCount is how many databases liveLogDBs writes.
const liveLogDBCount = 0
