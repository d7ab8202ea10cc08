package compat

import (
	"encoding/hex"
	"testing"

	"github.com/ldbcompat/ldbcompat/internal/kit"
)

// The kit lives in package internal/kit, which ports/cmd/report also runs;
// this package gives a port's tests its names.

// Port describes a Go implementation of LevelDB's bloom filter and filter
// block to check against upstream. Only Name and NewPolicy are required;
// the properties whose hooks are nil are skipped. A hook that panics fails
// the property it serves; one that cannot take an input upstream accepts
// may panic with a Refusal. Its fields:
//
//	Name string
//		names the port in reports.
//	NewPolicy func(bitsPerKey int) bloom.FilterPolicy
//		the port's bloom filter policy for bitsPerKey, as
//		leveldb::NewBloomFilterPolicy; called with bitsPerKey 0..1000.
//	Hash func(data []byte, seed uint32) uint32
//		the port's util/hash.cc Hash, if it exports one.
//	NewFilterBlockBuilder func(p bloom.FilterPolicy) FilterBlockBuilder
//		the port's filter block builder using p, which may be the
//		port's own bloom policy or TestHashPolicy.
//	NewFilterBlockReader func(p bloom.FilterPolicy, contents []byte) FilterBlockReader
//		the port's filter block reader over contents using p.
//	WriteDB func(dir string, kvs [][2][]byte, bitsPerKey int) error
//		creates a database in the empty directory dir with the port's
//		bloom filter of bitsPerKey bits per key, puts kvs in order
//		(keys are distinct) and closes it, leaving the data in tables
//		(flush the memtable, for example by compacting the whole key
//		range). The kit checks every table's filter block and, under
//		the leveldb tag, has upstream read every key. Each table is a
//		case: a WriteDB whose tables depend on when background
//		compactions run gives other cases from run to run.
//	ReadDB func(dir string, bitsPerKey int, keys [][]byte) (found []bool, err error)
//		opens the database in dir, which upstream wrote with a bloom
//		filter of bitsPerKey bits per key, with the port's bloom filter
//		enabled, and reports for each key whether Get finds it. dir is
//		a copy that the port may change.
//	WriteTable func(entries []Entry, o TableOptions) ([]byte, error)
//		writes a table of entries, in order, with the port's table
//		writer under options o, as leveldb::TableBuilder does in a
//		database (internal keys under the bytewise comparator's
//		InternalKeyComparator, the bloom filter over user keys), and
//		returns its bytes: compared with upstream's TableBuilder and,
//		under the leveldb tag, read back by upstream's Table.
//	ReadTable func(contents []byte) ([]Entry, error)
//		opens a table upstream wrote with the port's table reader,
//		verifying block checksums, and returns every entry in order;
//		an error stands for the port reporting the table corrupt. On
//		damaged tables the port must not return an entry upstream did
//		not write.
//	WriteLog func(records [][]byte) ([]byte, error)
//		writes records with the port's log writer into a new log, as
//		leveldb::log::Writer::AddRecord, and returns the file's bytes.
//	ReadLog func(contents []byte) ([][]byte, error)
//		returns the records the port's log reader, verifying
//		checksums, returns from a log upstream wrote (clean, damaged or
//		torn); an error ends the read and the records returned count.
//	WriteSynced func(dir string, kvs [][2][]byte) (closeDB func() error, err error)
//		creates a database in the empty directory dir, puts kvs in
//		order, each with sync, and returns with the database open and
//		nothing flushed. The kit copies dir as a crash leaves it, calls
//		closeDB, and has upstream open both and find every write.
type Port = kit.Port

// Entry is an entry of a table: an internal key (the user key, then 8
// bytes little-endian of sequence<<8 | value type) and its value.
type Entry = kit.Entry

// TableOptions are the options of leveldb::Options that shape a table's
// bytes: BlockSize, RestartInterval, Snappy (kSnappyCompression, else
// kNoCompression) and BitsPerKey (the bloom filter; 0: none).
type TableOptions = kit.TableOptions

// FilterBlockBuilder is the builder half of a filter block implementation
// under test, with leveldb::FilterBlockBuilder's calls:
//
//	StartBlock(blockOffset uint64)
//	AddKey(key []byte)
//	Finish() []byte
type FilterBlockBuilder = kit.FilterBlockBuilder

// FilterBlockReader is the reader half of a filter block implementation
// under test, with leveldb::FilterBlockReader's call:
//
//	KeyMayMatch(blockOffset uint64, key []byte) bool
type FilterBlockReader = kit.FilterBlockReader

// TestHashPolicy is upstream's TestHashFilter from
// table/filter_block_test.cc, a bloom.FilterPolicy named "TestHashFilter":
// a filter is Hash(key, 1) of each key as a little-endian uint32, and a
// key matches when its hash is among them. Filter block cases use it so
// that the block layout is checked apart from the bloom filter.
type TestHashPolicy = kit.TestHashPolicy

// Refusal is what a hook panics with, as panic(compat.Refusal{Err: err}),
// when the port refuses an input that upstream accepts: for example a port
// whose filter block reader is reachable only through its table reader,
// which rejects a table whose filter block upstream reads as "every key
// may match". The kit reports it as a refusal rather than a crash, without
// a stack trace.
type Refusal = kit.Refusal

// TestPort checks port p against upstream LevelDB 1.23, with one subtest
// per property (listed in the package documentation). A failing subtest
// prints its first five failures, each with what upstream does and a
// reproducer, and what the difference means for users; properties whose
// hooks p leaves nil are skipped. A port that panics fails the property;
// the test binary goes on.
//
// Built with -tags leveldb (and cgo flags for upstream LevelDB 1.23, see
// the package documentation), it also asks the C++ library live and
// writes and reads databases with it. Against a release before v1.18,
// whose bloom filter is another, that live part does not run, and the
// test log says so.
func TestPort(t *testing.T, p Port) {
	t.Helper()
	kit.TestPort(t, p)
}

// HexBytes decodes a hex string, panicking on bad input; reproducers are
// written with it.
func HexBytes(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

// HexKeys decodes hex strings into keys, panicking on bad input;
// reproducers are written with it.
func HexKeys(ss ...string) [][]byte {
	out := make([][]byte, len(ss))
	for i, s := range ss {
		out[i] = HexBytes(s)
	}
	return out
}

// The inputs of the kit's cases, by name, for reproducers whose inputs are
// too long for a line. Each panics when there is no such case, as
// HexBytes does on bad hex: the kit writes them into reproducers; they
// are not for user input.

// CaseKeys returns the keys the kit gives CreateFilter in filter case name,
// as reproducers write them: NewPolicy(10).CreateFilter(compat.CaseKeys("bpk10/n100000"), nil).
func CaseKeys(name string) [][]byte { return kit.CaseKeys(name) }

// CaseQuery returns the key of query i of case name: the i-th key the kit
// asks KeyMayMatch of a filter or a filter block reader in that case.
func CaseQuery(name string, i int) []byte { return kit.CaseQuery(name, i) }

// CaseFilter returns the filter the kit asks KeyMayMatch on in case name:
// the bytes of a match case, or upstream's filter for the keys of a filter
// case, without its dst.
func CaseFilter(name string) []byte { return kit.CaseFilter(name) }

// CaseBlock returns the filter block the kit gives a filter block reader in
// case name: the contents of a reader case, or the block upstream's
// builder returns at the last Finish of a builder case.
func CaseBlock(name string) []byte { return kit.CaseBlock(name) }

// CaseCalls makes the calls of filter block builder case name on b, the
// port's builder, and returns what each Finish returned.
func CaseCalls(name string, b FilterBlockBuilder) [][]byte { return kit.CaseCalls(name, b) }

// CaseKVs returns the keys and values the kit gives WriteDB in database
// case name, or WriteSynced in recovery case name (such as
// "synced/n1000"), in the order it puts them.
func CaseKVs(name string) [][2][]byte { return kit.CaseKVs(name) }

// UpstreamDB copies the database upstream wrote that the kit names name
// (such as "testdata/tables/b10-bs4096-none") into a new directory of
// t.TempDir() and returns that directory. A database upstream writes live
// is written again, which needs the leveldb build tag.
func UpstreamDB(t testing.TB, name string) string {
	t.Helper()
	return kit.UpstreamDB(t, name)
}

// UpstreamDBKeys returns the keys the kit asks ReadDB of upstream's
// database name: every user key the database holds, live or deleted, in
// order, then keys it never held. It panics when there is no such
// database or it cannot be read.
func UpstreamDBKeys(name string) [][]byte { return kit.UpstreamDBKeys(name) }
