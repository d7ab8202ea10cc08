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
// The rules, each upstream's (release builds, amd64 and arm64):
//
//	Hash          4-byte little-endian words; 1-3 tail bytes added unsigned
//	              (v1.17 and older: plain char, signed on x86)
//	probes        k = int(bitsPerKey*0.69), clamped to 1..30
//	filter size   n*bitsPerKey bits, at least 64, whole bytes, then k
//	probe         h % bits with 64-bit bits; h += rotr(h, 17)
//	duplicates    count toward n; CreateFilter only appends to dst
//	KeyMayMatch   filter under 2 bytes: false; k above 30: true
//	bitsPerKey<0  crashes upstream; treated as 0 here
//	filter block  one filter per 2 KiB of block offset, empty ones for
//	              skipped ranges; Finish on nothing is 00 00 00 00 0b;
//	              a backwards StartBlock is a no-op (assert compiled out)
//	block reader  under 5 bytes or array offset past n-5: all match;
//	              index offset>>(lg&63); past the end: match;
//	              start <= limit <= array offset: ask the policy;
//	              start == limit otherwise: no match; else match
//
// The package depends on nothing outside the standard library but this
// module's internal/filterblock (the filter block's core, which the
// module's checker shares), uses no cgo and no assembly, and runs the same
// code on every processor of an architecture.
package bloom
