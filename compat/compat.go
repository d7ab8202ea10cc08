package compat

import (
	"encoding/hex"
	"testing"

	"github.com/ldbcompat/ldbcompat/internal/kit"
)

// Port describes a Go implementation of LevelDB's bloom filter and filter
// block to check against upstream. Only Name and NewPolicy are required;
// properties whose hooks are nil are skipped. A hook that panics fails its
// property; one refusing an input upstream accepts may panic with a
// Refusal. Its fields:
//
//	Name string
//		names the port in reports.
//	NewPolicy func(bitsPerKey int) bloom.FilterPolicy
//		leveldb::NewBloomFilterPolicy; called with bitsPerKey 0..1000.
//	Hash func(data []byte, seed uint32) uint32
//		util/hash.cc's Hash, if the port exports one.
//	NewFilterBlockBuilder func(p bloom.FilterPolicy) FilterBlockBuilder
//		a filter block builder using p: the port's bloom policy or
//		TestHashPolicy.
//	NewFilterBlockReader func(p bloom.FilterPolicy, contents []byte) FilterBlockReader
//		a filter block reader over contents using p.
//	WriteDB func(dir string, kvs [][2][]byte, bitsPerKey int) error
//		creates a database in the empty dir with a bloom filter of
//		bitsPerKey, puts kvs (distinct keys) in order and closes it with
//		the data in tables (flush the memtable, e.g. compact the whole
//		range). Each table is a case, so tables that depend on when
//		background compactions run give other cases from run to run.
//	ReadDB func(dir string, bitsPerKey int, keys [][]byte) (found []bool, err error)
//		opens dir, a copy of a database upstream wrote with bitsPerKey
//		(the port may change it), with the port's bloom filter, and
//		reports whether Get finds each key.
//	WriteTable func(entries []Entry, o TableOptions) ([]byte, error)
//		writes entries in order under o as leveldb::TableBuilder does in
//		a database (internal keys under InternalKeyComparator over the
//		bytewise comparator, the bloom filter over user keys) and
//		returns the table's bytes.
//	ReadTable func(contents []byte) ([]Entry, error)
//		reads every entry, in order, of a table upstream wrote,
//		verifying block checksums; an error stands for the port
//		reporting it corrupt. On damaged tables it must not return an
//		entry upstream did not write.
//	WriteLog func(records [][]byte) ([]byte, error)
//		writes records into a new log as log::Writer::AddRecord and
//		returns its bytes.
//	ReadLog func(contents []byte) ([][]byte, error)
//		the records the port's log reader, verifying checksums, returns
//		from a log upstream wrote (clean, damaged or torn); an error
//		ends the read and the records returned count.
//	WriteSynced func(dir string, kvs [][2][]byte) (closeDB func() error, err error)
//		creates a database in the empty dir, puts kvs in order, each
//		with sync, and returns with it open and nothing flushed. The kit
//		copies dir as a crash leaves it, calls closeDB, and has upstream
//		open both and find every write.
type Port = kit.Port

// Entry is a table entry: an internal key (the user key, then 8 bytes
// little-endian of sequence<<8 | value type) and its value.
type Entry = kit.Entry

// TableOptions are the options of leveldb::Options that shape a table's
// bytes: BlockSize, RestartInterval, Snappy (kSnappyCompression, else
// kNoCompression) and BitsPerKey (the bloom filter; 0: none).
type TableOptions = kit.TableOptions

// FilterBlockBuilder is leveldb::FilterBlockBuilder's calls:
//
//	StartBlock(blockOffset uint64)
//	AddKey(key []byte)
//	Finish() []byte
type FilterBlockBuilder = kit.FilterBlockBuilder

// FilterBlockReader is leveldb::FilterBlockReader's call:
//
//	KeyMayMatch(blockOffset uint64, key []byte) bool
type FilterBlockReader = kit.FilterBlockReader

// TestHashPolicy is table/filter_block_test.cc's TestHashFilter, a
// bloom.FilterPolicy named "TestHashFilter": a filter is Hash(key, 1) of
// each key as a little-endian uint32, and a key matches when its hash is
// among them. Filter block cases use it to check the block layout apart
// from the bloom filter.
type TestHashPolicy = kit.TestHashPolicy

// Refusal is what a hook panics with, as panic(compat.Refusal{Err: err}),
// when the port refuses an input upstream accepts (say, a reader reachable
// only through a table reader that rejects a table whose filter block
// upstream reads as "every key may match"). The kit reports a refusal, not
// a crash, without a stack trace.
type Refusal = kit.Refusal

// TestPort checks port p against upstream LevelDB 1.23, one subtest per
// property (see the package documentation). A failing subtest prints its
// first five failures, each with what upstream does and a reproducer, and
// what the difference means for users. A panicking port fails the
// property and the test goes on. Under -tags leveldb it also asks the C++
// library live, unless the linked release predates v1.18 (the log says so).
func TestPort(t *testing.T, p Port) {
	t.Helper()
	kit.TestPort(t, p)
}

// HexBytes decodes a hex string for reproducers, panicking on bad input.
func HexBytes(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

// HexKeys decodes hex strings into keys, panicking on bad input.
func HexKeys(ss ...string) [][]byte {
	out := make([][]byte, len(ss))
	for i, s := range ss {
		out[i] = HexBytes(s)
	}
	return out
}

// The Case functions give reproducers the inputs of a case by name; each
// panics when there is no such case.

// CaseKeys returns the keys the kit gives CreateFilter in filter case name,
// as in NewPolicy(10).CreateFilter(compat.CaseKeys("bpk10/n100000"), nil).
func CaseKeys(name string) [][]byte { return kit.CaseKeys(name) }

// CaseQuery returns the i-th key the kit asks KeyMayMatch of a filter or a
// filter block reader in case name.
func CaseQuery(name string, i int) []byte { return kit.CaseQuery(name, i) }

// CaseFilter returns the filter the kit asks KeyMayMatch on in case name:
// a match case's bytes, or upstream's filter of a filter case's keys.
func CaseFilter(name string) []byte { return kit.CaseFilter(name) }

// CaseBlock returns the filter block the kit gives a reader in case name:
// a reader case's contents, or a builder case's last Finish upstream.
func CaseBlock(name string) []byte { return kit.CaseBlock(name) }

// CaseCalls makes the calls of filter block builder case name on b, the
// port's builder, and returns what each Finish returned.
func CaseCalls(name string, b FilterBlockBuilder) [][]byte { return kit.CaseCalls(name, b) }

// CaseKVs returns the keys and values the kit gives WriteDB in database
// case name, or WriteSynced in recovery case name (such as
// "synced/n1000"), in the order it puts them.
func CaseKVs(name string) [][2][]byte { return kit.CaseKVs(name) }

// UpstreamDB copies upstream's database name (such as
// "testdata/tables/b10-bs4096-none") into a new t.TempDir() and returns
// it; a database upstream writes live is written again (-tags leveldb).
func UpstreamDB(t testing.TB, name string) string {
	t.Helper()
	return kit.UpstreamDB(t, name)
}

// UpstreamDBKeys returns the keys the kit asks ReadDB of upstream's
// database name: every user key it holds, live or deleted, in order, then
// keys it never held. It panics when there is no such database.
func UpstreamDBKeys(name string) [][]byte { return kit.UpstreamDBKeys(name) }
