// result.h — what the .cc shims share: the ldbc_result they return, in the
// little-endian format the Go side decodes (u8, u32, u64; strings as a u32
// length and the bytes), and a WritableFile appending to a string.

#ifndef LDBCOMPAT_CGO_UPSTREAM_RESULT_H_
#define LDBCOMPAT_CGO_UPSTREAM_RESULT_H_

#if defined(__has_include)
#if !__has_include("db/dbformat.h") || !__has_include("table/filter_block.h")
#error "ldbcompat cgo/upstream: the LevelDB source tree is not on the include path. Run `make compat`, or from the repository root: eval \"$(docker/build-leveldb.sh --print-env)\" (LEVELDB_VERSION picks the release) and build again."
#endif
#endif

#include <cstdint>
#include <string>
#include <vector>

#include "leveldb/env.h"
#include "leveldb/slice.h"
#include "leveldb/status.h"

struct ldbc_result {
  std::string data;
  std::vector<uint64_t> part_lens;
};

namespace ldbc {

inline void PutU8(std::string* dst, uint8_t v) {
  dst->push_back(static_cast<char>(v));
}

inline void PutU32(std::string* dst, uint32_t v) {
  for (int i = 0; i < 4; i++) dst->push_back(static_cast<char>(v >> (8 * i)));
}

inline void PutU64(std::string* dst, uint64_t v) {
  for (int i = 0; i < 8; i++) dst->push_back(static_cast<char>(v >> (8 * i)));
}

inline void PutStr(std::string* dst, const leveldb::Slice& s) {
  PutU32(dst, static_cast<uint32_t>(s.size()));
  dst->append(s.data(), s.size());
}

// The status as Status::ToString() prints it, "" when it is OK.
inline std::string StatusText(const leveldb::Status& s) {
  return s.ok() ? std::string() : s.ToString();
}

// A WritableFile appending to a string.
class StringFile : public leveldb::WritableFile {
 public:
  leveldb::Status Append(const leveldb::Slice& data) override {
    contents_.append(data.data(), data.size());
    return leveldb::Status::OK();
  }
  leveldb::Status Close() override { return leveldb::Status::OK(); }
  leveldb::Status Flush() override { return leveldb::Status::OK(); }
  leveldb::Status Sync() override { return leveldb::Status::OK(); }
  std::string* contents() { return &contents_; }

 private:
  std::string contents_;
};

}  // namespace ldbc

#endif  // LDBCOMPAT_CGO_UPSTREAM_RESULT_H_
