//go:build leveldb

// reader_shim.cc — a database's tables and MANIFEST read by the linked
// LevelDB's own readers as a DB reads them: leveldb::TableCache
// (db/table_cache.cc: NNNNNN.ldb then .sst from v1.14, .sst only before)
// and VersionSet::Recover (db/version_set.cc). Two of their signatures
// changed across releases; kMinorVersion picks the form (NewTableCache,
// RecoverVersions).

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "db/dbformat.h"
#include "db/filename.h"
#include "db/table_cache.h"
#include "db/version_edit.h"
#include "db/version_set.h"
#include "leveldb/comparator.h"
#include "leveldb/db.h"  // kMajorVersion, kMinorVersion
#include "leveldb/env.h"
#include "leveldb/filter_policy.h"
#include "leveldb/iterator.h"
#include "leveldb/options.h"
#include "leveldb/status.h"
#include "result.h"
#include "shim.h"

namespace {

using ldbc::PutStr;
using ldbc::PutU32;
using ldbc::PutU64;
using ldbc::PutU8;
using ldbc::StatusText;

// The release's minor version as its headers declare it: 4 to 23 (main says
// 23 too). Every release since v1.4 is 1.x (shim.cc asserts it).
constexpr int kMinor = leveldb::kMinorVersion;

// A leveldb::TableCache of 10 entries over options, which must outlive it.
// Its constructor takes the options by pointer up to v1.20 and by reference
// from 1.21. TC is leveldb::TableCache: a template parameter so that only the
// form this release has is compiled (if constexpr discards the other).
template <typename TC = leveldb::TableCache>
std::unique_ptr<TC> NewTableCache(const std::string& dir,
                                  const leveldb::Options& options) {
  if constexpr (kMinor <= 20) {
    return std::unique_ptr<TC>(new TC(dir, &options, 10));
  } else {
    return std::unique_ptr<TC>(new TC(dir, options, 10));
  }
}

// versions->Recover(), as DBImpl::Recover calls it: without arguments up to
// v1.18; from v1.19 with the save_manifest flag, which only tells DBImpl
// whether to write a new MANIFEST afterwards (nothing here writes).
template <typename VS>
leveldb::Status RecoverVersions(VS* versions) {
  if constexpr (kMinor <= 18) {
    return versions->Recover();
  } else {
    bool save_manifest = false;
    return versions->Recover(&save_manifest);
  }
}

// Whether DBImpl::Recover checks that every live file of the recovered
// version exists: from v1.10 (v1.4 to v1.9 open a database with missing
// tables and fail only when a read reaches one).
constexpr bool kChecksMissingFiles = kMinor >= 10;

// A filter policy named name whose filters are NewBloomFilterPolicy(bits)'s,
// recording every KeyMayMatch call and its answer.
class RecordingPolicy : public leveldb::FilterPolicy {
 public:
  RecordingPolicy(std::string name, int bits)
      : name_(std::move(name)), bloom_(leveldb::NewBloomFilterPolicy(bits)) {}
  ~RecordingPolicy() override { delete bloom_; }

  const char* Name() const override { return name_.c_str(); }

  void CreateFilter(const leveldb::Slice* keys, int n,
                    std::string* dst) const override {
    bloom_->CreateFilter(keys, n, dst);
  }

  bool KeyMayMatch(const leveldb::Slice& key,
                   const leveldb::Slice& filter) const override {
    const bool r = bloom_->KeyMayMatch(key, filter);
    calls_.push_back(r ? 1 : 0);
    return r;
  }

  // The answers of the calls since the last Reset, in order.
  const std::vector<uint8_t>& calls() const { return calls_; }
  void Reset() const { calls_.clear(); }

 private:
  const std::string name_;
  const leveldb::FilterPolicy* const bloom_;
  mutable std::vector<uint8_t> calls_;
};

// A user comparator named name: bytewise order, or its reverse. Neither
// reading a table nor recovering a MANIFEST shortens keys, so the two
// key-shortening calls leave them as they are.
class NamedComparator : public leveldb::Comparator {
 public:
  NamedComparator(std::string name, bool reverse)
      : name_(std::move(name)), reverse_(reverse) {}

  int Compare(const leveldb::Slice& a, const leveldb::Slice& b) const override {
    const int c = a.compare(b);
    return reverse_ ? -c : c;
  }
  const char* Name() const override { return name_.c_str(); }
  void FindShortestSeparator(std::string*,
                             const leveldb::Slice&) const override {}
  void FindShortSuccessor(std::string*) const override {}

 private:
  const std::string name_;
  const bool reverse_;
};

// The user comparator cmp_name and cmp_reverse ask for (see shim.h): owned
// by holder when it is not upstream's bytewise one.
const leveldb::Comparator* UserComparator(
    const char* cmp_name, int cmp_reverse,
    std::unique_ptr<NamedComparator>* holder) {
  if (cmp_name == nullptr) return leveldb::BytewiseComparator();
  holder->reset(new NamedComparator(cmp_name, cmp_reverse != 0));
  return holder->get();
}

// What TableCache::Get hands to its callback (Version::Get's SaveValue).
struct GetResult {
  bool found = false;
  std::string key, value;
};

void SaveResult(void* arg, const leveldb::Slice& k, const leveldb::Slice& v) {
  GetResult* r = reinterpret_cast<GetResult*>(arg);
  r->found = true;
  r->key.assign(k.data(), k.size());
  r->value.assign(v.data(), v.size());
}

}  // namespace

extern "C" {

ldbc_result* ldbc_table_read(const char* dir, uint64_t number, uint64_t size,
                             const char* policy_name, int bits,
                             const char* flat, const uint64_t* offs,
                             size_t nlookups, const char* cmp_name,
                             int cmp_reverse, int defaults) {
  RecordingPolicy user_policy(policy_name, bits);
  leveldb::InternalFilterPolicy policy(&user_policy);
  std::unique_ptr<NamedComparator> cmp;
  leveldb::InternalKeyComparator icmp(
      UserComparator(cmp_name, cmp_reverse, &cmp));

  // The options DBImpl's SanitizeOptions leaves a DB with, as TableCache
  // passes them to Table::Open, with paranoid checks on unless defaults
  // asks for LevelDB's default options (then no read verifies a block's
  // checksum: table/table.cc, table/format.cc ReadBlock). There is no block
  // cache: with one, a block read once (a snappy block: under mmap,
  // uncompressed blocks are never cached) would be served again for any
  // later handle of the same offset, which depends on what was read before.
  leveldb::Options options;
  options.comparator = &icmp;
  options.filter_policy = &policy;
  options.paranoid_checks = defaults == 0;
  options.env = leveldb::Env::Default();
  options.block_cache = nullptr;

  ldbc_result* r = new ldbc_result;
  std::string* out = &r->data;
  std::unique_ptr<leveldb::TableCache> cache_holder =
      NewTableCache(dir, options);
  leveldb::TableCache& cache = *cache_holder;
  leveldb::ReadOptions ro;
  ro.verify_checksums = defaults == 0;

  // The full scan, as a DBIter drives it: SeekToFirst, Next while Valid,
  // then the iterator's status. Opening the table (FindTable) happens
  // here first; its error comes back as an error iterator.
  leveldb::Iterator* it = cache.NewIterator(ro, number, size);
  std::string entries;
  uint32_t n = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    const leveldb::Slice k = it->key();
    leveldb::ParsedInternalKey parsed;
    // db/db_iter.cc DBIter::ParseKey: a key ParseInternalKey refuses is
    // "corrupted internal key in DBIter".
    PutU8(&entries, leveldb::ParseInternalKey(k, &parsed) ? 1 : 0);
    PutStr(&entries, k);
    PutStr(&entries, it->value());
    n++;
  }
  const std::string scan_status = StatusText(it->status());
  delete it;

  // Open on its own: FindTable's status (not cached when it fails). A
  // table that opened comes back through tableptr; the iterator's status
  // would also hold the index block's construction error.
  std::string open_status;
  {
    leveldb::Table* opened = nullptr;
    leveldb::Iterator* probe = cache.NewIterator(ro, number, size, &opened);
    if (opened == nullptr) open_status = StatusText(probe->status());
    delete probe;
  }
  PutStr(out, open_status);
  PutU32(out, n);
  out->append(entries);
  PutStr(out, scan_status);

  PutU32(out, static_cast<uint32_t>(nlookups));
  for (size_t i = 0; i < nlookups; i++) {
    const leveldb::Slice k(flat + offs[i],
                           static_cast<size_t>(offs[i + 1] - offs[i]));
    GetResult g;
    user_policy.Reset();
    leveldb::Status s = cache.Get(ro, number, size, k, &g, &SaveResult);
    PutU8(out, g.found ? 1 : 0);
    PutStr(out, g.key);
    PutStr(out, g.value);
    PutStr(out, StatusText(s));
    PutU32(out, static_cast<uint32_t>(user_policy.calls().size()));
    for (uint8_t c : user_policy.calls()) PutU8(out, c);
  }
  return r;
}

ldbc_result* ldbc_manifest_recover(const char* dir, const char* cmp_name,
                                   int cmp_reverse) {
  std::unique_ptr<NamedComparator> cmp;
  leveldb::InternalKeyComparator icmp(
      UserComparator(cmp_name, cmp_reverse, &cmp));
  leveldb::Options options;
  options.comparator = &icmp;
  options.env = leveldb::Env::Default();
  std::unique_ptr<leveldb::TableCache> table_cache =
      NewTableCache(dir, options);
  leveldb::VersionSet versions(dir, &options, table_cache.get(), &icmp);

  ldbc_result* r = new ldbc_result;
  std::string* out = &r->data;
  // Read only: Recover reads CURRENT and the MANIFEST; writing a new
  // MANIFEST is what DBImpl does afterwards (from v1.19 when save_manifest
  // is set).
  leveldb::Status s = RecoverVersions(&versions);
  PutStr(out, StatusText(s));
  if (!s.ok()) return r;

  PutU64(out, versions.LogNumber());
  PutU64(out, versions.PrevLogNumber());
  PutU64(out, versions.ManifestFileNumber());  // the MANIFEST's next file
  PutU64(out, versions.LastSequence());
  leveldb::Version* v = versions.current();
  std::string files;
  uint32_t nfiles = 0;
  for (int level = 0; level < leveldb::config::kNumLevels; level++) {
    std::vector<leveldb::FileMetaData*> fs;
    v->GetOverlappingInputs(level, nullptr, nullptr, &fs);
    for (const leveldb::FileMetaData* f : fs) {
      PutU32(&files, static_cast<uint32_t>(level));
      PutU64(&files, f->number);
      PutU64(&files, f->file_size);
      PutStr(&files, f->smallest.Encode());
      PutStr(&files, f->largest.Encode());
      nfiles++;
    }
  }
  PutU32(out, nfiles);
  out->append(files);

  // What DBImpl::Recover (db/db_impl.cc) checks next, from v1.10: every
  // live file's number must be the number of some file in the directory, of
  // any type ParseFileName knows; otherwise "N missing files; e.g. <table>"
  // (TableFileName: NNNNNN.ldb from v1.14, NNNNNN.sst before). v1.4 to v1.9
  // do not check: "" then.
  std::string missing;
  if (kChecksMissingFiles) {
    std::vector<std::string> children;
    leveldb::Status cs = options.env->GetChildren(dir, &children);
    if (!cs.ok()) {
      missing = cs.ToString();
    } else {
      std::set<uint64_t> expected;
      versions.AddLiveFiles(&expected);
      uint64_t number;
      leveldb::FileType type;
      for (const std::string& c : children) {
        if (leveldb::ParseFileName(c, &number, &type)) expected.erase(number);
      }
      if (!expected.empty()) {
        char buf[50];
        std::snprintf(buf, sizeof(buf), "%d missing files; e.g.",
                      static_cast<int>(expected.size()));
        missing = leveldb::Status::Corruption(
                      buf, leveldb::TableFileName(dir, *expected.begin()))
                      .ToString();
      }
    }
  }
  PutStr(out, missing);
  return r;
}

}  // extern "C"
