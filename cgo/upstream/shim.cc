//go:build leveldb

// shim.cc — extern "C" entry points over LevelDB's C++ internals (1.23, or
// the release LEVELDB_VERSION picked), for package upstream. See shim.h for
// the conventions.
//
// Compiled by cgo with -std=c++17 -fno-rtti -DNDEBUG (see upstream.go), against
// the source tree that docker/build-leveldb.sh extracted: the include path must
// hold <src> (for util/, table/) and <src>/include (for leveldb/).

#include "result.h"
#include "shim.h"

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "leveldb/db.h"  // kMajorVersion, kMinorVersion
#include "leveldb/filter_policy.h"
#include "leveldb/slice.h"
#include "table/filter_block.h"
#include "util/coding.h"
#include "util/hash.h"

// Any release with a filter policy (v1.4 onward) will do: version.cc says
// which one this is.
static_assert(leveldb::kMajorVersion == 1 && leveldb::kMinorVersion >= 4,
              "ldbcompat cgo/upstream needs LevelDB 1.4 or later (filter "
              "policies): run docker/build-leveldb.sh and use its --print-env "
              "output");

namespace {

// The policy of upstream's table/filter_block_test.cc: a filter is the list of
// the keys' 32-bit hashes (seed 1), and a key may match when its hash is in it.
class TestHashFilter : public leveldb::FilterPolicy {
 public:
  const char* Name() const override { return "TestHashFilter"; }

  void CreateFilter(const leveldb::Slice* keys, int n,
                    std::string* dst) const override {
    for (int i = 0; i < n; i++) {
      leveldb::PutFixed32(dst, leveldb::Hash(keys[i].data(), keys[i].size(), 1));
    }
  }

  bool KeyMayMatch(const leveldb::Slice& key,
                   const leveldb::Slice& filter) const override {
    const uint32_t h = leveldb::Hash(key.data(), key.size(), 1);
    for (size_t i = 0; i + 4 <= filter.size(); i += 4) {
      if (h == leveldb::DecodeFixed32(filter.data() + i)) return true;
    }
    return false;
  }
};

std::vector<leveldb::Slice> SlicesOf(const char* flat, const uint64_t* offs,
                                     size_t n) {
  std::vector<leveldb::Slice> v;
  v.reserve(n);
  for (size_t i = 0; i < n; i++) {
    v.emplace_back(flat + offs[i], static_cast<size_t>(offs[i + 1] - offs[i]));
  }
  return v;
}

int64_t NanosSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now() - start)
      .count();
}

// Runs ops on b; every Finish appends its bytes to *out (and its length to
// *lens) when out is not null, and its length to *sink otherwise.
void RunOps(leveldb::FilterBlockBuilder* b, const uint8_t* kinds,
            const uint64_t* offsets, const std::vector<leveldb::Slice>& keys,
            size_t nops, std::string* out, std::vector<uint64_t>* lens,
            uint64_t* sink) {
  for (size_t i = 0; i < nops; i++) {
    switch (kinds[i]) {
      case LDBC_OP_START_BLOCK:
        b->StartBlock(offsets[i]);
        break;
      case LDBC_OP_ADD_KEY:
        b->AddKey(keys[i]);
        break;
      case LDBC_OP_FINISH: {
        leveldb::Slice s = b->Finish();
        if (out != nullptr) {
          out->append(s.data(), s.size());
          lens->push_back(s.size());
        } else {
          *sink += s.size();
        }
        break;
      }
      default:
        break;  // rejected by the Go side
    }
  }
}

}  // namespace

struct ldbc_policy {
  const leveldb::FilterPolicy* policy;
};

extern "C" {

ldbc_policy* ldbc_policy_new(int test, int bits_per_key) {
  ldbc_policy* p = new ldbc_policy;
  if (test) {
    p->policy = new TestHashFilter;
  } else {
    p->policy = leveldb::NewBloomFilterPolicy(bits_per_key);
  }
  return p;
}

void ldbc_policy_free(ldbc_policy* p) {
  if (p == nullptr) return;
  delete p->policy;
  delete p;
}

const char* ldbc_policy_name(const ldbc_policy* p) {
  return p->policy->Name();
}

const char* ldbc_result_data(const ldbc_result* r) { return r->data.data(); }
size_t ldbc_result_len(const ldbc_result* r) { return r->data.size(); }
size_t ldbc_result_nparts(const ldbc_result* r) { return r->part_lens.size(); }
const uint64_t* ldbc_result_part_lens(const ldbc_result* r) {
  return r->part_lens.data();
}
void ldbc_result_free(ldbc_result* r) { delete r; }

uint32_t ldbc_hash(const char* data, size_t n, uint32_t seed) {
  return leveldb::Hash(data, n, seed);
}

void ldbc_hash_batch(const char* flat, const uint64_t* offs, size_t n,
                     uint32_t seed, uint32_t* out) {
  for (size_t i = 0; i < n; i++) {
    out[i] = leveldb::Hash(flat + offs[i],
                           static_cast<size_t>(offs[i + 1] - offs[i]), seed);
  }
}

ldbc_result* ldbc_create_filter(const ldbc_policy* p, const char* flat,
                                const uint64_t* offs, size_t n,
                                const char* dst, size_t dst_len) {
  std::vector<leveldb::Slice> keys = SlicesOf(flat, offs, n);
  ldbc_result* r = new ldbc_result;
  if (dst_len > 0) r->data.assign(dst, dst_len);
  p->policy->CreateFilter(keys.data(), static_cast<int>(n), &r->data);
  return r;
}

int ldbc_key_may_match(const ldbc_policy* p, const char* key, size_t key_len,
                       const char* filter, size_t filter_len) {
  return p->policy->KeyMayMatch(leveldb::Slice(key, key_len),
                                leveldb::Slice(filter, filter_len))
             ? 1
             : 0;
}

void ldbc_key_may_match_batch(const ldbc_policy* p, const char* flat,
                              const uint64_t* offs, size_t n,
                              const char* filter, size_t filter_len,
                              uint8_t* out) {
  const leveldb::Slice f(filter, filter_len);
  for (size_t i = 0; i < n; i++) {
    const leveldb::Slice key(flat + offs[i],
                             static_cast<size_t>(offs[i + 1] - offs[i]));
    out[i] = p->policy->KeyMayMatch(key, f) ? 1 : 0;
  }
}

ldbc_result* ldbc_filter_block_build(const ldbc_policy* p,
                                     const uint8_t* kinds,
                                     const uint64_t* offsets,
                                     const char* flat, const uint64_t* koffs,
                                     size_t nops) {
  std::vector<leveldb::Slice> keys = SlicesOf(flat, koffs, nops);
  ldbc_result* r = new ldbc_result;
  leveldb::FilterBlockBuilder b(p->policy);
  RunOps(&b, kinds, offsets, keys, nops, &r->data, &r->part_lens, nullptr);
  return r;
}

void ldbc_filter_block_key_may_match(const ldbc_policy* p, const char* contents,
                                     size_t contents_len,
                                     const uint64_t* offsets, const char* flat,
                                     const uint64_t* koffs, size_t n,
                                     uint8_t* out) {
  leveldb::FilterBlockReader reader(p->policy,
                                    leveldb::Slice(contents, contents_len));
  for (size_t i = 0; i < n; i++) {
    const leveldb::Slice key(flat + koffs[i],
                             static_cast<size_t>(koffs[i + 1] - koffs[i]));
    out[i] = reader.KeyMayMatch(offsets[i], key) ? 1 : 0;
  }
}

int64_t ldbc_time_create_filter(const ldbc_policy* p, const char* flat,
                                const uint64_t* offs, size_t n, int64_t iters,
                                ldbc_result** filter) {
  std::vector<leveldb::Slice> keys = SlicesOf(flat, offs, n);
  ldbc_result* r = new ldbc_result;
  const auto start = std::chrono::steady_clock::now();
  for (int64_t it = 0; it < iters; it++) {
    r->data.clear();  // keeps its capacity, like reusing dst[:0] in Go
    p->policy->CreateFilter(keys.data(), static_cast<int>(n), &r->data);
  }
  const int64_t nanos = NanosSince(start);
  *filter = r;
  return nanos;
}

int64_t ldbc_time_key_may_match(const ldbc_policy* p, const char* flat,
                                const uint64_t* offs, size_t n,
                                const char* filter, size_t filter_len,
                                int64_t iters, uint64_t* hits) {
  std::vector<leveldb::Slice> keys = SlicesOf(flat, offs, n);
  const leveldb::Slice f(filter, filter_len);
  uint64_t last = 0;
  const auto start = std::chrono::steady_clock::now();
  for (int64_t it = 0; it < iters; it++) {
    uint64_t count = 0;
    for (size_t i = 0; i < n; i++) {
      if (p->policy->KeyMayMatch(keys[i], f)) count++;
    }
    last = count;
  }
  const int64_t nanos = NanosSince(start);
  *hits = last;
  return nanos;
}

int64_t ldbc_time_filter_block(const ldbc_policy* p, const uint8_t* kinds,
                               const uint64_t* offsets, const char* flat,
                               const uint64_t* koffs, size_t nops,
                               int64_t iters) {
  std::vector<leveldb::Slice> keys = SlicesOf(flat, koffs, nops);
  uint64_t sink = 0;
  const auto start = std::chrono::steady_clock::now();
  for (int64_t it = 0; it < iters; it++) {
    leveldb::FilterBlockBuilder b(p->policy);
    RunOps(&b, kinds, offsets, keys, nops, nullptr, nullptr, &sink);
  }
  const int64_t nanos = NanosSince(start);
  // Make the Finish results observable so the loop cannot be dropped.
  volatile uint64_t keep = sink;
  (void)keep;
  return nanos;
}

}  // extern "C"
