//go:build leveldb

// version.cc — which LevelDB package upstream is built against, which
// compiler built this shim and how it treats plain char, for version.go.
//
// LDBCOMPAT_LEVELDB_VERSION and LDBCOMPAT_LEVELDB_BUILD come from
// docker/build-leveldb.sh --print-env (CGO_CXXFLAGS): the version name of
// docker/leveldb-versions.tsv (1.17, 1.23, main-78a352f) and the build's id.

#include <limits>

#include "leveldb/db.h"  // kMajorVersion, kMinorVersion

// Undefined, each is "": the stringized empty argument.
#ifndef LDBCOMPAT_LEVELDB_VERSION
#define LDBCOMPAT_LEVELDB_VERSION
#endif
#ifndef LDBCOMPAT_LEVELDB_BUILD
#define LDBCOMPAT_LEVELDB_BUILD
#endif
#define LDBC_STR2(x) #x
#define LDBC_STR(x) LDBC_STR2(x)

extern "C" {

int ldbc_version_major(void) { return leveldb::kMajorVersion; }
int ldbc_version_minor(void) { return leveldb::kMinorVersion; }

const char* ldbc_version_name(void) {
  return LDBC_STR(LDBCOMPAT_LEVELDB_VERSION);
}

const char* ldbc_version_build(void) {
  return LDBC_STR(LDBCOMPAT_LEVELDB_BUILD);
}

const char* ldbc_compiler(void) {
#if defined(__clang__)
  return "clang++ " __clang_version__;
#elif defined(__GNUC__)
  return "g++ " __VERSION__;
#else
  return "";
#endif
}

int ldbc_char_is_signed(void) {
  return std::numeric_limits<char>::is_signed ? 1 : 0;
}

}  // extern "C"
