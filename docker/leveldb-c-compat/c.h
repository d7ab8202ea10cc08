/* c.h — installed by docker/build-leveldb.sh as
 * <out>/compat/include/leveldb/c.h, ahead of LevelDB's own include/ on the
 * include path, for the releases whose C API lacks functions that levigo
 * v1.0.0 calls: leveldb_free (added in v1.6) and leveldb_major_version /
 * leveldb_minor_version (added in v1.7). It includes LevelDB's c.h and
 * declares the three; c_compat.cc beside it defines the ones the
 * release lacks, in a library of its own (libleveldb_c_compat.a).
 *
 * Redeclaring a function the release's c.h already declares is harmless:
 * the declarations are the same. */
#ifndef LDBCOMPAT_LEVELDB_C_COMPAT_H_
#define LDBCOMPAT_LEVELDB_C_COMPAT_H_

#include_next <leveldb/c.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Frees memory the C API returned: error strings, leveldb_get values,
 * property values (all from malloc or strdup in every release). */
extern void leveldb_free(void* ptr);

/* The release's leveldb::kMajorVersion and kMinorVersion (include/leveldb/db.h). */
extern int leveldb_major_version(void);
extern int leveldb_minor_version(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* LDBCOMPAT_LEVELDB_C_COMPAT_H_ */
