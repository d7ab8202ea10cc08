#!/usr/bin/env bash
# build-leveldb.sh — THE recipe that builds upstream LevelDB for ldbcompat:
# 1.23 by default, or any release with a filter policy (v1.4 to 1.23) or the
# pinned commit of main, named by LEVELDB_VERSION.
#
# The Makefile runs it natively and the Dockerfile runs it in a container;
# both get the same library, built the same way, from the same source tree,
# checked against its pinned content digest (fetch-leveldb.sh,
# leveldb-versions.tsv).
#
# Usage:
#   docker/build-leveldb.sh [--target native|aarch64] [--print-env] [--print-out] [--force]
#
#   --target aarch64  cross-build for linux/arm64 (same as LEVELDB_TARGET=aarch64);
#                     "native" is the default
#   --print-env       print only `export ...` lines for cgo on stdout, building
#                     first if needed (progress goes to stderr), for use as
#                       eval "$(docker/build-leveldb.sh --print-env)"
#   --print-out       print the output directory and exit (builds nothing)
#   --force           rebuild even if the output is up to date
#
# Environment:
#   LEVELDB_VERSION   v1.4 ... v1.20, 1.21, 1.22, 1.23 (default) or main; the
#                     names of docker/leveldb-versions.tsv (1.17, main-78a352f)
#                     work too
#   LEVELDB_TARGET    native (default) or aarch64
#   LEVELDB_SNAPPY    auto (default): the target's own libsnappy when its
#                     compiler can link it (Debian: libsnappy-dev), else snappy
#                     1.1.9 built from source (below), else off;
#                     system: the target's libsnappy, or fail; source: always
#                     from source; OFF: without snappy (ON means system)
#   LEVELDB_TARBALL, LEVELDB_SOURCES, SNAPPY_TARBALL   passed on to fetch-leveldb.sh
#   CC, CXX           native compilers (default cc, c++)
#
# Recipes (the build says which one it used, and build-info records it):
#   make         v1.4 to v1.20: the release's own Makefile and
#                build_detect_platform, target libleveldb.a (out-static/
#                libleveldb.a from v1.19), OPT='-O2 -DNDEBUG -fPIC' (the
#                Makefile's release flags, position-independent like the
#                cmake builds). build_detect_platform runs first, with CC and
#                CXX set (the cross compilers for aarch64) and snappy's
#                include directory in CFLAGS/CXXFLAGS when snappy comes from
#                source; the PLATFORM_CCFLAGS/PLATFORM_CXXFLAGS it detects
#                are passed to make explicitly (without -DSNAPPY when
#                LEVELDB_SNAPPY=OFF) and recorded. For linux/arm64, v1.4 to
#                v1.17 need <cstdatomic> (their port/atomic_pointer.h has no
#                aarch64 barrier): GCC 4.4's name for <atomic>, which GCC 12
#                lacks; a one-line header that includes <atomic> is put on
#                the include path (compat/cstdatomic/), and
#                build_detect_platform then selects std::atomic.
#   cmake        1.21 to 1.23: CMake, Release (-O3 -DNDEBUG), static,
#                position-independent, crc32c and tcmalloc off
#   cmake-cxx17  main: the same with -DCMAKE_CXX_STANDARD=17 (its
#                util/no_destructor.h needs C++17; google/leveldb#1247)
# Releases whose C API lacks leveldb_free (v1.4, v1.5) or
# leveldb_major_version/leveldb_minor_version (v1.4 to v1.6), which levigo
# calls, get them from docker/leveldb-c-compat/c_compat.cc, compiled into
# lib/libleveldb_c_compat.a and linked only for them, with
# docker/leveldb-c-compat/c.h installed as compat/include/leveldb/c.h ahead of
# the release's own (the build says so, and build-info records it).
#
# Output, in <repo>/.cache/leveldb-<version>/<goos>-<goarch>/ (version as in
# leveldb-versions.tsv: 1.17, 1.23, main-78a352f):
#   src/                  the pristine source tree, the very tree whose content
#                         digest fetch-leveldb.sh checked (cgo/upstream
#                         compiles against internal headers such as util/hash.h)
#   lib/libleveldb.a      static, release mode (NDEBUG), position-independent
#   lib/libleveldb_c_compat.a, compat/include/leveldb/c.h   see above (v1.4-v1.6)
#   compat/cstdatomic/    see above (v1.4-v1.17 for linux/arm64)
#   snappy/               when snappy comes from source: snappy 1.1.9 from its
#                         checksummed release tarball (fetch-leveldb.sh
#                         --snappy), static, Release, position-independent,
#                         with -fno-semantic-interposition (without it GCC
#                         cannot honour 1.1.9's always_inline under -fPIC).
#                         This is how the arm64 cross build gets snappy
#                         without Debian's :arm64 multiarch packages.
#   include/leveldb/*.h   the public headers
#   gen/port/port_config.h  cmake recipes: the generated header the internal
#                         headers include (with -DLEVELDB_PLATFORM_POSIX=1,
#                         the leveldb target's definition, in CGO_CXXFLAGS)
#   build-info            version, tag, commit, content digest, tarball sha256,
#                         recipe, compilers, flags, snappy, compat additions,
#                         the cgo flags, build time
#   .stamp                what the output was built from; a rebuild happens
#                         only when it changes (digest, tarball sha256s, this
#                         script and the files it uses, target, snappy,
#                         compilers, flags)
# The build runs in a temporary directory beside the output and replaces it
# only on success. Its log is kept in .cache/leveldb-<version>/<goos>-<goarch>.build.log.
#
# --print-env exports CGO_CPPFLAGS (the include path), CGO_CXXFLAGS (the -D
# flags the library was compiled with, which its internal headers need, and
# always -DLDBCOMPAT_LEVELDB_VERSION=<version> and
# -DLDBCOMPAT_LEVELDB_BUILD=<build id>, which cgo/upstream reports and which
# tie Go's build cache to this build) and CGO_LDFLAGS.

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
self="$here/$(basename "$0")"
toolchain_file="$here/aarch64-toolchain.cmake"
c_compat_src="$here/leveldb-c-compat/c_compat.cc"
c_compat_hdr="$here/leveldb-c-compat/c.h"

say() { printf 'build-leveldb: %s\n' "$*" >&2; }
die() {
	say "error: $*"
	exit 1
}
usage() { sed -n '/^# Usage:/,/^# Environment/p' "$self" | sed -e '$d' -e 's/^# \{0,1\}//'; }

target=${LEVELDB_TARGET:-native}
print_env=false
print_out=false
force=false
while [ $# -gt 0 ]; do
	case "$1" in
	--target) [ $# -ge 2 ] || die "--target needs a value (native or aarch64)"; target=$2; shift 2 ;;
	--target=*) target=${1#--target=}; shift ;;
	--print-env) print_env=true; shift ;;
	--print-out) print_out=true; shift ;;
	--force) force=true; shift ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; die "unknown argument: $1" ;;
	esac
done

sha256_of() {
	if command -v sha256sum >/dev/null 2>&1; then
		sha256sum "$1" | cut -d' ' -f1
	else
		shasum -a 256 "$1" | cut -d' ' -f1
	fi
}
sha256_str() {
	if command -v sha256sum >/dev/null 2>&1; then
		printf '%s' "$1" | sha256sum | cut -d' ' -f1
	else
		printf '%s' "$1" | shasum -a 256 | cut -d' ' -f1
	fi
}

# Quote a string for the shell, for `eval "$(... --print-env)"`.
shquote() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }

host_goarch() {
	case "$(uname -m)" in
	x86_64 | amd64) echo amd64 ;;
	aarch64 | arm64) echo arm64 ;;
	i?86) echo 386 ;;
	armv*) echo arm ;;
	ppc64le) echo ppc64le ;;
	s390x) echo s390x ;;
	riscv64) echo riscv64 ;;
	*) uname -m ;;
	esac
}
goos=$(uname -s | tr '[:upper:]' '[:lower:]')
host_arch=$(host_goarch)

cross=false
case "$target" in
native | "") goarch=$host_arch ;;
aarch64 | arm64)
	goarch=arm64
	if [ "$goos" != linux ]; then die "--target aarch64 is supported on Linux hosts only"; fi
	if [ "$host_arch" != arm64 ]; then cross=true; fi
	;;
*) die "unknown target '$target' (want native or aarch64)" ;;
esac
plat="$goos-$goarch"

# The version: its line of leveldb-versions.tsv.
# fetch-leveldb.sh puts tarballs in the repository's cache, where this
# script looks for them, whatever LEVELDB_CACHE says.
export LEVELDB_CACHE="$root/.cache"
line=$("$here/fetch-leveldb.sh" --resolve) || exit 1
IFS=$'\t' read -r version tag commit commit_date want_digest <<<"$line"
case "$version" in
main-*) recipe=cmake-cxx17 ;;
1.*)
	minor=${version#1.}
	if [ "$minor" -le 20 ]; then recipe="make"; else recipe="cmake"; fi
	;;
*) die "no recipe for LevelDB version '$version' (docker/leveldb-versions.tsv)" ;;
esac

vdir="$root/.cache/leveldb-$version"
out="$vdir/$plat"
log="$vdir/$plat.build.log"
tarball="$root/.cache/leveldb-$version.tar.gz"

if $print_out; then
	printf '%s\n' "$out"
	exit 0
fi

case $recipe in
make) command -v make >/dev/null 2>&1 || die "make not found (Debian: apt-get install make)" ;;
*) command -v cmake >/dev/null 2>&1 || die "cmake not found (Debian: apt-get install cmake)" ;;
esac

# The compilers (or the toolchain file): shared by LevelDB's and snappy's builds.
cmake_args=()
if $cross; then
	cc=aarch64-linux-gnu-gcc
	cxx=aarch64-linux-gnu-g++
	ar=aarch64-linux-gnu-ar
	if ! command -v "$cc" >/dev/null 2>&1 || ! command -v "$cxx" >/dev/null 2>&1; then
		die "cross compilers $cc / $cxx not found. On Debian/Ubuntu install them with:
  apt-get install gcc-aarch64-linux-gnu g++-aarch64-linux-gnu
(and qemu-user to run the arm64 tests: apt-get install qemu-user)"
	fi
	[ -f "$toolchain_file" ] || die "missing $toolchain_file"
	cmake_args+=("-DCMAKE_TOOLCHAIN_FILE=$toolchain_file")
	toolchain_sha=$(sha256_of "$toolchain_file")
else
	cc=${CC:-cc}
	cxx=${CXX:-c++}
	ar=${AR:-ar}
	command -v "$cc" >/dev/null 2>&1 || die "C compiler '$cc' not found (Debian: apt-get install build-essential)"
	command -v "$cxx" >/dev/null 2>&1 || die "C++ compiler '$cxx' not found (Debian: apt-get install build-essential)"
	cmake_args+=("-DCMAKE_C_COMPILER=$cc" "-DCMAKE_CXX_COMPILER=$cxx")
	toolchain_sha=none
fi
cc_version=$("$cc" --version 2>/dev/null | sed -n 1p)
cxx_version=$("$cxx" --version 2>/dev/null | sed -n 1p)

work=""
work_stage=""
# shellcheck disable=SC2317 # called from the EXIT trap
cleanup() {
	if [ -n "$work_stage" ]; then rm -rf "$work_stage"; fi
	if [ -n "$work" ]; then rm -rf "$work"; fi
}
trap cleanup EXIT
work=$(mktemp -d "${TMPDIR:-/tmp}/build-leveldb.XXXXXX")

# Snappy: the target's own library when its compiler can compile and link
# against it; otherwise (auto) built from its release tarball.
snappy_usable() {
	printf '#include <snappy.h>\nint main() { return snappy::MaxCompressedLength(16) > 0 ? 0 : 1; }\n' >"$work/snappy.cc"
	"$cxx" "$work/snappy.cc" -o "$work/snappy" -lsnappy >/dev/null 2>&1
}
snappy_tarball="$root/.cache/snappy-1.1.9.tar.gz"
# fetch_snappy: put the snappy tarball in the cache; fail quietly (its
# messages go to stderr) so that auto can fall back to no snappy.
fetch_snappy() { "$here/fetch-leveldb.sh" --snappy >&2; }
snappy_from=none
case "$(printf '%s' "${LEVELDB_SNAPPY:-auto}" | tr '[:lower:]' '[:upper:]')" in
OFF | 0 | NO | FALSE) snappy=OFF ;;
ON | 1 | YES | TRUE | SYSTEM)
	snappy_usable || die "LEVELDB_SNAPPY=${LEVELDB_SNAPPY}: $cxx cannot link -lsnappy (Debian: apt-get install libsnappy-dev; or LEVELDB_SNAPPY=source)"
	snappy=ON snappy_from=system
	;;
SOURCE)
	fetch_snappy || die "LEVELDB_SNAPPY=source: could not fetch the snappy 1.1.9 tarball (see above)"
	snappy=ON snappy_from=source
	;;
AUTO | "")
	if snappy_usable; then
		snappy=ON snappy_from=system
	elif fetch_snappy; then
		say "$cxx has no libsnappy: using snappy 1.1.9 built from source"
		snappy=ON snappy_from=source
	else
		say "warning: no libsnappy for $cxx and no snappy tarball: building without snappy (snappy tests will skip)"
		snappy=OFF
	fi
	;;
*) die "LEVELDB_SNAPPY must be auto, system, source or OFF, not '$LEVELDB_SNAPPY'" ;;
esac
snappy_sha=none
if [ "$snappy_from" = source ]; then
	snappy_sha=$(sha256_of "$snappy_tarball")
	command -v cmake >/dev/null 2>&1 || die "cmake not found, needed to build snappy from source (Debian: apt-get install cmake)"
fi
mkdir -p "$vdir"

# The tarball: fetch-leveldb.sh finds it (cache first) and checks the
# content digest of the tree in it. The build extracts it again, checked
# again, with fetch-leveldb.sh --extract.
"$here/fetch-leveldb.sh" >&2
[ -f "$tarball" ] || die "fetch-leveldb.sh left no $tarball"
tar_sha=$(sha256_of "$tarball")

# What snappy's source build adds to the compilers: nothing but its own
# flags, all part of the stamp.
snappy_args=(
	-DCMAKE_BUILD_TYPE=Release
	-DBUILD_SHARED_LIBS=OFF
	-DCMAKE_POSITION_INDEPENDENT_CODE=ON
	-DCMAKE_CXX_FLAGS=-fno-semantic-interposition
	-DSNAPPY_BUILD_TESTS=OFF
	-DSNAPPY_BUILD_BENCHMARKS=OFF
	-DSNAPPY_INSTALL=ON
	-DCMAKE_INSTALL_LIBDIR=lib
	-DCMAKE_INSTALL_INCLUDEDIR=include
)
snappy_cmake=("${cmake_args[@]}" "${snappy_args[@]}")

# Everything that decides what the build produces. crc32c and tcmalloc are
# pinned off so that whatever else is installed on the machine cannot change
# the library or the link line.
cmake_args+=(
	-DCMAKE_BUILD_TYPE=Release
	-DBUILD_SHARED_LIBS=OFF
	-DCMAKE_POSITION_INDEPENDENT_CODE=ON
	-DLEVELDB_BUILD_TESTS=OFF
	-DLEVELDB_BUILD_BENCHMARKS=OFF
	-DLEVELDB_INSTALL=ON
	"-DHAVE_SNAPPY=$snappy"
	-DHAVE_CRC32C=OFF
	-DHAVE_TCMALLOC=OFF
	-DCMAKE_INSTALL_LIBDIR=lib
	-DCMAKE_INSTALL_INCLUDEDIR=include
)
if [ "$recipe" = cmake-cxx17 ]; then cmake_args+=(-DCMAKE_CXX_STANDARD=17); fi

# The make recipe's fixed flags (what it detects is recorded in build-info).
make_opt=(-O2 -DNDEBUG -fPIC)
needs_cstdatomic=false
case "$recipe:$goarch:$version" in
# v1.4 to v1.17 (their port/atomic_pointer.h includes <cstdatomic> and has no
# aarch64 memory barrier); checked again on the tree below.
make:arm64:1.[4-9] | make:arm64:1.1[0-7]) needs_cstdatomic=true ;;
esac
compat_sha=none
if [ "$recipe" = make ]; then
	compat_sha=$(sha256_str "$(sha256_of "$c_compat_src") $(sha256_of "$c_compat_hdr")")
fi

key=$(
	printf 'leveldb %s %s %s\ncontent %s\ntarball %s\nrecipe %s\nscript %s\ncompat %s\ntoolchain %s\ntarget %s\nsnappy %s %s %s\ncc %s\ncxx %s\n' \
		"$version" "$tag" "$commit" "$want_digest" "$tar_sha" "$recipe" "$(sha256_of "$self")" "$compat_sha" \
		"$toolchain_sha" "$plat" "$snappy" "$snappy_from" "$snappy_sha" "$cc_version" "$cxx_version"
	if [ "$recipe" = make ]; then
		printf 'make OPT=%s AR=%s cstdatomic=%s\n' "${make_opt[*]}" "$ar" "$needs_cstdatomic"
	else
		printf 'cmake %s\n' "${cmake_args[@]}"
	fi
	if [ "$snappy_from" = source ]; then printf 'snappy-cmake %s\n' "${snappy_args[@]}"; fi
)
build_id=$(sha256_str "$key" | cut -c1-16)

up_to_date() {
	[ -f "$out/.stamp" ] && [ -f "$out/build-info" ] && [ -f "$out/lib/libleveldb.a" ] && [ -f "$out/src/util/hash.h" ] &&
		{ [ "$snappy_from" != source ] || [ -f "$out/snappy/lib/libsnappy.a" ]; } &&
		[ "$(cat "$out/.stamp")" = "$key" ]
}

# run_logged CMD...: run CMD with its output in the log; on failure show the
# log's tail and stop.
run_logged() {
	if ! "$@" >>"$log" 2>&1; then
		tail -n 40 "$log" >&2
		die "failed: $*; full log in $log"
	fi
}

# make_var FILE NAME: the value of NAME=... in build_config.mk.
make_var() { sed -n "s/^$2=//p" "$1" | tail -n 1; }

build() {
	local stage start end jobs
	start=$(date +%s)
	jobs=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
	stage=$(mktemp -d "$vdir/.stage-$plat.XXXXXX")
	# Remove the stage if anything below fails.
	work_stage=$stage
	say "building LevelDB $version ($tag) for $plat with recipe $recipe (snappy $snappy); log: $log"
	: >"$log"
	chmod 755 "$stage"
	# The checked tree itself: fetch-leveldb.sh extracts it and checks its
	# content digest again. Its line, the one it printed when it fetched
	# the tarball above but for "from the cache", goes to the log.
	"$here/fetch-leveldb.sh" --extract "$stage/src" >>"$log"
	[ -f "$stage/src/util/hash.h" ] || die "the LevelDB $version tree has no util/hash.h"

	# Snappy from source: LevelDB finds its header through the compiler
	# flags; the static library is named only on cgo's link line.
	local snappy_inc=""
	if [ "$snappy_from" = source ]; then
		say "building snappy 1.1.9 from source for $plat"
		mkdir "$stage/snappy-src"
		tar -xzf "$snappy_tarball" -C "$stage/snappy-src" --strip-components=1 --no-same-owner
		[ -f "$stage/snappy-src/snappy.cc" ] || die "$snappy_tarball has no snappy.cc"
		run_logged cmake -S "$stage/snappy-src" -B "$stage/snappy-build" "-DCMAKE_INSTALL_PREFIX=$stage/snappy" "${snappy_cmake[@]}"
		run_logged cmake --build "$stage/snappy-build" --target snappy -j "$jobs"
		run_logged cmake --install "$stage/snappy-build"
		rm -rf "$stage/snappy-src" "$stage/snappy-build" "$stage/snappy/lib/cmake"
		[ -f "$stage/snappy/lib/libsnappy.a" ] || die "snappy build produced no libsnappy.a (see $log)"
		snappy_inc="-I$stage/snappy/include"
	fi

	mkdir -p "$stage/lib" "$stage/include"
	local flags_line="" detected="" c_compat="none" cstdatomic="none" make_target=""
	case $recipe in
	make)
		# Build in a copy: the Makefile writes build_config.mk and objects
		# into its tree, and src/ stays pristine.
		cp -a "$stage/src" "$stage/build"
		local extra=""
		if [ -n "$snappy_inc" ]; then extra="$snappy_inc"; fi
		if $needs_cstdatomic; then
			grep -q '<cstdatomic>' "$stage/src/port/atomic_pointer.h" ||
				die "LevelDB $version's port/atomic_pointer.h does not include <cstdatomic>: the recipe's version rule is wrong"
			mkdir -p "$stage/compat/cstdatomic"
			{
				echo "// ldbcompat (docker/build-leveldb.sh): <cstdatomic> was GCC 4.4's name for"
				echo "// <atomic>; LevelDB $version's port/atomic_pointer.h uses it on aarch64."
				echo "#include <atomic>"
			} >"$stage/compat/cstdatomic/cstdatomic"
			extra="${extra:+$extra }-I$stage/compat/cstdatomic"
			cstdatomic="compat/cstdatomic/cstdatomic (#include <atomic>) on the include path"
		fi
		# build_detect_platform as the Makefile runs it (v1.4 takes one
		# argument and ignores the second). v1.4 and v1.5 compile their
		# probes with CFLAGS, later ones with CXXFLAGS.
		local make_env=(env "CC=$cc" "CXX=$cxx" "CFLAGS=$extra" "CXXFLAGS=$extra" TARGET_OS=Linux)
		(cd "$stage/build" && run_logged "${make_env[@]}" ./build_detect_platform build_config.mk ./)
		local pcc pcxx
		pcc=$(make_var "$stage/build/build_config.mk" PLATFORM_CCFLAGS)
		pcxx=$(make_var "$stage/build/build_config.mk" PLATFORM_CXXFLAGS)
		detected="PLATFORM_CCFLAGS=$pcc; PLATFORM_CXXFLAGS=$pcxx"
		case " $pcxx " in
		*" -DSNAPPY "*)
			if [ "$snappy" = OFF ]; then
				pcc=$(printf '%s' " $pcc " | sed 's/ -DSNAPPY / /g')
				pcxx=$(printf '%s' " $pcxx " | sed 's/ -DSNAPPY / /g')
			fi
			;;
		*) [ "$snappy" = OFF ] || die "build_detect_platform did not find snappy's header for $cxx (PLATFORM_CXXFLAGS=$pcxx); see $log" ;;
		esac
		if $needs_cstdatomic; then
			case " $pcxx " in
			*" -DLEVELDB_CSTDATOMIC_PRESENT "*) ;;
			*) die "build_detect_platform did not take compat/cstdatomic (PLATFORM_CXXFLAGS=$pcxx); see $log" ;;
			esac
		fi
		pcc=$(printf '%s' "$pcc" | tr -s ' ' | sed 's/^ //; s/ $//')
		pcxx=$(printf '%s' "$pcxx" | tr -s ' ' | sed 's/^ //; s/ $//')
		if grep -q '^STATIC_OUTDIR=out-static' "$stage/build/Makefile"; then
			make_target="out-static/libleveldb.a"
		else
			make_target=libleveldb.a
		fi
		local make_args=(-j "$jobs" "CC=$cc" "CXX=$cxx" "AR=$ar" "OPT=${make_opt[*]}"
			"PLATFORM_CCFLAGS=$pcc" "PLATFORM_CXXFLAGS=$pcxx" "$make_target")
		flags_line="make$(printf ' %q' "${make_args[@]}")${extra:+ (environment: CFLAGS=CXXFLAGS=$extra)}"
		(cd "$stage/build" && run_logged "${make_env[@]}" make "${make_args[@]}")
		flags_line=${flags_line//$stage/$out}
		cp "$stage/build/$make_target" "$stage/lib/libleveldb.a"
		cp -R "$stage/src/include/leveldb" "$stage/include/"
		rm -rf "$stage/build"
		printf '%s\n' "$pcxx" >"$stage/.platform-cxxflags"

		# The C API functions levigo calls that this release lacks.
		local defs=() missing=()
		if ! grep -q 'leveldb_free' "$stage/src/include/leveldb/c.h"; then
			defs+=(-DLDBCOMPAT_DEFINE_FREE) missing+=(leveldb_free)
		fi
		if ! grep -q 'leveldb_major_version' "$stage/src/include/leveldb/c.h"; then
			defs+=(-DLDBCOMPAT_DEFINE_VERSION) missing+=(leveldb_major_version leveldb_minor_version)
		fi
		if [ ${#missing[@]} -gt 0 ]; then
			mkdir -p "$stage/compat/include/leveldb"
			cp "$c_compat_hdr" "$stage/compat/include/leveldb/c.h"
			run_logged "$cxx" -c "${make_opt[@]}" "${defs[@]}" "-I$stage/src/include" "$c_compat_src" -o "$stage/lib/leveldb-c-compat.o"
			rm -f "$stage/lib/libleveldb_c_compat.a"
			run_logged "$ar" rcs "$stage/lib/libleveldb_c_compat.a" "$stage/lib/leveldb-c-compat.o"
			rm -f "$stage/lib/leveldb-c-compat.o"
			c_compat="${missing[*]} from docker/leveldb-c-compat/c_compat.cc in lib/libleveldb_c_compat.a ($cxx -c ${make_opt[*]} ${defs[*]}), declared by compat/include/leveldb/c.h"
			say "LevelDB $version's C API lacks ${missing[*]} (levigo calls them): provided by lib/libleveldb_c_compat.a"
		fi
		;;
	cmake | cmake-cxx17)
		local leveldb_extra=()
		if [ -n "$snappy_inc" ]; then leveldb_extra=("-DCMAKE_CXX_FLAGS=$snappy_inc"); fi
		flags_line="cmake ${cmake_args[*]}${leveldb_extra[*]:+ ${leveldb_extra[*]//$stage/$out}}"
		run_logged cmake -S "$stage/src" -B "$stage/build" "-DCMAKE_INSTALL_PREFIX=$stage/install" "${cmake_args[@]}" \
			${leveldb_extra[@]+"${leveldb_extra[@]}"}
		run_logged cmake --build "$stage/build" --target leveldb -j "$jobs"
		run_logged cmake --install "$stage/build"
		[ -f "$stage/install/lib/libleveldb.a" ] || die "build produced no lib/libleveldb.a (see $log)"
		mv "$stage/install/lib/libleveldb.a" "$stage/lib/"
		cp -R "$stage/install/include/leveldb" "$stage/include/"
		# What the internal headers need to see the library's configuration:
		# the generated port/port_config.h (1.21 and 1.22's util/coding.h
		# reach port::kLittleEndian through port/port.h) and the -D flags
		# the leveldb target was compiled with, but LEVELDB_COMPILE_LIBRARY
		# (which says "compiling the library", for shared builds' exports).
		if [ -f "$stage/build/include/port/port_config.h" ]; then
			mkdir -p "$stage/gen/port"
			cp "$stage/build/include/port/port_config.h" "$stage/gen/port/"
		fi
		local flags_make="$stage/build/CMakeFiles/leveldb.dir/flags.make" defines="" f cxx_defines=()
		[ -f "$flags_make" ] || die "no $flags_make to read the library's compile definitions from"
		read -r -a cxx_defines < <(sed -n 's/^CXX_DEFINES = //p' "$flags_make")
		for f in ${cxx_defines[@]+"${cxx_defines[@]}"}; do
			case $f in -DLEVELDB_COMPILE_LIBRARY*) ;; -D*) defines="${defines:+$defines }$f" ;; esac
		done
		detected="CXX_DEFINES (CMakeFiles/leveldb.dir/flags.make, but LEVELDB_COMPILE_LIBRARY): $defines"
		rm -rf "$stage/build" "$stage/install"
		printf '%s\n' "$defines" >"$stage/.platform-cxxflags"
		;;
	esac
	[ -f "$stage/lib/libleveldb.a" ] || die "build produced no lib/libleveldb.a (see $log)"
	end=$(date +%s)

	# What the version's headers say of themselves (main says 1.23).
	local hmaj hmin
	hmaj=$(sed -n 's/.*kMajorVersion *= *\([0-9]*\);.*/\1/p' "$stage/src/include/leveldb/db.h" | sed -n 1p)
	hmin=$(sed -n 's/.*kMinorVersion *= *\([0-9]*\);.*/\1/p' "$stage/src/include/leveldb/db.h" | sed -n 1p)
	{
		printf 'leveldb_version: %s\n' "$version"
		printf 'leveldb_tag: %s\n' "$tag"
		printf 'leveldb_commit: %s\n' "$commit"
		printf 'leveldb_commit_date: %s\n' "$commit_date"
		printf 'leveldb_header_version: %s.%s\n' "$hmaj" "$hmin"
		printf 'content_digest: %s\n' "$want_digest"
		printf 'tarball: leveldb-%s.tar.gz\n' "$version"
		printf 'tarball_sha256: %s\n' "$tar_sha"
		printf 'recipe: %s\n' "$recipe"
		printf 'target: %s\n' "$plat"
		printf 'cross: %s\n' "$cross"
		printf 'cc: %s\n' "$cc_version"
		printf 'cxx: %s\n' "$cxx_version"
		if [ "$recipe" = make ]; then
			printf 'make: %s\n' "$(make --version | sed -n 1p)"
			printf 'make_target: %s\n' "$make_target"
			printf 'make_detected: %s\n' "$detected"
			printf 'make_flags: %s\n' "$flags_line"
		else
			printf 'cmake: %s\n' "$(cmake --version | sed -n 1p)"
			printf 'cmake_flags: %s\n' "${flags_line#cmake }"
			printf 'cmake_detected: %s\n' "$detected"
		fi
		printf 'snappy: %s\n' "$(printf '%s' "$snappy" | tr '[:upper:]' '[:lower:]')"
		case $snappy_from in
		system) printf 'snappy_from: the target compiler'"'"'s libsnappy\n' ;;
		source) printf 'snappy_from: snappy-1.1.9.tar.gz sha256 %s, cmake_flags:%s\n' "$snappy_sha" "$(printf ' %s' "${snappy_args[@]}")" ;;
		esac
		printf 'c_api_compat: %s\n' "$c_compat"
		printf 'cstdatomic_compat: %s\n' "$cstdatomic"
		printf 'build_id: %s\n' "$build_id"
		printf 'build_seconds: %s\n' "$((end - start))"
	} >"$stage/build-info"
	printf '%s\n' "$key" >"$stage/.stamp"
	rm -rf "$out"
	# Paths inside the stage become paths inside $out.
	mv "$stage" "$out"
	work_stage=""
	say "built LevelDB $version with recipe $recipe in $((end - start))s: $out/lib/libleveldb.a"
}

status="up to date"
if $force || ! up_to_date; then
	# Serialise concurrent builds of the same platform where flock exists.
	if command -v flock >/dev/null 2>&1; then
		exec 9>"$vdir/.$plat.lock"
		flock 9
	fi
	if $force || ! up_to_date; then
		build
		status="built"
	fi
fi

# The cgo flags, from what the output holds.
cppflags=""
if [ -f "$out/compat/include/leveldb/c.h" ]; then cppflags="-I$out/compat/include "; fi
if [ -d "$out/compat/cstdatomic" ]; then cppflags="$cppflags-I$out/compat/cstdatomic "; fi
cppflags="$cppflags-I$out/src -I$out/src/include"
if [ -d "$out/gen" ]; then cppflags="$cppflags -I$out/gen"; fi
if [ "$snappy_from" = source ]; then cppflags="$cppflags -I$out/snappy/include"; fi
cxxflags="-O2 -g"
platform_cxxflags=()
if [ -f "$out/.platform-cxxflags" ]; then read -r -a platform_cxxflags <"$out/.platform-cxxflags" || true; fi
for f in ${platform_cxxflags[@]+"${platform_cxxflags[@]}"}; do
	case $f in -D*) cxxflags="$cxxflags $f" ;; esac
done
cxxflags="$cxxflags -DLDBCOMPAT_LEVELDB_VERSION=$version -DLDBCOMPAT_LEVELDB_BUILD=$build_id"
ldflags="-L$out/lib -lleveldb"
if [ -f "$out/lib/libleveldb_c_compat.a" ]; then ldflags="$ldflags -lleveldb_c_compat"; fi
if [ "$snappy_from" = source ]; then ldflags="$ldflags -L$out/snappy/lib"; fi
if [ "$snappy" = ON ]; then ldflags="$ldflags -lsnappy"; fi
ldflags="$ldflags -lstdc++ -lpthread -lm"

if [ "$status" = built ]; then
	{
		printf 'cgo_cppflags: %s\n' "$cppflags"
		printf 'cgo_cxxflags: %s\n' "$cxxflags"
		printf 'cgo_ldflags: %s\n' "$ldflags"
	} >>"$out/build-info"
fi

env_lines() {
	echo "export CGO_ENABLED=1"
	echo "export CGO_CPPFLAGS=$(shquote "$cppflags")"
	echo "export CGO_CFLAGS='-O2 -g'"
	echo "export CGO_CXXFLAGS=$(shquote "$cxxflags")"
	echo "export CGO_LDFLAGS=$(shquote "$ldflags")"
	if $cross; then
		echo "export GOOS=linux GOARCH=arm64 CC=$cc CXX=$cxx"
	fi
}

summary="LevelDB $version ($tag, content digest ${want_digest:0:12}...) for $plat is $status, recipe $recipe: $out/lib/libleveldb.a"
if [ -f "$out/lib/libleveldb_c_compat.a" ]; then
	summary="$summary, with lib/libleveldb_c_compat.a for the C API functions it lacks"
fi
say "$summary"

if $print_env; then
	env_lines
	exit 0
fi

echo "# Build and test cgo/upstream against it with:"
env_lines
if $cross; then
	echo "# then e.g.: go test -tags leveldb -exec 'qemu-aarch64 -L /usr/aarch64-linux-gnu' ./cgo/upstream/"
else
	echo "# then e.g.: go test -tags leveldb ./cgo/upstream/"
fi
v=""
if [ "$version" != 1.23 ]; then v="LEVELDB_VERSION=$tag "; fi
if $cross; then
	echo "# or in one step: eval \"\$(${v}docker/build-leveldb.sh --target aarch64 --print-env)\""
else
	echo "# or in one step: eval \"\$(${v}docker/build-leveldb.sh --print-env)\""
fi
