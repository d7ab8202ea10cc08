// Package table reads LevelDB tables (.ldb, and .sst before 1.14) without
// LevelDB, accepting exactly what upstream 1.23's reader accepts with
// paranoid_checks and verify_checksums, or with its default options
// (Options.SkipChecksums; ChecksumFailures then lists the bad blocks), and
// deciding as it does about the filter block:
//
//   - OpenSized is db/table_cache.cc FindTable and table/table.cc
//     Table::Open: footer at the MANIFEST's size, index block read and
//     checked; nothing else fails the open.
//   - Scan, DataKeys and DataBlocks are table/two_level_iterator.cc over
//     Block::Iter (table/block.cc) with DBIter's internal key check
//     (db/db_iter.cc): a bad block ends its own entries only, and the error
//     returned is the one upstream reports at the end.
//   - LookupFilter is Table::ReadMeta and ReadFilter: the filter used, not
//     found, or unreadable (why), in which case upstream reads without it.
//   - Get is Table::InternalGet, filter included.
//   - Writer is table/table_builder.cc as a database runs it; uncompressed,
//     its tables are upstream's bytes (TestWriterUpstream, tag leveldb).
//
// FuzzUpstreamTable (tag leveldb) checks all of it against upstream. Errors
// are *base.Error (file, offset, what, upstream's status); where upstream's
// behaviour is undefined they wrap base.ErrUndefined.
//
// Nothing is allocated before its bytes are known to lie inside the file; a
// snappy block's decoded length is held to snappy's largest expansion, and
// callers that keep every key are held to 64 times a block's decompressed
// size and 256 times its stored size, plus 4 KiB (ErrLimit beyond), so a
// damaged table never panics or allocates more than a bounded multiple of
// the file's size (bounds_test.go).
//
// The format is upstream's doc/table_format.md: blocks, each with a 5-byte
// trailer (compression type, masked CRC-32C of contents and type), then a
// 48-byte footer (metaindex and index handles as varint offset and size,
// zero padding to 40 bytes, magic 0xdb4775248b80fb57). Blocks hold
// prefix-compressed entries (shared, non_shared, value_len varints of at
// most 5 bytes, key suffix, value), then uint32 restart offsets and their
// count. Data keys are internal keys (user key, then seq<<8|type as a LE
// uint64), newest first. Index entries map a key between two data blocks to
// the first one's handle (upstream ignores bytes after the handle, which the
// iq80 Java port leaves); the metaindex maps "filter.<policy name>" to the
// filter block, which package bloom documents.
package table
