package kit

import (
	"encoding/binary"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/internal/blockop"
	"github.com/ldbcompat/ldbcompat/internal/cases"
)

// FilterBlockBuilder has leveldb::FilterBlockBuilder's calls.
type FilterBlockBuilder interface {
	StartBlock(blockOffset uint64)
	AddKey(key []byte)
	Finish() []byte
}

// FilterBlockReader has leveldb::FilterBlockReader's call.
type FilterBlockReader interface {
	KeyMayMatch(blockOffset uint64, key []byte) bool
}

// Port describes a Go implementation of LevelDB's bloom filter and filter
// block to check against upstream; compat.Port, this type, documents the
// hooks for port authors. Only Name and NewPolicy are required.
type Port struct {
	// Name names the port in reports.
	Name string
	// NewPolicy is leveldb::NewBloomFilterPolicy, for bitsPerKey 0..1000.
	NewPolicy func(bitsPerKey int) bloom.FilterPolicy
	// Hash is util/hash.cc's Hash.
	Hash func(data []byte, seed uint32) uint32
	// NewFilterBlockBuilder builds blocks with p (the port's or TestHashPolicy).
	NewFilterBlockBuilder func(p bloom.FilterPolicy) FilterBlockBuilder
	// NewFilterBlockReader reads the filter block contents with p.
	NewFilterBlockReader func(p bloom.FilterPolicy, contents []byte) FilterBlockReader
	// WriteDB writes kvs with a bloom filter into a new database in dir
	// and closes it with the data in tables.
	WriteDB func(dir string, kvs [][2][]byte, bitsPerKey int) error
	// ReadDB opens a copy of a database upstream wrote, replaying its
	// logs as DB::Open does, and reports whether Get finds each key.
	ReadDB func(dir string, bitsPerKey int, keys [][]byte) (found []bool, err error)
	// WriteTable writes entries as leveldb::TableBuilder does in a
	// database and returns the table's bytes.
	WriteTable func(entries []Entry, o TableOptions) ([]byte, error)
	// ReadTable reads every entry of a table upstream wrote, verifying
	// checksums; an error stands for the port reporting it corrupt.
	ReadTable func(contents []byte) ([]Entry, error)
	// WriteLog writes records as log::Writer::AddRecord, returning the log.
	WriteLog func(records [][]byte) ([]byte, error)
	// ReadLog returns the records the port's log reader returns from
	// contents; the records returned with an error count.
	ReadLog func(contents []byte) ([][]byte, error)
	// WriteSynced puts kvs, each with sync, into a new database in dir
	// and returns with it open, the writes in its log.
	WriteSynced func(dir string, kvs [][2][]byte) (closeDB func() error, err error)

	// testHash, when set, replaces bloom.Hash in the TestHashFilter
	// policy: v1.4 to v1.17 hash tail bytes as plain char.
	testHash func(data []byte, seed uint32) uint32
}

// Entry is a table entry: an internal key (user key, then 8 bytes
// little-endian of seq<<8 | value type) and its value.
type Entry struct {
	Key   []byte
	Value []byte
}

// TableOptions are the leveldb::Options that shape a table's bytes.
type TableOptions struct {
	BlockSize       int  // Options::block_size
	RestartInterval int  // Options::block_restart_interval
	Snappy          bool // kSnappyCompression, else kNoCompression
	BitsPerKey      int  // the bloom filter's; 0: no filter policy
}

// TestHashPolicy is table/filter_block_test.cc's TestHashFilter: a filter
// is Hash(key, 1) of each key as a little-endian uint32. Filter block cases
// use it to check the block layout apart from the bloom filter.
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
// upstream accepts; the kit reports it as a refusal, not a crash.
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

// makeCalls makes the calls ops on b and returns each Finish's block.
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

// bloomRef recovers the outputs the golden vectors hold only as digests
// (TestGoldenVectorsVerbatim: package bloom writes upstream's bytes).
var bloomRef cases.Impl = portImpl{bloomPort()}
