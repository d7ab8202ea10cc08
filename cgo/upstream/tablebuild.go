//go:build leveldb

package upstream

/*
#include <stdlib.h>
#include "shim.h"

ldbc_result* ldbc_table_build(const char* keys, const uint64_t* koffs,
                              const char* vals, const uint64_t* voffs,
                              size_t n, size_t block_size,
                              int restart_interval, int snappy, int bits);
ldbc_result* ldbc_table_read_bytes(const char* data, size_t n, int bits);
*/
import "C"

import (
	"errors"
	"fmt"
)

// The linked LevelDB's TableBuilder and Table on bytes in memory
// (tablebuild_shim.cc), configured as a database configures them, for the
// kit's table properties and the reference writer's differential test.

// BuildOptions are the options of leveldb::Options that shape a table.
type BuildOptions struct {
	BlockSize       int  // Options::block_size
	RestartInterval int  // Options::block_restart_interval, at least 1
	Snappy          bool // kSnappyCompression, else kNoCompression
	// BitsPerKey selects InternalFilterPolicy over
	// NewBloomFilterPolicy(BitsPerKey); 0 means no filter policy.
	BitsPerKey int
}

// BuildTable has upstream's TableBuilder, with an InternalKeyComparator
// over BytewiseComparator(), write a table of keys (internal keys, in
// increasing order, at least 8 bytes each) and values, and returns its
// bytes. Keys out of order make upstream's asserts (compiled out) pass
// silently: callers must not pass them.
func BuildTable(keys, values [][]byte, o BuildOptions) ([]byte, error) {
	if len(keys) != len(values) {
		return nil, fmt.Errorf("upstream: BuildTable: %d keys, %d values", len(keys), len(values))
	}
	if o.RestartInterval < 1 || o.BlockSize < 0 || o.BitsPerKey < 0 {
		return nil, fmt.Errorf("upstream: BuildTable: options %+v out of range", o)
	}
	for i, k := range keys {
		if len(k) < 8 {
			return nil, fmt.Errorf("upstream: BuildTable: key %d of %d bytes is no internal key", i, len(k))
		}
	}
	kflat, koffs := flatten(keys)
	vflat, voffs := flatten(values)
	r := C.ldbc_table_build(bytesPtr(kflat), u64Ptr(koffs), bytesPtr(vflat), u64Ptr(voffs), C.size_t(len(keys)),
		C.size_t(o.BlockSize), C.int(o.RestartInterval), cBool(o.Snappy), C.int(o.BitsPerKey))
	defer C.ldbc_result_free(r)
	out := resultBytes(r)
	if len(out) > 0 && out[0] == '!' {
		return nil, errors.New("upstream: TableBuilder: " + string(out[1:]))
	}
	return out, nil
}

func cBool(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

// TableScan is what upstream's Table makes of a table's bytes.
type TableScan struct {
	// OpenStatus is Table::Open's status, "" when OK: nothing is read
	// then.
	OpenStatus string
	// Entries are every key and value the table's iterator yields in a
	// full scan with verify_checksums, in order.
	Entries [][2][]byte
	// ScanStatus is the iterator's status after the scan, "" when OK.
	ScanStatus string
}

// Status is the open status, else the scan's: "" when upstream read the
// table without an error.
func (s *TableScan) Status() string {
	if s.OpenStatus != "" {
		return s.OpenStatus
	}
	return s.ScanStatus
}

// ScanTable opens data, a whole table file, with upstream's Table::Open
// (paranoid_checks, an InternalKeyComparator over BytewiseComparator(),
// and InternalFilterPolicy over NewBloomFilterPolicy(bitsPerKey) when
// bitsPerKey > 0) and reads every entry with verify_checksums. Tables
// that make upstream read out of bounds or abort (see ReadTable) must not
// be passed; a block's checksum is verified before its contents are
// decoded, so a table upstream wrote and then damaged is safe.
func ScanTable(data []byte, bitsPerKey int) (*TableScan, error) {
	if bitsPerKey < 0 {
		return nil, fmt.Errorf("upstream: ScanTable: bitsPerKey %d is negative", bitsPerKey)
	}
	r := C.ldbc_table_read_bytes(bytesPtr(data), C.size_t(len(data)), C.int(bitsPerKey))
	defer C.ldbc_result_free(r)
	d := decoder{b: resultBytes(r)}
	out := &TableScan{OpenStatus: d.str()}
	out.Entries = list(&d, uint64(d.u32()), func() [2][]byte { return [2][]byte{d.bytes(), d.bytes()} })
	out.ScanStatus = d.str()
	return result(&d, out)
}
