// Package upstream calls upstream C++ LevelDB itself, through a small
// extern "C" shim (shim.cc), so that tests can compare package bloom (or a
// port) with the reference implementation byte for byte. The reference is
// LevelDB 1.23; LEVELDB_VERSION builds any release with filters (v1.4 to
// 1.23) or upstream's main instead, and Version, Release and LegacyBloom
// say which one is linked.
//
// The shim reaches LevelDB's internals, not only its public API:
// leveldb::Hash (util/hash.h), the built-in bloom policy from
// leveldb::NewBloomFilterPolicy (util/bloom.cc), and leveldb::FilterBlockBuilder
// and leveldb::FilterBlockReader (table/filter_block.h). It also carries a copy
// of the TestHashFilter policy from upstream's table/filter_block_test.cc.
// These are the same in every release since v1.4 but for two things, fixed
// together in v1.18 (google/leveldb#243): v1.4 to v1.17 name the policy
// "leveldb.BuiltinBloomFilter" and hash the 1 to 3 tail bytes of a key as
// plain char, which is signed on x86 and unsigned on arm64 (CharIsSigned).
//
// The readers (reader_shim.cc: TableCache, VersionSet::Recover) compile
// against every release too, calling each the way it was declared then
// (TableCache takes its Options by pointer up to v1.20; Recover takes no
// argument up to v1.18), and do what that release does: v1.4 to v1.13 open
// NNNNNN.sst only, v1.4 to v1.9 do not check for missing tables.
// GoBloomPolicy and GoHash give package bloom's equivalent of the linked
// release's filter and hash, and Reword a 1.23 status in its words, so
// that tests compare ldbcompat with any release; docs/testing.md says how
// the suite runs against each.
//
// Everything but this file is behind the build tag "leveldb", so that plain
// `go build ./...` and `go vet ./...` need no C++ toolchain. With the tag the
// package needs cgo, a C++17 compiler, and LevelDB built by
// docker/build-leveldb.sh: its source tree on the include path, the -D flags
// its internal headers need, and its static library on the link line. Cgo
// directives cannot name that location (it is under the repository's
// .cache/), so the environment carries it:
//
//	make compat
//
// or by hand, from the repository root:
//
//	eval "$(docker/build-leveldb.sh --print-env)"
//	go test -tags leveldb ./cgo/upstream/
//
// and for another release, e.g. v1.17:
//
//	eval "$(LEVELDB_VERSION=v1.17 docker/build-leveldb.sh --print-env)"
//
// Without that environment the build stops in shim.cc with an #error saying
// so. The library is built in release mode (NDEBUG), like the LevelDB that
// people run, so upstream's assertions are compiled out here too; the shim is
// compiled with -fno-rtti because the 1.23 library is (and a shim without
// RTTI links with a library with it, not the other way round).
//
// For linux/arm64 under qemu:
//
//	eval "$(docker/build-leveldb.sh --target aarch64 --print-env)"
//	go test -tags leveldb -exec 'qemu-aarch64 -L /usr/aarch64-linux-gnu' ./cgo/upstream/
package upstream
