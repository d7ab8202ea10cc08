// Package bloom is a Go implementation of LevelDB's built-in bloom
// filter policy ("leveldb.BuiltinBloomFilter2") and of the filter block that
// LevelDB tables carry, byte for byte compatible with upstream LevelDB 1.23
// release builds on amd64 and arm64.
//
// The package mirrors three upstream files:
//
//	util/hash.cc           Hash
//	util/bloom.cc          NewPolicy (FilterPolicy)
//	table/filter_block.cc  FilterBlockBuilder, FilterBlockReader
//
// Everything a filter or filter block contains is determined by upstream's
// code, including its answers for malformed input: a filter whose last byte
// (the probe count k) is above 30 matches every key, a filter shorter than two
// bytes matches none, and a damaged filter block answers "may match" rather
// than reporting an error. The package never panics on malformed filters or
// filter blocks.
//
// The package has no dependencies beyond the standard library, uses no cgo
// and no assembly, and runs the same code on every processor of an
// architecture.
package bloom
