//go:build leveldb

package cases

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"github.com/ldbcompat/ldbcompat/cgo/upstream"
	"github.com/ldbcompat/ldbcompat/internal/blockop"
)

// Upstream is upstream LevelDB, asked through cgo/upstream.
var Upstream Impl = upstreamImpl{}

type upstreamImpl struct{}

func toUpstreamPolicy(p Policy) upstream.Policy {
	return upstream.Policy{Test: p.Test, BitsPerKey: p.BitsPerKey}
}

func (upstreamImpl) Hash(data []byte, seed uint32) uint32 { return upstream.Hash(data, seed) }

func (upstreamImpl) CreateFilter(bitsPerKey int, keys [][]byte, dst []byte) []byte {
	return upstream.BloomCreateFilter(bitsPerKey, keys, dst)
}

func (upstreamImpl) MatchAll(bitsPerKey int, keys [][]byte, filter []byte) []bool {
	return upstream.BloomKeyMayMatchBatch(bitsPerKey, keys, filter)
}

func (upstreamImpl) BuildBlock(p Policy, ops []blockop.Op) [][]byte {
	return upstream.FilterBlockBuild(toUpstreamPolicy(p), ops)
}

func (upstreamImpl) ReadBlock(p Policy, contents []byte, qs []blockop.Query) []bool {
	return upstream.FilterBlockKeyMayMatch(toUpstreamPolicy(p), contents, qs)
}

// UpstreamOracle answers from the C++ library, asked live through
// cgo/upstream: every output is known.
var UpstreamOracle Oracle = upstreamOracle{implOracle{Upstream}}

type upstreamOracle struct{ implOracle }

// PolicyName returns the name of the linked library's bloom filter policy:
// "leveldb.BuiltinBloomFilter2", or "leveldb.BuiltinBloomFilter" for v1.4
// to v1.17.
func (upstreamOracle) PolicyName() string { return upstream.BloomName(10) }

// WriteVectors runs every golden-vector case on upstream LevelDB and writes
// the vector files into dir, with the provenance given (GOARCH defaults to
// this program's).
func WriteVectors(dir string, prov Provenance) error {
	if prov.GOARCH == "" {
		prov.GOARCH = runtime.GOARCH
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write vectors: %w", err)
	}
	for name, data := range RecordVectors(Upstream, prov) {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return fmt.Errorf("write vectors: %w", err)
		}
	}
	return writeTableVectors(dir, prov)
}
