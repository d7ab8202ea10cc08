//go:build leveldb

// Command bench is `make bench` when the ports module is present: the
// comparison of internal/cmd/benchcmp (package bloom against upstream C++
// LevelDB 1.23, and `ldbcompat verify` against upstream's full scan) with
// the bloom filters of the Go ports added, each through its adapter's
// public-API FilterPolicy.
// A port's filter block builder is unexported, so ports take part in
// CreateFilter and KeyMayMatch only.
//
//	eval "$(docker/build-leveldb.sh --print-env)"   # from the repository root
//	cd ports && go run -tags leveldb ./cmd/bench -out ../.cache/bench/bench.txt
package main

import (
	"github.com/ldbcompat/ldbcompat/internal/bench"
	"github.com/ldbcompat/ldbcompat/ports/golangleveldb"
	"github.com/ldbcompat/ldbcompat/ports/goleveldb"
)

func main() {
	bench.Main([]bench.Impl{
		bench.Go(),
		bench.Upstream(),
		bench.FromPolicy("goleveldb", goleveldb.Port().NewPolicy),
		bench.FromPolicy("golang-leveldb", golangleveldb.Port().NewPolicy),
	}, bench.Verify)
}
