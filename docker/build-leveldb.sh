#!/usr/bin/env bash
# build-leveldb.sh — THE recipe that builds upstream LevelDB 1.23 for ldbcompat.
#
# The Makefile runs it natively and the Dockerfile runs it in a container;
# both get the same library, built the same way, from the same checksummed
# release tarball (see fetch-leveldb.sh).
#
# Usage:
#   docker/build-leveldb.sh [--target native|aarch64] [--print-env] [--force]
#
#   --target aarch64  cross-build for linux/arm64 with docker/aarch64-toolchain.cmake
#                     (same as LEVELDB_TARGET=aarch64); "native" is the default
#   --print-env       print only `export ...` lines for cgo on stdout, building
#                     first if needed (progress goes to stderr), for use as
#                       eval "$(docker/build-leveldb.sh --print-env)"
#   --force           rebuild even if the output is up to date
#
# Environment:
#   LEVELDB_TARGET    native (default) or aarch64
#   LEVELDB_SNAPPY    auto (default): the target's own libsnappy when its
#                     compiler can link it (Debian: libsnappy-dev), else snappy
#                     1.1.9 built from source (below), else off;
#                     system: the target's libsnappy, or fail; source: always
#                     from source; OFF: without snappy (ON means system)
#   LEVELDB_TARBALL, SNAPPY_TARBALL   passed on to fetch-leveldb.sh
#   CC, CXX           native compilers (default cc, c++)
#
# Output, in <repo>/.cache/leveldb-1.23/<goos>-<goarch>/:
#   src/                  the pristine extracted source tree (cgo/upstream
#                         compiles against internal headers such as util/hash.h)
#   lib/libleveldb.a      static, Release (-O3 -DNDEBUG), position-independent
#   snappy/               when snappy comes from source: snappy 1.1.9 from its
#                         checksummed release tarball (fetch-leveldb.sh
#                         --snappy), static, Release, position-independent,
#                         with -fno-semantic-interposition (without it GCC
#                         cannot honour 1.1.9's always_inline under -fPIC).
#                         This is how the arm64 cross build gets snappy
#                         without Debian's :arm64 multiarch packages.
#   include/leveldb/*.h   the installed public headers
#   build-info            version, tarball sha256, compilers, cmake flags,
#                         snappy (on/off) and where it came from
#   .stamp                what the output was built from; a rebuild happens
#                         only when it changes (tarball sha256s, this script,
#                         the toolchain file, target, snappy, compilers)
# The build runs in a temporary directory beside the output and replaces it
# only on success. Its log is kept in .cache/leveldb-1.23/<goos>-<goarch>.build.log.

set -euo pipefail

readonly version=1.23

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
self="$here/$(basename "$0")"
toolchain_file="$here/aarch64-toolchain.cmake"

say() { printf 'build-leveldb: %s\n' "$*" >&2; }
die() {
	say "error: $*"
	exit 1
}
usage() { sed -n '/^# Usage:/,/^# Output/p' "$self" | sed -e '$d' -e 's/^# \{0,1\}//'; }

target=${LEVELDB_TARGET:-native}
print_env=false
force=false
while [ $# -gt 0 ]; do
	case "$1" in
	--target) [ $# -ge 2 ] || die "--target needs a value (native or aarch64)"; target=$2; shift 2 ;;
	--target=*) target=${1#--target=}; shift ;;
	--print-env) print_env=true; shift ;;
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

command -v cmake >/dev/null 2>&1 || die "cmake not found (Debian: apt-get install cmake)"

# The compilers (or the toolchain file): shared by LevelDB's and snappy's builds.
cmake_args=()
if $cross; then
	cc=aarch64-linux-gnu-gcc
	cxx=aarch64-linux-gnu-g++
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
if [ "$snappy_from" = source ]; then snappy_sha=$(sha256_of "$snappy_tarball"); fi

vdir="$root/.cache/leveldb-$version"
out="$vdir/$plat"
log="$vdir/$plat.build.log"
tarball="$root/.cache/leveldb-$version.tar.gz"
mkdir -p "$vdir"

# The tarball: fetch-leveldb.sh finds it (cache first) and checks its sum.
"$here/fetch-leveldb.sh" >&2
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
key=$(
	printf 'leveldb %s\ntarball %s\nscript %s\ntoolchain %s\ntarget %s\nsnappy %s %s %s\ncc %s\ncxx %s\n' \
		"$version" "$tar_sha" "$(sha256_of "$self")" "$toolchain_sha" "$plat" "$snappy" "$snappy_from" \
		"$snappy_sha" "$cc_version" "$cxx_version"
	printf 'cmake %s\n' "${cmake_args[@]}"
	if [ "$snappy_from" = source ]; then printf 'snappy-cmake %s\n' "${snappy_args[@]}"; fi
)

cppflags="-I$out/src -I$out/src/include"
ldflags="-L$out/lib -lleveldb"
if [ "$snappy_from" = source ]; then ldflags="$ldflags -L$out/snappy/lib"; fi
if [ "$snappy" = ON ]; then ldflags="$ldflags -lsnappy"; fi
ldflags="$ldflags -lstdc++ -lpthread -lm"

up_to_date() {
	[ -f "$out/.stamp" ] && [ -f "$out/lib/libleveldb.a" ] && [ -f "$out/src/util/hash.h" ] &&
		{ [ "$snappy_from" != source ] || [ -f "$out/snappy/lib/libsnappy.a" ]; } &&
		[ "$(cat "$out/.stamp")" = "$key" ]
}

build() {
	local stage start end jobs
	start=$(date +%s)
	jobs=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
	stage=$(mktemp -d "$vdir/.stage-$plat.XXXXXX")
	# Remove the stage if anything below fails.
	work_stage=$stage
	say "building LevelDB $version for $plat (snappy $snappy); log: $log"
	: >"$log"
	chmod 755 "$stage"
	tar -xzf "$tarball" -C "$stage" --no-same-owner
	[ -d "$stage/leveldb-$version" ] || die "$tarball has no leveldb-$version/ directory"
	mv "$stage/leveldb-$version" "$stage/src"
	# LevelDB finds snappy's header through the compiler flags (its cmake
	# check is skipped: HAVE_SNAPPY is given); the static library is named
	# only on cgo's link line.
	local leveldb_extra=()
	if [ "$snappy_from" = source ]; then
		say "building snappy 1.1.9 from source for $plat"
		mkdir "$stage/snappy-src"
		tar -xzf "$snappy_tarball" -C "$stage/snappy-src" --strip-components=1 --no-same-owner
		[ -f "$stage/snappy-src/snappy.cc" ] || die "$snappy_tarball has no snappy.cc"
		if ! {
			cmake -S "$stage/snappy-src" -B "$stage/snappy-build" "-DCMAKE_INSTALL_PREFIX=$stage/snappy" "${snappy_cmake[@]}" &&
				cmake --build "$stage/snappy-build" --target snappy -j "$jobs" &&
				cmake --install "$stage/snappy-build"
		} >>"$log" 2>&1; then
			tail -n 40 "$log" >&2
			die "snappy build failed; full log in $log"
		fi
		rm -rf "$stage/snappy-src" "$stage/snappy-build" "$stage/snappy/lib/cmake"
		[ -f "$stage/snappy/lib/libsnappy.a" ] || die "snappy build produced no libsnappy.a (see $log)"
		leveldb_extra=("-DCMAKE_CXX_FLAGS=-I$stage/snappy/include")
	fi
	if ! {
		cmake -S "$stage/src" -B "$stage/build" "-DCMAKE_INSTALL_PREFIX=$stage" "${cmake_args[@]}" \
			${leveldb_extra[@]+"${leveldb_extra[@]}"} &&
			cmake --build "$stage/build" --target leveldb -j "$jobs" &&
			cmake --install "$stage/build"
	} >>"$log" 2>&1; then
		tail -n 40 "$log" >&2
		die "build failed; full log in $log"
	fi
	rm -rf "$stage/build"
	[ -f "$stage/lib/libleveldb.a" ] || die "build produced no lib/libleveldb.a (see $log)"
	{
		printf 'leveldb_version: %s\n' "$version"
		printf 'tarball: leveldb-%s.tar.gz\n' "$version"
		printf 'tarball_sha256: %s\n' "$tar_sha"
		printf 'target: %s\n' "$plat"
		printf 'cross: %s\n' "$cross"
		printf 'cc: %s\n' "$cc_version"
		printf 'cxx: %s\n' "$cxx_version"
		printf 'cmake: %s\n' "$(cmake --version | sed -n 1p)"
		printf 'cmake_flags:'
		printf ' %s' "${cmake_args[@]}"
		printf '\n'
		printf 'snappy: %s\n' "$(printf '%s' "$snappy" | tr '[:upper:]' '[:lower:]')"
		case $snappy_from in
		system) printf 'snappy_from: the target compiler'"'"'s libsnappy\n' ;;
		source) printf 'snappy_from: snappy-1.1.9.tar.gz sha256 %s, cmake_flags:%s\n' "$snappy_sha" "$(printf ' %s' "${snappy_args[@]}")" ;;
		esac
		printf 'cgo_cppflags: %s\n' "$cppflags"
		printf 'cgo_ldflags: %s\n' "$ldflags"
	} >"$stage/build-info"
	printf '%s\n' "$key" >"$stage/.stamp"
	rm -rf "$out"
	mv "$stage" "$out"
	work_stage=""
	end=$(date +%s)
	say "built $out/lib/libleveldb.a in $((end - start))s"
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

env_lines() {
	echo "export CGO_ENABLED=1"
	echo "export CGO_CPPFLAGS=$(shquote "$cppflags")"
	echo "export CGO_CFLAGS='-O2 -g'"
	echo "export CGO_CXXFLAGS='-O2 -g'"
	echo "export CGO_LDFLAGS=$(shquote "$ldflags")"
	if $cross; then
		echo "export GOOS=linux GOARCH=arm64 CC=$cc CXX=$cxx"
	fi
}

if $print_env; then
	env_lines
	exit 0
fi

say "LevelDB $version for $plat is $status: $out"
echo "# Build and test cgo/upstream against it with:"
env_lines
if $cross; then
	echo "# then e.g.: go test -tags leveldb -exec 'qemu-aarch64 -L /usr/aarch64-linux-gnu' ./cgo/upstream/"
else
	echo "# then e.g.: go test -tags leveldb ./cgo/upstream/"
fi
if $cross; then
	echo "# or in one step: eval \"\$(docker/build-leveldb.sh --target aarch64 --print-env)\""
else
	echo "# or in one step: eval \"\$(docker/build-leveldb.sh --print-env)\""
fi
