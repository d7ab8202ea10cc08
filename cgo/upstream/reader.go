//go:build leveldb

package upstream

/*
#cgo CXXFLAGS: -DLEVELDB_PLATFORM_POSIX
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"encoding/binary"
	"fmt"
	"unsafe"
)

// TableEntry is one entry a table's iterator yields.
type TableEntry struct {
	Key, Value []byte
	// ParsesAsInternalKey tells whether ParseInternalKey (db/dbformat.h)
	// accepts Key, as DBIter requires: at least 8 bytes, type 0 or 1.
	// Otherwise DBIter reports "corrupted internal key in DBIter".
	ParsesAsInternalKey bool
}

// TableGet is the outcome of one TableCache::Get.
type TableGet struct {
	// Found is set when Table::InternalGet called back with an entry: the
	// first one at or after the lookup key in the data block that the
	// index points to. Key and Value are that entry.
	Found      bool
	Key, Value []byte
	// Status is the Status::ToString() of the call, "" when OK.
	Status string
	// FilterCalls holds the answers of the filter policy's KeyMayMatch,
	// one per call: none when the table has no usable filter (or the
	// filter block reader answered without asking the policy).
	FilterCalls []bool
}

// TableRead is what the linked LevelDB does with a live table.
type TableRead struct {
	// OpenStatus is the status of TableCache's FindTable (opening the
	// file and Table::Open), "" when OK.
	OpenStatus string
	// Entries are what a full scan (SeekToFirst, Next while Valid) of
	// TableCache::NewIterator yields, with verify_checksums unless
	// TableOptions.Defaults.
	Entries []TableEntry
	// ScanStatus is the iterator's status after the scan, "" when OK.
	ScanStatus string
	// Gets holds one TableCache::Get per lookup key.
	Gets []TableGet
}

// TableOptions are the options ReadTable reads a table with.
type TableOptions struct {
	// PolicyName is the name of the filter policy: Table::ReadMeta looks
	// for "filter."+PolicyName in the metaindex.
	PolicyName string
	// BitsPerKey is passed to NewBloomFilterPolicy, whose filters the
	// named policy reads.
	BitsPerKey int
	// Lookups are the internal keys to pass to TableCache::Get.
	Lookups [][]byte
	// Comparator is the user comparator under the internal key
	// comparator; the zero value is leveldb::BytewiseComparator().
	Comparator Comparator
	// Defaults reads with LevelDB's default options, paranoid_checks and
	// ReadOptions.verify_checksums false, as most programs run it: no
	// block's checksum is compared (table/table.cc, table/format.cc
	// ReadBlock). The zero value reads with both true.
	Defaults bool
}

// Comparator describes a user comparator for ReadTable and
// RecoverManifestWith: the zero value is upstream's
// leveldb::BytewiseComparator(); otherwise one whose Name() is Name,
// ordering keys bytewise, or in reverse bytewise order when Reverse is set
// (such as plyvel applications pass: a name and an ordering).
type Comparator struct {
	Name    string
	Reverse bool
}

// cArgs returns the shim's comparator arguments for c; free releases them.
func (c Comparator) cArgs() (name *C.char, reverse C.int, free func()) {
	if c == (Comparator{}) {
		return nil, 0, func() {}
	}
	name = C.CString(c.Name)
	if c.Reverse {
		reverse = 1
	}
	return name, reverse, func() { C.free(unsafe.Pointer(name)) }
}

// ReadTable reads table number of the database directory dir as the linked
// LevelDB reads a live table of size bytes (the size the MANIFEST records):
// through a leveldb::TableCache, opening NNNNNN.ldb, else NNNNNN.sst (v1.4 to
// v1.13 know only NNNNNN.sst), with Env::Default(), then Table::Open with
// the given size. The options are a DB's with paranoid_checks, no block
// cache, and as filter policy an InternalFilterPolicy over a policy named
// o.PolicyName that reads NewBloomFilterPolicy(o.BitsPerKey)'s filters and
// records each KeyMayMatch. Every read verifies checksums, unless
// o.Defaults asks for LevelDB's default options.
//
// Some tables make upstream crash or read out of bounds (a block handle
// whose offset plus size overflows, a size too large to allocate, an
// entry whose key and value lengths overflow uint32, a lookup compared
// with a key shorter than 8 bytes): callers must not pass them.
func ReadTable(dir string, number, size uint64, o TableOptions) (*TableRead, error) {
	if o.BitsPerKey < 0 {
		panic(fmt.Sprintf("upstream: bitsPerKey %d is negative", o.BitsPerKey))
	}
	cdir := C.CString(dir)
	defer C.free(unsafe.Pointer(cdir))
	cname := C.CString(o.PolicyName)
	defer C.free(unsafe.Pointer(cname))
	flat, offs := flatten(o.Lookups)
	cmpName, cmpReverse, freeCmp := o.Comparator.cArgs()
	defer freeCmp()
	defaults := C.int(0)
	if o.Defaults {
		defaults = 1
	}
	r := C.ldbc_table_read(cdir, C.uint64_t(number), C.uint64_t(size), cname, C.int(o.BitsPerKey),
		bytesPtr(flat), u64Ptr(offs), C.size_t(len(o.Lookups)), cmpName, cmpReverse, defaults)
	defer C.ldbc_result_free(r)
	d := decoder{b: resultBytes(r)}
	out := &TableRead{OpenStatus: d.str()}
	out.Entries = list(&d, uint64(d.u32()), func() TableEntry {
		var e TableEntry
		e.ParsesAsInternalKey = d.u8() != 0
		e.Key, e.Value = d.bytes(), d.bytes()
		return e
	})
	out.ScanStatus = d.str()
	out.Gets = list(&d, uint64(d.u32()), func() TableGet {
		g := TableGet{Found: d.u8() != 0, Key: d.bytes(), Value: d.bytes(), Status: d.str()}
		g.FilterCalls = list(&d, uint64(d.u32()), func() bool { return d.u8() != 0 })
		return g
	})
	return result(&d, out)
}

// ManifestFile is a live file of a recovered version.
type ManifestFile struct {
	Level             int
	Number, Size      uint64
	Smallest, Largest []byte
}

// Recovery is what VersionSet::Recover makes of a database directory.
type Recovery struct {
	// Status is Recover's Status::ToString(), "" when OK; the other
	// fields are set only then.
	Status string
	// LogNumber, PrevLogNumber, NextFile (the MANIFEST's next file
	// number, VersionSet::ManifestFileNumber) and LastSequence as
	// recovered.
	LogNumber, PrevLogNumber, NextFile, LastSequence uint64
	// Files are the current version's files, level by level, each level
	// in the order the Version holds them (by smallest key, then number).
	Files []ManifestFile
	// Missing is what DBImpl::Recover says next when a live file's number
	// is not the number of any file in the directory ("N missing files;
	// e.g. ..."), or its error listing the directory; "" otherwise. v1.4
	// to v1.9 do not check (v1.10 added it): always "" with them.
	Missing string
}

// RecoverManifest runs leveldb::VersionSet::Recover on the database
// directory dir, with the bytewise comparator, reading CURRENT and the
// MANIFEST it names without writing anything, and returns the outcome.
//
// A MANIFEST whose new-file entries hold internal keys shorter than 8
// bytes at a level with more than one file makes upstream's comparator
// read out of bounds: callers must not pass one.
func RecoverManifest(dir string) (*Recovery, error) {
	return RecoverManifestWith(dir, Comparator{})
}

// RecoverManifestWith is RecoverManifest for a database opened with the
// user comparator c, as an application with that comparator opens it.
func RecoverManifestWith(dir string, c Comparator) (*Recovery, error) {
	cdir := C.CString(dir)
	defer C.free(unsafe.Pointer(cdir))
	cmpName, cmpReverse, freeCmp := c.cArgs()
	defer freeCmp()
	r := C.ldbc_manifest_recover(cdir, cmpName, cmpReverse)
	defer C.ldbc_result_free(r)
	d := decoder{b: resultBytes(r)}
	out := &Recovery{Status: d.str()}
	if out.Status == "" {
		out.LogNumber, out.PrevLogNumber, out.NextFile, out.LastSequence = d.u64(), d.u64(), d.u64(), d.u64()
		out.Files = list(&d, uint64(d.u32()), func() ManifestFile {
			f := ManifestFile{Level: int(d.u32()), Number: d.u64(), Size: d.u64()}
			f.Smallest, f.Largest = d.bytes(), d.bytes()
			return f
		})
		out.Missing = d.str()
	}
	return result(&d, out)
}

// list decodes n items with one, stopping at the first decoding error.
func list[T any](d *decoder, n uint64, one func() T) []T {
	var out []T
	for i := uint64(0); i < n && d.err == nil; i++ {
		out = append(out, one())
	}
	return out
}

// result returns out, or nil and d.done's error.
func result[T any](d *decoder, out *T) (*T, error) {
	if err := d.done(); err != nil {
		return nil, err
	}
	return out, nil
}

// decoder reads the results reader_shim.cc serializes.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) take(n int) []byte {
	if d.err != nil {
		return nil
	}
	if n > len(d.b) {
		d.err = fmt.Errorf("upstream: result ends %d bytes short", n-len(d.b))
		return nil
	}
	v := d.b[:n:n]
	d.b = d.b[n:]
	return v
}

func (d *decoder) u8() uint8 {
	if b := d.take(1); b != nil {
		return b[0]
	}
	return 0
}

func (d *decoder) u32() uint32 {
	if b := d.take(4); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}

func (d *decoder) u64() uint64 {
	if b := d.take(8); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

func (d *decoder) bytes() []byte {
	b := d.take(int(d.u32()))
	if b == nil {
		return []byte{}
	}
	return b
}

func (d *decoder) str() string { return string(d.bytes()) }

func (d *decoder) done() error {
	if d.err == nil && len(d.b) != 0 {
		d.err = fmt.Errorf("upstream: %d bytes left after the result", len(d.b))
	}
	return d.err
}
