//go:build leveldb

package bench

import "github.com/ldbcompat/ldbcompat/cgo/upstream"

// Upstream returns the Impl of upstream C++ LevelDB 1.23, named Reference
// ("c++"). Every loop runs and is timed inside C++ (cgo/upstream's Time*
// functions), so no cgo call is counted.
func Upstream() Impl {
	return Impl{
		Name:         Reference,
		CreateFilter: upstream.TimeCreateFilter,
		KeyMayMatch:  upstream.TimeKeyMayMatch,
		FilterBlock: func(bitsPerKey int, ops []Op, iters int) int64 {
			return upstream.TimeFilterBlock(bitsPerKey, upstreamOps(ops), iters)
		},
	}
}

func upstreamOps(ops []Op) []upstream.Op {
	out := make([]upstream.Op, len(ops))
	for i, op := range ops {
		kind := upstream.OpStartBlock
		switch op.Kind {
		case AddKey:
			kind = upstream.OpAddKey
		case Finish:
			kind = upstream.OpFinish
		}
		out[i] = upstream.Op{Kind: kind, Offset: op.Offset, Key: op.Key}
	}
	return out
}
