//go:build leveldb

// log_shim.cc — the linked LevelDB's log reader and writer
// (db/log_reader.cc, db/log_writer.cc), write batches (db/write_batch.cc)
// and DB::Open's log recovery, for log.go. The signatures it calls are the
// same in every release since v1.4.

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "db/dbformat.h"  // SequenceNumber: write_batch_internal.h of v1.17 and older does not include it
#include "db/log_reader.h"
#include "db/log_writer.h"
#include "db/write_batch_internal.h"
#include "leveldb/db.h"
#include "leveldb/env.h"
#include "leveldb/iterator.h"
#include "leveldb/options.h"
#include "leveldb/status.h"
#include "leveldb/write_batch.h"
#include "result.h"
#include "shim.h"

namespace {

using ldbc::PutStr;
using ldbc::PutU64;
using ldbc::PutU8;
using ldbc::StringFile;

// A SequentialFile over bytes in memory: Read returns up to n bytes, as a
// regular file's read(2) does.
class MemSequentialFile : public leveldb::SequentialFile {
 public:
  MemSequentialFile(const char* data, size_t n) : data_(data), n_(n) {}

  leveldb::Status Read(size_t n, leveldb::Slice* result,
                       char* scratch) override {
    const size_t left = n_ - pos_;
    if (n > left) n = left;
    if (n > 0) std::memcpy(scratch, data_ + pos_, n);
    pos_ += n;
    *result = leveldb::Slice(scratch, n);
    return leveldb::Status::OK();
  }

  leveldb::Status Skip(uint64_t n) override {
    const size_t left = n_ - pos_;
    pos_ += n > left ? left : static_cast<size_t>(n);
    return leveldb::Status::OK();
  }

 private:
  const char* const data_;
  const size_t n_;
  size_t pos_ = 0;
};

// Events go into the result in the order they happen: 'D' (a drop: u64
// bytes, status) and 'R' (a record: u64 last_record_offset, bytes).
class RecordingReporter : public leveldb::log::Reader::Reporter {
 public:
  explicit RecordingReporter(std::string* out) : out_(out) {}
  void Corruption(size_t bytes, const leveldb::Status& status) override {
    PutU8(out_, 'D');
    PutU64(out_, bytes);
    PutStr(out_, status.ToString());
  }

 private:
  std::string* const out_;
};

// Records each op of a write batch: u8 kind (1 put, 0 delete), key, and
// for a put the value.
class RecordingHandler : public leveldb::WriteBatch::Handler {
 public:
  explicit RecordingHandler(std::string* out) : out_(out) {}
  void Put(const leveldb::Slice& key, const leveldb::Slice& value) override {
    PutU8(out_, 1);
    PutStr(out_, key);
    PutStr(out_, value);
    n_++;
  }
  void Delete(const leveldb::Slice& key) override {
    PutU8(out_, 0);
    PutStr(out_, key);
    n_++;
  }
  uint64_t n() const { return n_; }

 private:
  std::string* const out_;
  uint64_t n_ = 0;
};

}  // namespace

extern "C" {

ldbc_result* ldbc_log_read(const char* path, const char* data, size_t n) {
  ldbc_result* r = new ldbc_result;
  std::string* out = &r->data;
  std::unique_ptr<leveldb::SequentialFile> file;
  if (path != nullptr) {
    leveldb::SequentialFile* f = nullptr;
    leveldb::Status s = leveldb::Env::Default()->NewSequentialFile(path, &f);
    if (!s.ok()) {
      PutU8(out, 'O');
      PutStr(out, s.ToString());
      return r;
    }
    file.reset(f);
  } else {
    file.reset(new MemSequentialFile(data, n));
  }
  RecordingReporter reporter(out);
  leveldb::log::Reader reader(file.get(), &reporter, true /*checksum*/,
                              0 /*initial_offset*/);
  leveldb::Slice record;
  std::string scratch;
  while (reader.ReadRecord(&record, &scratch)) {
    PutU8(out, 'R');
    PutU64(out, reader.LastRecordOffset());
    PutStr(out, record);
  }
  PutU8(out, 'E');
  return r;
}

ldbc_result* ldbc_log_write(const char* flat, const uint64_t* offs,
                            size_t n) {
  StringFile file;
  {
    leveldb::log::Writer writer(&file);
    for (size_t i = 0; i < n; i++) {
      writer.AddRecord(leveldb::Slice(
          flat + offs[i], static_cast<size_t>(offs[i + 1] - offs[i])));
    }
  }
  ldbc_result* r = new ldbc_result;
  r->data.swap(*file.contents());
  return r;
}

ldbc_result* ldbc_batch_iterate(const char* data, size_t n) {
  ldbc_result* r = new ldbc_result;
  std::string* out = &r->data;
  leveldb::WriteBatch batch;
  // SetContents asserts 12 bytes at least (compiled out): Iterate refuses
  // fewer, and Sequence and Count would read past them.
  leveldb::WriteBatchInternal::SetContents(&batch, leveldb::Slice(data, n));
  const bool header = n >= 12;
  PutU64(out, header ? leveldb::WriteBatchInternal::Sequence(&batch) : 0);
  PutU64(out, header ? static_cast<uint32_t>(
                              leveldb::WriteBatchInternal::Count(&batch))
                        : 0);
  std::string ops;
  RecordingHandler handler(&ops);
  leveldb::Status s = batch.Iterate(&handler);
  PutU64(out, handler.n());
  out->append(ops);
  PutStr(out, s.ok() ? std::string() : s.ToString());
  return r;
}

ldbc_result* ldbc_db_open_scan(const char* dir, int paranoid) {
  ldbc_result* r = new ldbc_result;
  std::string* out = &r->data;
  leveldb::Options options;
  options.paranoid_checks = paranoid != 0;
  leveldb::DB* db = nullptr;
  leveldb::Status s = leveldb::DB::Open(options, dir, &db);
  PutStr(out, s.ok() ? std::string() : s.ToString());
  if (!s.ok()) return r;
  std::string entries;
  uint64_t count = 0;
  leveldb::Iterator* it = db->NewIterator(leveldb::ReadOptions());
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    PutStr(&entries, it->key());
    PutStr(&entries, it->value());
    count++;
  }
  leveldb::Status is = it->status();
  delete it;
  delete db;
  PutU64(out, count);
  out->append(entries);
  PutStr(out, is.ok() ? std::string() : is.ToString());
  return r;
}

}  // extern "C"
