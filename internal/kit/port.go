package kit

import (
	"encoding/binary"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/internal/blockop"
	"github.com/ldbcompat/ldbcompat/internal/cases"
)

// FilterBlockBuilder is the builder half of a filter block implementation
// under test, with leveldb::FilterBlockBuilder's calls.
type FilterBlockBuilder interface {
	StartBlock(blockOffset uint64)
	AddKey(key []byte)
	Finish() []byte
}

// FilterBlockReader is the reader half of a filter block implementation
// under test, with leveldb::FilterBlockReader's call.
type FilterBlockReader interface {
	KeyMayMatch(blockOffset uint64, key []byte) bool
}

// Port describes a Go implementation of LevelDB's bloom filter and filter
// block to check against upstream (compat.Port, which documents it for
// port authors, is this type). Only Name and NewPolicy are required; the
// properties whose hooks are nil are skipped. A hook that panics fails the
// property it serves; one that cannot take an input upstream accepts may
// panic with a Refusal.
type Port struct {
	// Name names the port in reports.
	Name string

	// NewPolicy returns the port's bloom filter policy for bitsPerKey, as
	// leveldb::NewBloomFilterPolicy. It is called with bitsPerKey 0..1000.
	NewPolicy func(bitsPerKey int) bloom.FilterPolicy

	// Hash is the port's util/hash.cc Hash, if it exports one.
	Hash func(data []byte, seed uint32) uint32

	// NewFilterBlockBuilder returns the port's filter block builder using
	// p, which may be the port's own bloom policy or upstream's test policy
	// from table/filter_block_test.cc.
	NewFilterBlockBuilder func(p bloom.FilterPolicy) FilterBlockBuilder

	// NewFilterBlockReader returns the port's filter block reader over
	// contents using p.
	NewFilterBlockReader func(p bloom.FilterPolicy, contents []byte) FilterBlockReader

	// WriteDB creates a database in the empty directory dir with the port's
	// bloom filter of bitsPerKey bits per key, puts kvs in order (keys are
	// distinct) and closes it, leaving the data in tables (flush the
	// memtable, for example by compacting the whole key range) so that
	// their filter blocks can be checked. The kit then checks every
	// table's filter block and, under the leveldb tag, has upstream read
	// every key. Each table is a case: a WriteDB whose tables depend on
	// when background compactions run gives other cases from run to run.
	WriteDB func(dir string, kvs [][2][]byte, bitsPerKey int) error

	// ReadDB opens the database in dir, which upstream LevelDB wrote with a
	// bloom filter of bitsPerKey bits per key, with the port's bloom filter
	// enabled, and reports for each key whether Get finds it. dir is a copy
	// that the port may change. Some of these databases hold their writes
	// in their logs alone, as a close without compaction or a crash
	// leaves them: the port must replay them, as DB::Open does.
	ReadDB func(dir string, bitsPerKey int, keys [][]byte) (found []bool, err error)

	// WriteTable writes a table holding entries, in order, with the
	// port's table writer under options o, as leveldb::TableBuilder does
	// in a database (internal keys ordered by the bytewise comparator's
	// InternalKeyComparator, index separators shortened by it, the bloom
	// filter over user keys), and returns the table's bytes. The kit
	// compares them with upstream's TableBuilder on the same input and
	// has upstream (under the leveldb tag, else this module's reader,
	// which follows it) read every entry back in a scan and look every
	// key up as a database's Get does, through the filter and the index.
	WriteTable func(entries []Entry, o TableOptions) ([]byte, error)

	// ReadTable opens the table in contents, which upstream wrote, with
	// the port's table reader verifying block checksums, and returns
	// every entry in order. An error stands for the port reporting the
	// table corrupt; the entries returned with it are checked too. The
	// kit gives it upstream's tables over an options matrix, and damaged
	// ones, on which the port must not return an entry upstream did not
	// write.
	ReadTable func(contents []byte) ([]Entry, error)

	// WriteLog writes records, in order, with the port's log writer into
	// a new log file, as leveldb::log::Writer::AddRecord does, and
	// returns the file's bytes.
	WriteLog func(records [][]byte) ([]byte, error)

	// ReadLog reads the log file in contents with the port's log reader,
	// verifying checksums, and returns the records it returns, in order.
	// An error ends the read; the records returned with it count. The
	// kit gives it upstream's logs, clean, damaged and torn, and compares
	// the records with those of upstream's log::Reader.
	ReadLog func(contents []byte) ([][]byte, error)

	// WriteSynced creates a database in the empty directory dir, puts
	// kvs in order (keys are distinct), each with sync, and returns with
	// the database still open and nothing compacted or flushed, the
	// writes in its log. The kit copies dir, every file byte for byte,
	// as a crash of the process would leave it, then calls closeDB and
	// checks the closed directory too: upstream must open each, with
	// LevelDB's defaults and with paranoid_checks, and find every write
	// and nothing else.
	WriteSynced func(dir string, kvs [][2][]byte) (closeDB func() error, err error)

	// testHash, when set, replaces bloom.Hash in the TestHashFilter policy
	// of the filter block cases: upstream's TestHashFilter calls the
	// release's own leveldb::Hash, which hashes tail bytes as plain char in
	// v1.4 to v1.17 (the kit's tests of those releases set
	// bloom.HashSignedTail on x86).
	testHash func(data []byte, seed uint32) uint32
}

// Entry is an entry of a table: an internal key (the user key, then 8
// bytes little-endian of the sequence number shifted left by 8 bits and
// the value type) and its value.
type Entry struct {
	Key   []byte
	Value []byte
}

// TableOptions are the options of leveldb::Options that shape a table's
// bytes.
type TableOptions struct {
	// BlockSize is Options::block_size: a data block is cut once its
	// estimated size reaches it.
	BlockSize int
	// RestartInterval is Options::block_restart_interval.
	RestartInterval int
	// Snappy selects kSnappyCompression; false is kNoCompression.
	Snappy bool
	// BitsPerKey is the bloom filter's bits per key, as
	// leveldb::NewBloomFilterPolicy; 0 means no filter policy.
	BitsPerKey int
}

// TestHashPolicy is upstream's TestHashFilter from
// table/filter_block_test.cc: a filter is Hash(key, 1) of each key as a
// little-endian uint32, and a key matches when its hash is among them.
// Filter block cases use it so that the block layout is checked apart from
// the bloom filter.
type TestHashPolicy struct{}

// Name returns "TestHashFilter".
func (TestHashPolicy) Name() string { return "TestHashFilter" }

// CreateFilter appends Hash(key, 1) of each key to dst.
func (TestHashPolicy) CreateFilter(keys [][]byte, dst []byte) []byte {
	return hashListPolicy{bloom.Hash}.CreateFilter(keys, dst)
}

// KeyMayMatch reports whether Hash(key, 1) is one of filter's words.
func (TestHashPolicy) KeyMayMatch(key, filter []byte) bool {
	return hashListPolicy{bloom.Hash}.KeyMayMatch(key, filter)
}

// hashListPolicy is TestHashPolicy with another hash function.
type hashListPolicy struct{ hash func([]byte, uint32) uint32 }

func (hashListPolicy) Name() string { return TestHashPolicy{}.Name() }

func (p hashListPolicy) CreateFilter(keys [][]byte, dst []byte) []byte {
	for _, k := range keys {
		dst = binary.LittleEndian.AppendUint32(dst, p.hash(k, 1))
	}
	return dst
}

func (p hashListPolicy) KeyMayMatch(key, filter []byte) bool {
	h := p.hash(key, 1)
	for i := 0; i+4 <= len(filter); i += 4 {
		if binary.LittleEndian.Uint32(filter[i:]) == h {
			return true
		}
	}
	return false
}

// Refusal is what a hook panics with when the port refuses an input that
// upstream accepts: for example a port whose filter block reader is
// reachable only through its table reader, which rejects a table whose
// filter block upstream reads as "every key may match". The kit reports it
// as a refusal rather than a crash, without a stack trace.
type Refusal struct{ Err error }

// Error says that the port refuses the input, and why.
func (r Refusal) Error() string { return "port refuses the input upstream accepts: " + r.Err.Error() }

// Unwrap returns r.Err.
func (r Refusal) Unwrap() error { return r.Err }

// portImpl runs the suite's cases on a Port.
type portImpl struct{ p Port }

func (pi portImpl) policy(s cases.Policy) bloom.FilterPolicy {
	if s.Test && pi.p.testHash != nil {
		return hashListPolicy{pi.p.testHash}
	}
	if s.Test {
		return TestHashPolicy{}
	}
	return pi.p.NewPolicy(s.BitsPerKey)
}

func (pi portImpl) Hash(data []byte, seed uint32) uint32 { return pi.p.Hash(data, seed) }

func (pi portImpl) CreateFilter(bitsPerKey int, keys [][]byte, dst []byte) []byte {
	d := append([]byte(nil), dst...)
	return pi.p.NewPolicy(bitsPerKey).CreateFilter(keys, d)
}

func (pi portImpl) MatchAll(bitsPerKey int, keys [][]byte, filter []byte) []bool {
	pol := pi.p.NewPolicy(bitsPerKey)
	out := make([]bool, len(keys))
	for i, k := range keys {
		out[i] = pol.KeyMayMatch(k, filter)
	}
	return out
}

func (pi portImpl) BuildBlock(s cases.Policy, ops []blockop.Op) [][]byte {
	return makeCalls(pi.p.NewFilterBlockBuilder(pi.policy(s)), ops)
}

// makeCalls makes the calls ops on b and returns what each Finish
// returned.
func makeCalls(b FilterBlockBuilder, ops []blockop.Op) [][]byte {
	var out [][]byte
	for _, op := range ops {
		switch op.Kind {
		case blockop.StartBlock:
			b.StartBlock(op.Offset)
		case blockop.AddKey:
			b.AddKey(op.Key)
		case blockop.Finish:
			out = append(out, append([]byte(nil), b.Finish()...))
		}
	}
	return out
}

func (pi portImpl) ReadBlock(s cases.Policy, contents []byte, qs []blockop.Query) []bool {
	r := pi.p.NewFilterBlockReader(pi.policy(s), contents)
	out := make([]bool, len(qs))
	for i, q := range qs {
		out[i] = r.KeyMayMatch(q.Offset, q.Key)
	}
	return out
}

// bloomPort is this module's own bloom package, described as a Port.
func bloomPort() Port {
	return Port{
		Name:      "ldbcompat/bloom",
		NewPolicy: bloom.NewPolicy,
		Hash:      bloom.Hash,
		NewFilterBlockBuilder: func(p bloom.FilterPolicy) FilterBlockBuilder {
			return bloom.NewFilterBlockBuilder(p)
		},
		NewFilterBlockReader: func(p bloom.FilterPolicy, contents []byte) FilterBlockReader {
			return bloom.NewFilterBlockReader(p, contents)
		},
	}
}

// bloomRef is the module's own bloom package, which recovers the outputs
// the golden vectors hold only as digests: it writes upstream's bytes
// (TestGoldenVectorsVerbatim).
var bloomRef cases.Impl = portImpl{bloomPort()}
