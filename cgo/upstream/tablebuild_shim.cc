//go:build leveldb

// tablebuild_shim.cc — the linked LevelDB's table writer and reader on
// bytes in memory (table/table_builder.cc, table/table.cc), configured as a
// database configures them, for tablebuild.go. The signatures it calls are
// the same in every release since v1.4.

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "db/dbformat.h"
#include "leveldb/comparator.h"
#include "leveldb/env.h"
#include "leveldb/filter_policy.h"
#include "leveldb/iterator.h"
#include "leveldb/options.h"
#include "leveldb/status.h"
#include "leveldb/table.h"
#include "leveldb/table_builder.h"
#include "result.h"

namespace {

using ldbc::PutStr;
using ldbc::PutU32;
using ldbc::StatusText;
using ldbc::StringFile;

// A RandomAccessFile over bytes in memory: a read past the end fails as
// util/env_posix.cc's memory-mapped file does.
class MemFile : public leveldb::RandomAccessFile {
 public:
  MemFile(const char* data, size_t n) : data_(data), n_(n) {}
  leveldb::Status Read(uint64_t offset, size_t n, leveldb::Slice* result,
                       char* scratch) const override {
    if (offset + n > n_ || offset + n < offset) {
      *result = leveldb::Slice();
      return leveldb::Status::IOError("table", "Invalid argument");
    }
    *result = leveldb::Slice(data_ + offset, n);
    return leveldb::Status::OK();
  }

 private:
  const char* const data_;
  const size_t n_;
};

// Options as a database has them for its tables.
struct TbOptions {
  leveldb::InternalKeyComparator icmp{leveldb::BytewiseComparator()};
  std::unique_ptr<const leveldb::FilterPolicy> bloom;
  std::unique_ptr<leveldb::InternalFilterPolicy> ipolicy;
  leveldb::Options options;

  explicit TbOptions(int bits) {
    options.comparator = &icmp;
    options.paranoid_checks = true;
    if (bits > 0) {
      bloom.reset(leveldb::NewBloomFilterPolicy(bits));
      ipolicy.reset(new leveldb::InternalFilterPolicy(bloom.get()));
      options.filter_policy = ipolicy.get();
    }
  }
};

}  // namespace

extern "C" {

// Builds a table of n entries (key i is keys[koffs[i]:koffs[i+1]], value i
// likewise) and returns its bytes, or, when the builder's status is not
// OK, "!" and the status.
ldbc_result* ldbc_table_build(const char* keys, const uint64_t* koffs,
                              const char* vals, const uint64_t* voffs,
                              size_t n, size_t block_size,
                              int restart_interval, int snappy, int bits) {
  TbOptions o(bits);
  o.options.block_size = block_size;
  o.options.block_restart_interval = restart_interval;
  o.options.compression =
      snappy ? leveldb::kSnappyCompression : leveldb::kNoCompression;
  StringFile file;
  leveldb::TableBuilder builder(o.options, &file);
  for (size_t i = 0; i < n; i++) {
    builder.Add(leveldb::Slice(keys + koffs[i], koffs[i + 1] - koffs[i]),
                leveldb::Slice(vals + voffs[i], voffs[i + 1] - voffs[i]));
  }
  leveldb::Status s = builder.Finish();
  ldbc_result* r = new ldbc_result;
  if (!s.ok()) {
    r->data = "!" + s.ToString();
  } else {
    r->data.swap(*file.contents());
  }
  return r;
}

// Opens the table in data[0:n] with Table::Open (paranoid_checks, and the
// filter policy of bits when bits > 0) and scans it with verify_checksums.
// The result: the open status, the number of entries, each entry's key and
// value, and the scan's status.
ldbc_result* ldbc_table_read_bytes(const char* data, size_t n, int bits) {
  TbOptions o(bits);
  MemFile file(data, n);
  leveldb::Table* table = nullptr;
  leveldb::Status s = leveldb::Table::Open(o.options, &file, n, &table);
  ldbc_result* r = new ldbc_result;
  PutStr(&r->data, StatusText(s));
  std::string entries;
  uint32_t count = 0;
  std::string scan;
  if (s.ok()) {
    leveldb::ReadOptions ro;
    ro.verify_checksums = true;
    std::unique_ptr<leveldb::Iterator> it(table->NewIterator(ro));
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      PutStr(&entries, it->key());
      PutStr(&entries, it->value());
      count++;
    }
    scan = StatusText(it->status());
  }
  PutU32(&r->data, count);
  r->data.append(entries);
  PutStr(&r->data, scan);
  delete table;
  return r;
}

}  // extern "C"
