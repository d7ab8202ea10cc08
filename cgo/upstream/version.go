//go:build leveldb

package upstream

/*
int ldbc_version_major(void);
int ldbc_version_minor(void);
const char* ldbc_version_name(void);
const char* ldbc_version_build(void);
const char* ldbc_compiler(void);
int ldbc_char_is_signed(void);
*/
import "C"

// Version returns the version the linked LevelDB's headers declare,
// leveldb::kMajorVersion and leveldb::kMinorVersion of include/leveldb/db.h:
// 1 and 23 for LevelDB 1.23. Upstream's main branch still declares 1.23;
// Release tells it apart.
func Version() (major, minor int) {
	return int(C.ldbc_version_major()), int(C.ldbc_version_minor())
}

// Release returns the name docker/build-leveldb.sh gave the build, from
// docker/leveldb-versions.tsv: "1.4" to "1.23", or "main-" and the first
// seven hex digits of the pinned commit. It is empty when the package was
// built without the script's --print-env flags.
func Release() string { return C.GoString(C.ldbc_version_name()) }

// BuildID returns docker/build-leveldb.sh's id of the build (a hash of
// everything the build depends on), or "" without its --print-env flags.
func BuildID() string { return C.GoString(C.ldbc_version_build()) }

// Compiler names the C++ compiler that built this package's shim, whose
// loops the Time functions time, and its version as the compiler states
// it: "g++ 12.2.0" or "clang++ 14.0.6 ..." (empty for another compiler).
// The linked library's compiler is among what BuildID hashes.
func Compiler() string { return C.GoString(C.ldbc_compiler()) }

// CharIsSigned reports whether the C++ compiler that built the shim (and
// the library: the same target) treats plain char as signed: true on x86,
// false on arm64. LevelDB v1.4 to v1.17 hash the last 1 to 3 bytes of a key
// as plain char, so it decides their Hash of bytes 0x80 and above.
func CharIsSigned() bool { return C.ldbc_char_is_signed() != 0 }

// LegacyBloom reports whether the linked LevelDB is one of the releases that
// name the built-in bloom policy "leveldb.BuiltinBloomFilter" and hash tail
// bytes as plain char: v1.4 to v1.17. v1.18 (google/leveldb#243) renamed it
// "leveldb.BuiltinBloomFilter2" and made the tail bytes unsigned.
func LegacyBloom() bool {
	major, minor := Version()
	return major == 1 && minor <= 17
}
