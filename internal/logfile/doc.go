// Package logfile reads LevelDB's logs (NNNNNN.log and the MANIFEST) as
// upstream 1.23's log::Reader does with checksums on, replays a
// write-ahead log as DBImpl::RecoverLogFile does (default options and
// paranoid checks, in one pass), and writes logs byte for byte as
// log::Writer does.
//
// A log (db/log_format.h) is 32 KiB blocks, the last possibly short, of
// physical records: masked crc32c (LE u32, over type and data), length (LE
// u16), type, data. A record never starts in a block's last 6 bytes, which
// the writer zero-fills. Types: 0 with length 0 is preallocated space (the
// rest of the block is skipped); 1 FULL; 2 FIRST, 3 MIDDLE, 4 LAST split a
// record across blocks; 5 reads as the reader's end of file, 6 as its bad
// record.
//
// A write-ahead log's records are write batches (db/write_batch.cc):
// sequence (LE u64), count (LE u32), then ops, 1 (put: varint32-prefixed
// key and value) or 0 (delete: key), taking sequence, sequence+1, ...
//
// Files follow upstream's: reader.go db/log_reader.cc, writer.go
// db/log_writer.cc, batch.go db/write_batch.cc, recover.go db/db_impl.cc
// (RecoverLogFile, and which logs Recover replays), walk.go db/dumpfile.cc;
// diagnose.go says what a drop hides (a flipped bit, records lost).
package logfile
