// Package table reads LevelDB tables (.ldb and, from releases before 1.14,
// .sst files) without LevelDB, accepting exactly what upstream LevelDB
// 1.23's own reader accepts with paranoid_checks and verify_checksums, or
// with its default options (Options.SkipChecksums: no block's checksum is
// compared, and ChecksumFailures lists the blocks whose checksums do not
// match, with the flipped bit that explains one), and deciding as it does
// about the filter block:
//
//   - OpenSized is db/table_cache.cc FindTable and table/table.cc
//     Table::Open: the footer at the size the MANIFEST records, blocks read
//     wherever they lie in the (memory-mapped) file, the index block read
//     and checked. Nothing else fails the open.
//   - Scan, DataKeys and DataBlocks are a full scan through upstream's
//     two-level iterator (table/two_level_iterator.cc) and Block::Iter
//     (table/block.cc), with DBIter's internal key check (db/db_iter.cc):
//     a bad block ends its own entries only, and the error returned is the
//     one upstream reports at the end.
//   - LookupFilter is Table::ReadMeta and Table::ReadFilter for a policy name:
//     the filter used, not found, or found but unreadable (why), in which
//     case upstream silently reads without it.
//   - Get is Table::InternalGet, filter included.
//   - Writer is table/table_builder.cc as a database runs it (internal
//     keys, index separators shortened by the internal key comparator,
//     bloom filter over user keys): without compression its tables are
//     upstream's bytes (TestWriterUpstream, build tag leveldb).
//
// FuzzUpstreamTable (build tag leveldb) checks all of it against upstream
// through package cgo/upstream. Each error is a *base.Error naming the file,
// the offset in it and what is wrong there, with upstream's status; where
// upstream's behaviour is undefined (it would read out of bounds or abort)
// the error wraps base.ErrUndefined instead.
//
// Nothing is allocated before the bytes it describes are known to lie
// inside the file, a snappy block's decoded length is checked against the
// largest expansion snappy can produce (22 times), and a block's keys are
// rebuilt in one buffer, as upstream does. Callers that keep every key
// (DataKeys, DataBlocks, ReadDataBlock) are held to at most 64 times the
// block's decompressed size, and 256 times its stored size, plus 4 KiB, of
// keys a block (an error wrapping ErrLimit beyond, for a table upstream
// reads), so a damaged table never makes the reader panic or allocate more
// than a bounded multiple of the file's size: 2.5 to 4.5 times for the
// tables C++ LevelDB writes, damaged or not, and about 300 times for the
// worst crafted one (internal/table/bounds_test.go).
//
// # Table format
//
// The format is upstream's doc/table_format.md as written by
// table/table_builder.cc. A table is a sequence of blocks, each followed by
// a 5-byte trailer, and a fixed 48-byte footer:
//
//	+----------------------+  offset 0
//	| data block 0         |
//	| trailer              |
//	+----------------------+
//	| data block 1         |  each data block starts where the previous
//	| trailer              |  block's trailer ends
//	+----------------------+
//	| ...                  |
//	+----------------------+
//	| filter block         |  optional; written raw (never compressed)
//	| trailer              |
//	+----------------------+
//	| metaindex block      |
//	| trailer              |
//	+----------------------+
//	| index block          |
//	| trailer              |
//	+----------------------+  file size - 48
//	| footer               |
//	+----------------------+  file size
//
// A block handle locates a block's contents, without its trailer: two
// unsigned varints (LEB128, at most 10 bytes each).
//
//	+-----------------+---------------+
//	| offset (varint) | size (varint) |
//	+-----------------+---------------+
//
// The footer holds the handles of the metaindex and index blocks, zero
// padding up to 40 bytes, and the magic number 0xdb4775248b80fb57 as a
// little-endian uint64:
//
//	0                                            40                48
//	+------------------+--------------+---------+------------------+
//	| metaindex handle | index handle | padding | 57 fb 80 8b      |
//	| 2..20 bytes      | 2..20 bytes  | zeros   | 24 75 47 db      |
//	+------------------+--------------+---------+------------------+
//
// The trailer after each block's n content bytes is a compression type (0
// none, 1 snappy; the contents are stored compressed and the handle's size
// is the stored size) and a masked CRC-32C (Castagnoli) of the n stored
// content bytes followed by the type byte:
//
//	+--------------------+------+------------------------+
//	| contents (n bytes) | type | masked crc32c (LE u32) |
//	+--------------------+------+------------------------+
//
//	masked = ((crc >> 15) | (crc << 17)) + 0xa282ead8   (mod 2^32)
//
// Once decompressed, data, index and metaindex blocks share one layout:
// prefix-compressed entries, then an array of restart points, the offsets
// of the entries whose keys are stored whole (every 16th entry by default,
// and always the first), then their count:
//
//	+---------+---------+-----+------------+-----+------------+--------------+
//	| entry 0 | entry 1 | ... | restart 0  | ... | restart R-1| R            |
//	+---------+---------+-----+------------+-----+------------+--------------+
//	                            uint32 LE each                  uint32 LE
//
// Each entry stores how many leading bytes its key shares with the previous
// entry's key (0 at a restart point), then the rest of the key and the
// value:
//
//	+---------------+-------------------+------------------+-------------+-------+
//	| shared varint | non_shared varint | value_len varint | key[shared:]| value |
//	+---------------+-------------------+------------------+-------------+-------+
//	  varints are at most 5 bytes (32-bit values)
//
// In data blocks, keys are internal keys and values are the user's values.
// An internal key is the user key followed by an 8-byte little-endian tag
// packing a 56-bit sequence number and an 8-bit type (0 deletion, 1 value):
//
//	+----------------------+---------------------------------+
//	| user key             | tag = seq<<8 | type (LE uint64) |
//	+----------------------+---------------------------------+
//
// A table holds every version of a user key that its writer kept, newest
// (highest sequence) first.
//
// The index block maps, for each data block, a key at or after that block's
// last key and before the next block's first key (an internal key too) to
// the data block's handle (upstream ignores bytes after the handle, which
// some writers, such as the iq80 Java port, leave there). The metaindex block maps names to handles; its
// one entry in LevelDB 1.23 is "filter.<policy name>" naming the filter
// block, whose layout package bloom documents.
package table
