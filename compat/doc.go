// Package compat checks a Go implementation of LevelDB's bloom filter and
// filter block (a port) against upstream C++ LevelDB 1.23, byte for byte
// and answer for answer. The port's module requires this one:
//
//	go get github.com/ldbcompat/ldbcompat@latest
//
// or, while this module is not published, names a clone of it in the
// port's go.mod (then `go mod tidy` adds this module's requirements):
//
//	require github.com/ldbcompat/ldbcompat v0.0.0
//
//	replace github.com/ldbcompat/ldbcompat => /path/to/clone
//
// Describe the port as a Port and call TestPort from a test of the port's
// own module:
//
//	package myport_test
//
//	import (
//		"testing"
//
//		"github.com/ldbcompat/ldbcompat/bloom"
//		"github.com/ldbcompat/ldbcompat/compat"
//		"example.com/myport"
//	)
//
//	func TestLevelDBCompat(t *testing.T) {
//		compat.TestPort(t, compat.Port{Name: "myport", Hash: myport.Hash,
//			NewPolicy: func(bits int) bloom.FilterPolicy { return myport.NewBloomFilter(bits) }})
//	}
//
// Port.Name and Port.NewPolicy are required; every other hook is optional,
// and the properties it serves are skipped without it. TestPort runs one
// subtest per property, named as below:
//
//   - "filter name": NewPolicy(10).Name() is "leveldb.BuiltinBloomFilter2".
//   - "hash" (Hash): util/hash.cc's Hash, for every length 0..64.
//   - "filter bytes": CreateFilter's bytes, for bits/key 0..64 and up to
//     1000, 0 to 100000 keys, duplicate, empty and long keys, and a dst to
//     append to.
//   - "KeyMayMatch on upstream filters": KeyMayMatch on upstream's filters
//     and on arbitrary and malformed ones (0 to 1001 bytes, k bytes from 0
//     to 255).
//   - "filter block bytes" (NewFilterBlockBuilder): the filter block of
//     upstream's own test sequences, random tables, backward and huge
//     offsets, and calls after Finish, with upstream's test policy
//     (TestHashPolicy) and bloom policies.
//   - "filter block reader" (NewFilterBlockReader): answers on upstream's
//     blocks and on damaged ones (truncated, every lg byte, bad offsets).
//   - "reads upstream's databases" (ReadDB): the port reads every key of
//     databases that upstream wrote, and finds no deleted or absent key.
//   - "writes databases upstream reads" (WriteDB): every table of a
//     database the port writes holds the filter block upstream's
//     TableBuilder writes for its keys and, live, upstream reads every key
//     back.
//   - "table bytes" (WriteTable): the port's tables against upstream's
//     TableBuilder (as a database runs it: internal keys, bloom filter over
//     user keys) on the same entries, for block sizes 1 KiB to 64 KiB,
//     restart intervals 1, 2, 16 and 32, bits/key 0 and 10, keys of 0 to
//     64 KiB bytes, empty values and a value larger than a block: byte for
//     byte without compression; with snappy, block by block after
//     decompression. A difference names the block (data block n, filter,
//     metaindex, index, footer), the entry and the field (shared or
//     unshared length, value length, key bytes, restart array, index
//     separator, metaindex entry, block handle, trailer checksum), and says
//     whether upstream, checksums verified, still reads every entry of the
//     port's table right, in a full scan and by looking each key up as a
//     database's Get does (Table::InternalGet: index seek, the bloom
//     filter of the case's bits/key on the user key, block seek): live,
//     upstream's Table and TableCache do; without the leveldb tag this
//     module's table reader, which follows upstream's, does. A key the
//     lookup does not find (a filter over other keys, an index separator
//     smaller than its block's last key) is a false negative. Bytes
//     upstream reads and finds right (another restart interval,
//     unshortened separators, an extra meta block) are a harmless layout
//     difference; a filter upstream does not consult (none, or under
//     another name than filter.leveldb.BuiltinBloomFilter2) is slower.
//   - "reads upstream's tables" (ReadTable): every entry, in order and
//     nothing else, of upstream's tables over the same matrix, with and
//     without snappy; and upstream's tables with a bit flipped in a data,
//     index, metaindex or filter block or the footer, or cut short: where
//     upstream, checksums verified, reports corruption, the port may fail
//     or return fewer entries but no entry upstream did not write; where
//     upstream still reads every entry, the port must too.
//   - "log bytes" (WriteLog): the port's log of each case's records
//     against upstream's log::Writer, byte for byte: empty records, a
//     record ending exactly at a block's end, a block left with 1 to 8
//     bytes, records spanning blocks, log_test.cc's layouts
//     (Fragmentation, MarginalTrailer, ShortTrailer, AlignedEof,
//     ManyBlocks) and random sizes (more of them live). A difference
//     names the block, the offset and the field (header checksum,
//     length, type, payload, trailer padding), and upstream's reader
//     reads the port's log: every record right is a harmless layout;
//     records lost or wrong are harmful. Live, log::Reader itself
//     judges; from the golden vectors alone, this module's log reader,
//     which follows it. Reproducer: WriteLog(compat.CaseRecords(name)).
//   - "reads upstream's logs" (ReadLog): upstream's logs of those
//     cases, clean, and damaged or torn (a bit flipped in a checksum,
//     length, type or payload; types 0, 5, 6 and unknown; fragments out
//     of order; a zeroed and an overwritten block; the tail cut in a
//     header, a record or between fragments; log_test.cc's corruption
//     cases): the port must return exactly the records upstream's
//     log::Reader, verifying checksums, returns. An error on a clean log
//     fails; on a damaged one only the records count. A record missing
//     is a write upstream recovers and the port loses. Reproducer:
//     ReadLog(compat.CaseLog(name)).
//   - "upstream recovers the port's log" (WriteSynced): the port puts,
//     each with sync, 5 keys, 1000 small writes whose log spans several
//     32 KiB blocks, and 8 values of 10 to 100 KiB (compat.CaseKVs of
//     "synced/n5", "synced/n1000", "synced/large"); the kit copies the
//     directory while the database is open, every file byte for byte,
//     LOCK included, as a crash of the port's process leaves it (what
//     the port handed the operating system, synced or not: a lost
//     fsync is not seen), then calls closeDB and takes the closed
//     directory too. Upstream's DB::Open must open each, with LevelDB's
//     defaults and with paranoid_checks, and find every key with its
//     value and no other: live through cgo under the leveldb tag, else
//     as this module's MANIFEST, table and log readers model DB::Open
//     (the logs DBImpl::Recover replays, read as RecoverLogFile does);
//     a failure says which judged.
//   - "recovers upstream's log" (ReadDB): the port reads databases
//     LevelDB 1.23 left with their writes in the log alone, deletions
//     among them: closed without compaction, copied while open after
//     synced writes, and two logs to replay after a memtable switch
//     (embedded, testdata/logdbs, and, under the leveldb tag, written
//     afresh); it must find every live key and no deleted or absent one.
//
// Upstream's answers come from golden vectors that upstream LevelDB 1.23
// generated and that this module embeds, so a plain `go test` needs
// nothing but Go, and from databases it wrote. Built with -tags leveldb
// and cgo flags pointing at a LevelDB 1.23 build (in a clone of this
// module, `eval "$(docker/build-leveldb.sh --print-env)"` makes one and
// prints them), the kit also asks the C++ library live, on larger cases,
// and writes and reads databases with it (the test log says what the port
// was compared with). With LDBCOMPAT_WIDE=1 in the environment the live
// cases include a filter of 2^32 bits and more (512 MiB, on each side),
// where upstream's 64-bit probe arithmetic and a 32-bit one part. Built against
// a release before v1.18 (LEVELDB_VERSION=v1.4 ... v1.17), whose bloom
// filter is another (leveldb.BuiltinBloomFilter, hashing tail bytes as
// plain char), the kit does not ask it: the test log says why, and only
// the golden vectors and committed databases count.
//
// Each failure names its case and says what upstream does: the first
// differing byte, with the bytes around it, or the first differing answer.
// Its reproducer is a line to paste into a test of the port's package,
// whose only imports are this package (and package bloom, for policies)
// and the port's, calling the port's own functions by the names of the
// hooks, such as
//
//	NewPolicy(371).CreateFilter(compat.HexKeys("8a1a48..."), compat.HexBytes(""))
//
// An input too long for a line is got by its case's name: CaseKeys,
// CaseQuery, CaseFilter, CaseBlock and CaseCalls give the inputs of the
// case suite, CaseKVs those of WriteDB, CaseEntries and CaseTable those
// of WriteTable and ReadTable, and UpstreamDB and UpstreamDBKeys the
// databases upstream wrote and the keys ReadDB is asked:
//
//	NewPolicy(10).CreateFilter(compat.CaseKeys("bpk10/n100000"), compat.HexBytes(""))
//	WriteTable(compat.CaseEntries("table/bs1024-r16-none-b10"), compat.TableOptions{BlockSize: 1024, RestartInterval: 16, Snappy: false, BitsPerKey: 10})
//	ReadTable(compat.CaseTable("table/bs1024-r16-none-b10/damaged-data1-at7-bit3"))
//	ReadDB(compat.UpstreamDB(t, "testdata/tables/b1-bs128-none"), 1, compat.UpstreamDBKeys("testdata/tables/b1-bs128-none"))
//
// A reproducer of the database checks may go on with a shell command (go
// run .../cmd/ldbcompat verify, which says how upstream reads a table) or
// with what upstream then does. A failed property also says what the
// difference means for the port's users, the most harmful effect first:
// false negatives (present keys reported missing), tables read without
// their filters, or only extra reads. A hook that panics fails its
// property, and the test goes on; a port that cannot take an input
// upstream accepts may panic with a Refusal instead. A panic's stack shows
// the port's frames, from the panicking call down to the hook the kit
// called.
//
// This repository's ports module runs the same checks on every Go
// implementation of LevelDB people run, and writes docs/ports.md, the
// report on them, from the outcome.
package compat
