//go:build leveldb

// scan_shim.cc — an extern "C" entry point that reads a whole database the
// way an application does with the linked LevelDB's public API: DB::Open,
// then one iterator over everything with verify_checksums on and fill_cache
// off. package bench times it beside `ldbcompat verify` on the same tables.
// See shim.h.

#include <time.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "leveldb/db.h"
#include "leveldb/iterator.h"
#include "leveldb/options.h"
#include "leveldb/status.h"
#include "result.h"
#include "shim.h"

namespace {

int64_t ProcessCPUNanos() {
  struct timespec ts;
  if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0) return -1;
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

}  // namespace

extern "C" {

ldbc_result* ldbc_time_db_scan(const char* dir, int64_t* cpu_nanos,
                               int64_t* wall_nanos, uint64_t* entries,
                               uint64_t* bytes) {
  ldbc_result* r = new ldbc_result;
  *cpu_nanos = *wall_nanos = 0;
  *entries = *bytes = 0;
  leveldb::Options options;  // the defaults: no block cache of ours
  options.create_if_missing = false;
  const int64_t cpu0 = ProcessCPUNanos();
  const auto wall0 = std::chrono::steady_clock::now();
  leveldb::DB* db = nullptr;
  leveldb::Status s = leveldb::DB::Open(options, dir, &db);
  if (s.ok()) {
    leveldb::ReadOptions ro;
    ro.verify_checksums = true;
    ro.fill_cache = false;
    leveldb::Iterator* it = db->NewIterator(ro);
    uint64_t n = 0, b = 0;
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      n++;
      b += it->key().size() + it->value().size();
    }
    s = it->status();
    delete it;
    delete db;  // waits for any background work it started
    *entries = n;
    *bytes = b;
  }
  *wall_nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(
                    std::chrono::steady_clock::now() - wall0)
                    .count();
  *cpu_nanos = ProcessCPUNanos() - cpu0;
  if (!s.ok()) r->data = s.ToString();
  return r;
}

}  // extern "C"
