// Package compat checks a Go implementation of LevelDB's bloom filter and
// filter block (a port) against upstream C++ LevelDB 1.23, byte for byte
// and answer for answer. The port's module requires this one (go get
// github.com/ldbcompat/ldbcompat@latest or, unpublished, a clone named in
// its go.mod, then `go mod tidy`):
//
//	require github.com/ldbcompat/ldbcompat v0.0.0
//
//	replace github.com/ldbcompat/ldbcompat => /path/to/clone
//
// A test of the port's own module describes it as a Port and calls TestPort:
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
// Port.Name and Port.NewPolicy are required; without another hook the
// properties it serves are skipped. TestPort runs a subtest per property:
//
//   - "filter name": NewPolicy(10).Name() is "leveldb.BuiltinBloomFilter2".
//   - "hash" (Hash): util/hash.cc's Hash, for every length 0..64.
//   - "filter bytes": CreateFilter's bytes for bits/key 0..64 and up to
//     1000, 0 to 100000 keys, duplicate, empty and long keys, and a dst.
//   - "KeyMayMatch on upstream filters": on upstream's filters and on
//     arbitrary and malformed ones (0 to 1001 bytes, k bytes 0 to 255).
//   - "filter block bytes" (NewFilterBlockBuilder): upstream's test
//     sequences, random tables, backward and huge offsets, calls after
//     Finish, with TestHashPolicy and bloom policies.
//   - "filter block reader" (NewFilterBlockReader): upstream's blocks and
//     damaged ones (truncated, every lg byte, bad offsets).
//   - "reads upstream's databases" (ReadDB): every key of databases
//     upstream wrote, and no deleted or absent key.
//   - "writes databases upstream reads" (WriteDB): every table holds the
//     filter block upstream's TableBuilder writes for its keys and, live,
//     upstream reads every key back.
//   - "table bytes" (WriteTable): against upstream's TableBuilder as a
//     database runs it (internal keys, bloom filter over user keys), for
//     block sizes 1 KiB to 64 KiB, restart intervals 1, 2, 16 and 32,
//     bits/key 0 and 10, keys of 0 to 64 KiB, empty values and a value
//     larger than a block: byte for byte without compression, block by
//     block after decompression with snappy. A difference names the block
//     (data block n, filter, metaindex, index, footer), the entry and the
//     field (shared or unshared length, value length, key bytes, restart
//     array, index separator, metaindex entry, block handle, trailer
//     checksum), and says whether upstream, checksums verified, reads every
//     entry right in a scan and by looking each key up as Get does
//     (Table::InternalGet: index seek, the case's bloom filter on the user
//     key, block seek): live upstream's Table and TableCache, else this
//     module's reader, which follows them. A key the lookup misses (a
//     filter over other keys, a separator below its block's last key) is a
//     false negative; bytes read right (another restart interval,
//     unshortened separators, an extra meta block) are a harmless layout;
//     a filter upstream does not consult (none, or not named
//     filter.leveldb.BuiltinBloomFilter2) is slower.
//   - "reads upstream's tables" (ReadTable): every entry, in order and
//     nothing else, of upstream's tables over that matrix, with and without
//     snappy; and of tables with a bit flipped in a data, index, metaindex
//     or filter block or the footer, or cut short: where upstream, checksums
//     verified, reports corruption, the port may fail or return fewer
//     entries but none upstream did not write; where upstream reads every
//     entry, the port must too.
//   - "log bytes" (WriteLog): each case's log against upstream's
//     log::Writer, byte for byte: empty records, a record ending at a
//     block's end, a block left with 1 to 8 bytes, records spanning blocks,
//     log_test.cc's layouts (Fragmentation, MarginalTrailer, ShortTrailer,
//     AlignedEof, ManyBlocks) and random sizes (more live). A difference
//     names the block, offset and field (header checksum, length, type,
//     payload, trailer padding); upstream's reader (live log::Reader, else
//     this module's, which follows it) then reads the port's log: every
//     record right is a harmless layout, records lost or wrong are
//     harmful. Reproducer: WriteLog(compat.CaseRecords(name)).
//   - "reads upstream's logs" (ReadLog): upstream's logs of those cases,
//     clean, damaged or torn (a bit flipped in a checksum, length, type or
//     payload; types 0, 5, 6 and unknown; fragments out of order; a zeroed
//     and an overwritten block; the tail cut in a header, a record or
//     between fragments; log_test.cc's corruption cases): the port must
//     return exactly the records upstream's log::Reader, verifying
//     checksums, returns. An error fails on a clean log; on a damaged one
//     only the records count. A missing record is a write upstream
//     recovers and the port loses. Reproducer: ReadLog(compat.CaseLog(name)).
//   - "upstream recovers the port's log" (WriteSynced): the port puts, each
//     with sync, 5 keys, 1000 small writes spanning several 32 KiB blocks,
//     and 8 values of 10 to 100 KiB (compat.CaseKVs of "synced/n5",
//     "synced/n1000", "synced/large"); the kit copies the open directory,
//     every file byte for byte with LOCK, as a crash of the port's process
//     leaves it (what the port handed the OS, synced or not: a lost fsync
//     is not seen), then calls closeDB and takes the closed directory too.
//     Upstream's DB::Open, with LevelDB's defaults and with
//     paranoid_checks, must find every key with its value and no other:
//     live through cgo under the leveldb tag, else as this module's
//     MANIFEST, table and log readers model DB::Open (the logs
//     DBImpl::Recover replays, read as RecoverLogFile does); a failure
//     says which judged.
//   - "recovers upstream's log" (ReadDB): databases LevelDB 1.23 left with
//     their writes, deletions among them, in the log alone (closed without
//     compaction, copied while open after synced writes, two logs to
//     replay after a memtable switch; embedded in testdata/logdbs and,
//     under the leveldb tag, written afresh): every live key and no deleted
//     or absent one.
//
// Upstream's answers come from golden vectors LevelDB 1.23 generated and
// databases it wrote, embedded here, so a plain `go test` needs only Go.
// Built with -tags leveldb and cgo flags for a LevelDB 1.23 build (in a
// clone, `eval "$(docker/build-leveldb.sh --print-env)"` makes one), the
// kit also asks the C++ library live, on larger cases, and writes and
// reads databases with it; the test log says what the port was compared
// with. LDBCOMPAT_WIDE=1 adds live a filter of 2^32 bits and more (512 MiB
// on each side), where 64-bit and 32-bit probe arithmetic part. Against a
// release before v1.18 (LEVELDB_VERSION=v1.4 ... v1.17), whose bloom
// filter is another (leveldb.BuiltinBloomFilter, tail bytes hashed as
// plain char), the kit does not ask it, says why, and only the golden
// vectors and committed databases count.
//
// Each failure names its case and what upstream does (the first differing
// byte with the bytes around it, or the first differing answer), and gives
// a reproducer: a line for a test of the port's package, importing only
// this package (and bloom, for policies) and the port's, calling the
// port's functions by the hooks' names, such as
//
//	NewPolicy(371).CreateFilter(compat.HexKeys("8a1a48..."), compat.HexBytes(""))
//
// Inputs too long for a line are got by case name: CaseKeys, CaseQuery,
// CaseFilter, CaseBlock and CaseCalls for the case suite, CaseKVs for
// WriteDB, CaseEntries and CaseTable for WriteTable and ReadTable, and
// UpstreamDB and UpstreamDBKeys for upstream's databases and the keys
// ReadDB is asked:
//
//	NewPolicy(10).CreateFilter(compat.CaseKeys("bpk10/n100000"), compat.HexBytes(""))
//	WriteTable(compat.CaseEntries("table/bs1024-r16-none-b10"), compat.TableOptions{BlockSize: 1024, RestartInterval: 16, Snappy: false, BitsPerKey: 10})
//	ReadTable(compat.CaseTable("table/bs1024-r16-none-b10/damaged-data1-at7-bit3"))
//	ReadDB(compat.UpstreamDB(t, "testdata/tables/b1-bs128-none"), 1, compat.UpstreamDBKeys("testdata/tables/b1-bs128-none"))
//
// A database reproducer may go on with a shell command (go run
// .../cmd/ldbcompat verify, which says how upstream reads a table) or with
// what upstream then does. A failed property also says what it means for
// users, most harmful first: false negatives (present keys reported
// missing), tables read without their filters, or only extra reads. A
// panicking hook fails its property and the test goes on, its stack
// showing the port's frames from the panic down to the hook; a port that
// cannot take an input upstream accepts may panic with a Refusal instead.
//
// This repository's ports module runs these checks on every Go LevelDB
// people run and writes docs/ports.md, the report on them, from the outcome.
package compat
