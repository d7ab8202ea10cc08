// Package bloom is a Go implementation of LevelDB's built-in bloom filter
// policy ("leveldb.BuiltinBloomFilter2") and of the filter block LevelDB
// tables carry, byte for byte compatible with upstream LevelDB 1.23 release
// builds on amd64 and arm64: Hash is util/hash.cc, NewPolicy util/bloom.cc,
// FilterBlockBuilder and FilterBlockReader table/filter_block.cc.
//
// Everything a filter or filter block contains is upstream's, answers to
// malformed input included; the package never panics on them. The rules:
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
// It depends only on the standard library and internal/filterblock, uses
// no cgo or assembly, and runs the same code on every processor of an
// architecture.
package bloom
