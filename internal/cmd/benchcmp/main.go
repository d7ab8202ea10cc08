//go:build leveldb

// Command benchcmp compares package bloom with upstream C++ LevelDB 1.23 on
// the same keys and the same filter, in one process, alternating between
// them, and measures `ldbcompat verify`'s CPU time beside upstream's own
// full scan of the same databases (two, written by upstream). It is what
// `make bench` runs:
//
//	eval "$(docker/build-leveldb.sh --print-env)"
//	go run -tags leveldb ./internal/cmd/benchcmp [-rounds 5] [-out .cache/bench/bench.txt]
//
// See package internal/bench for the flags and the output format.
package main

import "github.com/ldbcompat/ldbcompat/internal/bench"

func main() {
	bench.Main([]bench.Impl{bench.Go(), bench.Upstream()}, bench.Verify)
}
