//go:build leveldb

package compat

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"github.com/ldbcompat/ldbcompat/cgo/upstream"
)

// upstreamImpl asks the C++ library, through cgo/upstream.
type upstreamImpl struct{}

func toUpstreamPolicy(p PolicySpec) upstream.Policy {
	return upstream.Policy{Test: p.Test, BitsPerKey: p.BitsPerKey}
}

func (upstreamImpl) hash(data []byte, seed uint32) uint32 { return upstream.Hash(data, seed) }

func (upstreamImpl) createFilter(bitsPerKey int, keys [][]byte, dst []byte) []byte {
	return upstream.BloomCreateFilter(bitsPerKey, keys, dst)
}

func (upstreamImpl) matchAll(bitsPerKey int, keys [][]byte, filter []byte) []bool {
	return upstream.BloomKeyMayMatchBatch(bitsPerKey, keys, filter)
}

func (upstreamImpl) buildBlock(p PolicySpec, ops []Op) [][]byte {
	uops := make([]upstream.Op, len(ops))
	for i, op := range ops {
		uops[i] = upstream.Op{Kind: upstream.OpKind(op.Kind), Offset: op.Offset, Key: op.Key}
	}
	return upstream.FilterBlockBuild(toUpstreamPolicy(p), uops)
}

func (upstreamImpl) readBlock(p PolicySpec, contents []byte, qs []Query) []bool {
	uqs := make([]upstream.Query, len(qs))
	for i, q := range qs {
		uqs[i] = upstream.Query{Offset: q.Offset, Key: q.Key}
	}
	return upstream.FilterBlockKeyMayMatch(toUpstreamPolicy(p), contents, uqs)
}

// liveOracle answers from the C++ library.
type liveOracle struct{}

func (liveOracle) hash(c HashCase) (expected, error) {
	return expected{rec: hashRecord(upstreamImpl{}, c)}, nil
}

func (liveOracle) filter(c FilterCase) (expected, error) {
	out := filterOut(upstreamImpl{}, c)
	return expected{rec: filterRecord(upstreamImpl{}, c, out, out), raw: [][]byte{out}}, nil
}

func (liveOracle) match(c MatchCase) (expected, error) {
	return expected{rec: matchRecord(upstreamImpl{}, c)}, nil
}

func (liveOracle) block(c BlockCase) (expected, error) {
	outs := upstreamImpl{}.buildBlock(c.Policy, c.Ops)
	return expected{rec: blockRecord(upstreamImpl{}, c, outs, lastFinish(outs)), raw: outs}, nil
}

func (liveOracle) reader(c ReaderCase) (expected, error) {
	return expected{rec: readerRecord(upstreamImpl{}, c)}, nil
}

// Live reports whether this build of the suite can ask upstream LevelDB
// directly (it was built with the leveldb tag).
const Live = true

// WriteVectors runs every golden-vector case on upstream LevelDB and writes
// the vector files into dir, with the provenance given.
func WriteVectors(dir string, prov Provenance) error {
	if prov.GOARCH == "" {
		prov.GOARCH = runtime.GOARCH
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write vectors: %w", err)
	}
	for name, data := range recordVectors(upstreamImpl{}, prov) {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return fmt.Errorf("write vectors: %w", err)
		}
	}
	return nil
}
