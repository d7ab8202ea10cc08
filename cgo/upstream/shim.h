// shim.h — the C interface of shim.cc over LevelDB 1.23's C++ internals.
//
// Conventions:
//   - A list of n keys is one flat byte buffer plus n+1 offsets: key i is
//     flat[offs[i] : offs[i+1]]. flat may be NULL when it is empty.
//   - Byte buffers may be NULL when their length is 0.
//   - A policy is test != 0 ? TestHashFilter : NewBloomFilterPolicy(bits).
//   - Results that C++ allocates come back as an ldbc_result, which the
//     caller reads and then frees with ldbc_result_free.

#ifndef LDBCOMPAT_CGO_UPSTREAM_SHIM_H_
#define LDBCOMPAT_CGO_UPSTREAM_SHIM_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ldbc_policy ldbc_policy;
typedef struct ldbc_result ldbc_result;

// Op kinds for ldbc_filter_block_build; the same values as Go's OpKind.
enum { LDBC_OP_START_BLOCK = 0, LDBC_OP_ADD_KEY = 1, LDBC_OP_FINISH = 2 };

ldbc_policy* ldbc_policy_new(int test, int bits_per_key);
void ldbc_policy_free(ldbc_policy* p);
const char* ldbc_policy_name(const ldbc_policy* p);

// Bytes and, for a filter block build, the lengths of the parts they hold.
const char* ldbc_result_data(const ldbc_result* r);
size_t ldbc_result_len(const ldbc_result* r);
size_t ldbc_result_nparts(const ldbc_result* r);
const uint64_t* ldbc_result_part_lens(const ldbc_result* r);
void ldbc_result_free(ldbc_result* r);

uint32_t ldbc_hash(const char* data, size_t n, uint32_t seed);
void ldbc_hash_batch(const char* flat, const uint64_t* offs, size_t n,
                     uint32_t seed, uint32_t* out);

// CreateFilter on a std::string that starts as dst[0:dst_len].
ldbc_result* ldbc_create_filter(const ldbc_policy* p, const char* flat,
                                const uint64_t* offs, size_t n,
                                const char* dst, size_t dst_len);
int ldbc_key_may_match(const ldbc_policy* p, const char* key, size_t key_len,
                       const char* filter, size_t filter_len);
void ldbc_key_may_match_batch(const ldbc_policy* p, const char* flat,
                              const uint64_t* offs, size_t n,
                              const char* filter, size_t filter_len,
                              uint8_t* out);

// Runs nops ops on one FilterBlockBuilder: op i has kind kinds[i], block
// offset offsets[i] (StartBlock) and key i of flat/koffs (AddKey). The result
// holds the bytes of every Finish, one part each.
ldbc_result* ldbc_filter_block_build(const ldbc_policy* p,
                                     const uint8_t* kinds,
                                     const uint64_t* offsets,
                                     const char* flat, const uint64_t* koffs,
                                     size_t nops);
// Answers n queries (block offset offsets[i], key i) with one FilterBlockReader.
void ldbc_filter_block_key_may_match(const ldbc_policy* p, const char* contents,
                                     size_t contents_len,
                                     const uint64_t* offsets, const char* flat,
                                     const uint64_t* koffs, size_t n,
                                     uint8_t* out);

// Benchmarks: each runs its loop iters times, timed with
// std::chrono::steady_clock, and returns the total in nanoseconds.
int64_t ldbc_time_create_filter(const ldbc_policy* p, const char* flat,
                                const uint64_t* offs, size_t n, int64_t iters,
                                ldbc_result** filter);
int64_t ldbc_time_key_may_match(const ldbc_policy* p, const char* flat,
                                const uint64_t* offs, size_t n,
                                const char* filter, size_t filter_len,
                                int64_t iters, uint64_t* hits);
int64_t ldbc_time_filter_block(const ldbc_policy* p, const uint8_t* kinds,
                               const uint64_t* offsets, const char* flat,
                               const uint64_t* koffs, size_t nops,
                               int64_t iters);

// Table and MANIFEST readers (reader_shim.cc). Each returns an ldbc_result
// whose bytes reader.go decodes.
//
// The user comparator of ldbc_table_read and ldbc_manifest_recover:
// leveldb::BytewiseComparator() when cmp_name is NULL, else a comparator
// whose Name() is cmp_name, ordering keys bytewise, or in the reverse of
// bytewise order when cmp_reverse is non-zero.
//
// ldbc_table_read reads table `number` of the database directory dir through
// a leveldb::TableCache, as a DB reads a live table of `size` bytes (the
// MANIFEST's), with paranoid_checks and an InternalFilterPolicy over a policy
// named policy_name whose filters are NewBloomFilterPolicy(bits)'s: the open
// status, a full scan with verify_checksums, and TableCache::Get for each of
// the nlookups internal keys in flat/offs. With defaults non-zero, it reads
// with LevelDB's default options instead: paranoid_checks and
// verify_checksums false.
ldbc_result* ldbc_table_read(const char* dir, uint64_t number, uint64_t size,
                             const char* policy_name, int bits,
                             const char* flat, const uint64_t* offs,
                             size_t nlookups, const char* cmp_name,
                             int cmp_reverse, int defaults);
// ldbc_manifest_recover runs leveldb::VersionSet::Recover on the database
// directory dir (read-only) and reports its status and the version.
ldbc_result* ldbc_manifest_recover(const char* dir, const char* cmp_name,
                                   int cmp_reverse);

// ldbc_time_db_scan opens the database directory dir with DB::Open
// (default options, create_if_missing off), reads it with one iterator
// (verify_checksums on, fill_cache off) from first to last, and closes it;
// it reports the process's CPU time (CLOCK_PROCESS_CPUTIME_ID) and the wall
// time that took, the entries read and their key and value bytes. The
// result holds the status's text when it is not OK, and nothing otherwise.
// DB::Open writes to dir as it always does (a new log and MANIFEST).
ldbc_result* ldbc_time_db_scan(const char* dir, int64_t* cpu_nanos,
                               int64_t* wall_nanos, uint64_t* entries,
                               uint64_t* bytes);

#ifdef __cplusplus
}  // extern "C"
#endif

// Logs and write batches (log_shim.cc). Each returns an ldbc_result whose
// bytes log.go decodes.
#ifdef __cplusplus
extern "C" {
#endif

// ldbc_log_read reads a log with log::Reader(checksum=true, initial_offset=0)
// and a Reporter that records each Corruption(bytes, status): from the file
// at path (through Env::Default()) when path is not NULL, else from the n
// bytes at data (a SequentialFile over memory).
ldbc_result* ldbc_log_read(const char* path, const char* data, size_t n);
// ldbc_log_write writes the n records of flat/offs with one log::Writer
// and returns the log's bytes.
ldbc_result* ldbc_log_write(const char* flat, const uint64_t* offs, size_t n);
// ldbc_batch_iterate runs WriteBatch::Iterate on a batch whose contents are
// the n bytes at data (WriteBatchInternal::SetContents).
ldbc_result* ldbc_batch_iterate(const char* data, size_t n);
// ldbc_db_open_scan opens the database directory dir with DB::Open (default
// options, paranoid_checks if paranoid is non-zero; it writes to dir as it
// always does) and reads every entry with one iterator.
ldbc_result* ldbc_db_open_scan(const char* dir, int paranoid);

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // LDBCOMPAT_CGO_UPSTREAM_SHIM_H_
