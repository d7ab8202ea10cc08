// Package upstream calls upstream C++ LevelDB itself through a small
// extern "C" shim (shim.cc and the other .cc files), so that tests can
// compare package bloom, or a port, with the reference byte for byte. The
// reference is LevelDB 1.23; LEVELDB_VERSION links any release with
// filters (v1.4 to 1.23) or main instead, and Version, Release and
// LegacyBloom say which one is linked.
//
// The shim reaches LevelDB's internals: leveldb::Hash (util/hash.h), the
// bloom policy (util/bloom.cc), FilterBlockBuilder and FilterBlockReader
// (table/filter_block.h), TableCache and VersionSet::Recover, and a copy of
// TestHashFilter (table/filter_block_test.cc). v1.4 to v1.17 name the
// policy "leveldb.BuiltinBloomFilter" and hash a key's tail bytes as plain
// char, signed on x86 (google/leveldb#243, fixed in v1.18: CharIsSigned).
// GoBloomPolicy, GoHash and Reword give ldbcompat's equivalent of the
// linked release's filter, hash and statuses; docs/testing.md says how
// the suite runs against each release.
//
// Everything but this file is behind the build tag "leveldb", so plain
// `go build ./...` needs no C++ toolchain. With the tag the package needs
// cgo, a C++17 compiler and LevelDB built by docker/build-leveldb.sh, whose
// location (under .cache/) only the environment can carry:
//
//	eval "$(docker/build-leveldb.sh --print-env)"  # or LEVELDB_VERSION=v1.17 ...
//	go test -tags leveldb ./cgo/upstream/
//
// and, for linux/arm64 under qemu, --target aarch64 and
// -exec 'qemu-aarch64 -L /usr/aarch64-linux-gnu'. Without it the build
// stops with an #error saying so (result.h). The library is built with
// NDEBUG, as people run it, so upstream's assertions are compiled out here
// too; the shim has -fno-rtti because the 1.23 library does.
package upstream
