// Package logfile reads LevelDB's log files, the write-ahead logs
// (NNNNNN.log) and the MANIFEST, exactly as upstream LevelDB 1.23's
// log::Reader reads them with checksums on, block by block, and replays a
// write-ahead log as DBImpl::RecoverLogFile does under LevelDB's default
// options and under paranoid checks, in one pass; and writes logs byte
// for byte as upstream's log::Writer does.
//
// # Blocks and physical records (db/log_format.h)
//
// A log is a sequence of 32 KiB blocks, the last one possibly short. A
// block holds physical records, each a 7-byte header and its data:
//
//	+-----------------------+-----------------+----------+---------------+
//	| masked crc32c (LE u32)| length (LE u16) | type (1) | data (length) |
//	+-----------------------+-----------------+----------+---------------+
//
// The crc32c covers the type byte and the data (not the length), masked as
// util/crc32c.h Mask does. A record never starts in a block's last 6 bytes:
// the writer zero-fills them (the trailer) and goes on in the next block.
//
//	type 0  zero: with length 0, preallocated space; the rest of the block is skipped
//	type 1  FULL: a whole logical record
//	type 2  FIRST  \
//	type 3  MIDDLE  > a logical record split across blocks
//	type 4  LAST   /
//	type 5  read as the reader's own end of file: reading stops
//	type 6  read as the reader's own bad record: skipped
//
// # Logical records of a write-ahead log: write batches (db/write_batch.cc)
//
//	+----------------------+-------------------+-----------------+
//	| sequence (LE u64)    | count (LE u32)    | ops ...         |
//	+----------------------+-------------------+-----------------+
//	op: 1 (put)    varint32 key length, key, varint32 value length, value
//	    0 (delete) varint32 key length, key
//
// The ops take the sequence numbers sequence, sequence+1, ... in order.
// The logical records of a MANIFEST are version edits (package manifest).
//
// # Files
//
// Each file follows an upstream one:
//
//	reader.go    db/log_reader.cc   log::Reader (Reader, Drop, Skip, End)
//	writer.go    db/log_writer.cc   log::Writer (Writer, WriteLog)
//	diagnose.go  —                  what a drop hides: a flipped bit, records lost
//	batch.go     db/write_batch.cc  WriteBatch::Iterate (NewBatch, Batch.Iterate)
//	recover.go   db/db_impl.cc      DBImpl::RecoverLogFile (Recover), which logs DBImpl::Recover replays (LogsToReplay)
//	walk.go      db/dumpfile.cc     a log's records and damage in file order (Walk)
package logfile
