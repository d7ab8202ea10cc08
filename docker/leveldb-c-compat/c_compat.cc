// c_compat.cc — the C API functions that levigo v1.0.0 calls and
// that the oldest LevelDB releases lack, for docker/build-leveldb.sh, which
// compiles this file into <out>/lib/libleveldb_c_compat.a (a library of its
// own, on the link line only for those releases) with
//   -DLDBCOMPAT_DEFINE_FREE     when include/leveldb/c.h lacks leveldb_free
//                               (v1.4, v1.5)
//   -DLDBCOMPAT_DEFINE_VERSION  when it lacks leveldb_major_version and
//                               leveldb_minor_version (v1.4 to v1.6)
// Each definition does what the later releases' db/c.cc does; a release
// that has a function gets no second definition of it.

#include <cstdlib>

#include "leveldb/db.h"  // kMajorVersion, kMinorVersion

extern "C" {

#ifdef LDBCOMPAT_DEFINE_FREE
// The C API of every release returns malloc'd (or strdup'd) memory: error
// strings, leveldb_get values, leveldb_property_value results.
void leveldb_free(void* ptr) { std::free(ptr); }
#endif

#ifdef LDBCOMPAT_DEFINE_VERSION
int leveldb_major_version() { return leveldb::kMajorVersion; }
int leveldb_minor_version() { return leveldb::kMinorVersion; }
#endif

}  // extern "C"
