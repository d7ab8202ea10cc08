// Package upstream calls upstream C++ LevelDB 1.23 itself, through a small
// extern "C" shim (shim.cc), so that tests can compare package bloom (or a
// port) with the reference implementation byte for byte.
//
// The shim reaches LevelDB's internals, not only its public API:
// leveldb::Hash (util/hash.h), the built-in bloom policy from
// leveldb::NewBloomFilterPolicy (util/bloom.cc), and leveldb::FilterBlockBuilder
// and leveldb::FilterBlockReader (table/filter_block.h). It also carries a copy
// of the TestHashFilter policy from upstream's table/filter_block_test.cc.
//
// Everything but this file is behind the build tag "leveldb", so that plain
// `go build ./...` and `go vet ./...` need no C++ toolchain. With the tag the
// package needs cgo, a C++17 compiler, and LevelDB 1.23 built by
// docker/build-leveldb.sh: its source tree on the include path and its static
// library on the link line. Cgo directives cannot name that location (it is
// under the repository's .cache/), so the environment carries it:
//
//	make compat
//
// or by hand, from the repository root:
//
//	eval "$(docker/build-leveldb.sh --print-env)"
//	go test -tags leveldb ./cgo/upstream/
//
// Without that environment the build stops in shim.cc with an #error saying
// so. The library is built in release mode (NDEBUG), like the LevelDB that
// people run, so upstream's assertions are compiled out here too; the shim is
// compiled with -fno-rtti because the library is.
//
// For linux/arm64 under qemu:
//
//	eval "$(docker/build-leveldb.sh --target aarch64 --print-env)"
//	go test -tags leveldb -exec 'qemu-aarch64 -L /usr/aarch64-linux-gnu' ./cgo/upstream/
package upstream
