//go:build leveldb

package bench

import (
	"github.com/ldbcompat/ldbcompat/cgo/upstream"
	"github.com/ldbcompat/ldbcompat/internal/blockop"
)

// Upstream returns the Impl of upstream C++ LevelDB 1.23, named Reference
// ("c++"). Every loop runs and is timed inside C++ (cgo/upstream's Time*
// functions), so no cgo call is counted.
func Upstream() Impl {
	return Impl{
		Name:         Reference,
		BuiltBy:      upstream.Compiler(),
		CreateFilter: upstream.TimeCreateFilter,
		KeyMayMatch:  upstream.TimeKeyMayMatch,
		FilterBlock: func(bitsPerKey int, ops []blockop.Op, iters int) int64 {
			return upstream.TimeFilterBlock(bitsPerKey, ops, iters)
		},
	}
}
