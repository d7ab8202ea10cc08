//go:build leveldb

package upstream

/*
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
	"unsafe"
)

// DBScan is what reading a whole database once cost the linked LevelDB.
type DBScan struct {
	// CPU is the process's CPU time (user and system, every thread's)
	// from before DB::Open to after the DB was closed; Wall is the elapsed
	// time of the same span.
	CPU, Wall time.Duration
	// Entries is how many entries the iterator yielded, Bytes the total
	// of their keys' and values' lengths.
	Entries, Bytes uint64
}

// TimeDBScan reads the database directory dir as an application reads all
// of it with upstream's public API: leveldb::DB::Open with the default
// options (create_if_missing off), then one iterator from the first entry to
// the last with ReadOptions verify_checksums on and fill_cache off, then
// the DB is closed. The time is taken inside C++, so no cgo call is
// counted. It returns an error naming dir when Open or the iterator fails.
//
// DB::Open writes to dir as it always does (a new log file and MANIFEST,
// old ones removed): pass a copy of a database that must not change. A
// directory without a CURRENT file, which DB::Open would create things in
// before failing, is refused without calling it.
func TimeDBScan(dir string) (DBScan, error) {
	if _, err := os.Stat(filepath.Join(dir, "CURRENT")); err != nil {
		return DBScan{}, fmt.Errorf("upstream: scanning %s: not a database: %w", dir, err)
	}
	cdir := C.CString(dir)
	defer C.free(unsafe.Pointer(cdir))
	var cpu, wall C.int64_t
	var entries, bytes C.uint64_t
	r := C.ldbc_time_db_scan(cdir, &cpu, &wall, &entries, &bytes)
	defer C.ldbc_result_free(r)
	if msg := resultBytes(r); len(msg) > 0 {
		return DBScan{}, fmt.Errorf("upstream: scanning %s: %w", dir, errors.New(string(msg)))
	}
	if cpu < 0 {
		return DBScan{}, fmt.Errorf("upstream: scanning %s: no process CPU clock", dir)
	}
	return DBScan{
		CPU:     time.Duration(cpu),
		Wall:    time.Duration(wall),
		Entries: uint64(entries),
		Bytes:   uint64(bytes),
	}, nil
}
