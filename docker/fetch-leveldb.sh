#!/usr/bin/env bash
# fetch-leveldb.sh — put the LevelDB 1.23 release tarball in <repo>/.cache/
# and check its SHA-256; with --snappy, the snappy 1.1.9 one instead (the
# cross builds compile it from source when the target has no libsnappy).
#
# Usage: docker/fetch-leveldb.sh [--snappy]      (from any directory)
#
# Sources, tried in this order; the first one that yields a file wins:
#   1. $LEVELDB_TARBALL   a path to a local copy of the tarball
#      ($SNAPPY_TARBALL with --snappy)
#   2. the cache          <repo>/.cache/leveldb-1.23.tar.gz
#                         (<repo>/.cache/snappy-1.1.9.tar.gz)
#   3. upstream           GitHub's archive of the release tag (short time-out)
#   4. Debian             the source package leveldb 1.23-4 (snappy 1.1.9-3),
#                         whose <name>_<version>.orig.tar.gz is the very same file
#
# Every file is checked against the SHA-256 below. A file with another sum is
# a hard error (exit 1), never skipped: it names the source and both sums.
# Downloads go to a temporary directory inside .cache/ and are moved into
# place only after they check out, so the cache never holds a partial file.
#
# Environment:
#   LEVELDB_TARBALL       local LevelDB tarball to use (copied into the cache)
#   SNAPPY_TARBALL        local snappy tarball to use, with --snappy
#   LEVELDB_FETCH_TIMEOUT seconds allowed for the upstream download (60)
#
# Prints one line on stdout saying which source was used; diagnostics go to
# stderr.

set -euo pipefail

say() { printf 'fetch-leveldb: %s\n' "$*" >&2; }
die() {
	say "error: $*"
	exit 1
}

case "${1:-}" in
"")
	readonly pkg=leveldb version=1.23 debian_version=1.23-4
	readonly want_sha=9a37f8a6174f09bd622bc723b55881dc541cd50747cbd08831c2a82d620f6d76
	local_tarball=${LEVELDB_TARBALL:-} local_var=LEVELDB_TARBALL
	;;
--snappy)
	readonly pkg=snappy version=1.1.9 debian_version=1.1.9-3
	readonly want_sha=75c1fbb3d618dd3a0483bff0e26d0a92b495bbe5059c8b4f1c962b478b6e06e7
	local_tarball=${SNAPPY_TARBALL:-} local_var=SNAPPY_TARBALL
	;;
*) die "unknown argument: $1 (usage: $0 [--snappy])" ;;
esac
readonly upstream_url="https://github.com/google/${pkg}/archive/refs/tags/${version}.tar.gz"

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
cache="$root/.cache"
name="${pkg}-${version}.tar.gz"
dest="$cache/$name"

sha256_of() {
	if command -v sha256sum >/dev/null 2>&1; then
		sha256sum "$1" | cut -d' ' -f1
	elif command -v shasum >/dev/null 2>&1; then
		shasum -a 256 "$1" | cut -d' ' -f1
	elif command -v openssl >/dev/null 2>&1; then
		openssl dgst -sha256 -r "$1" | cut -d' ' -f1
	else
		die "no sha256sum, shasum or openssl found to check the tarball"
	fi
}

# check FILE SOURCE [SHOWN]: succeed if FILE has the expected sum, exit 1
# otherwise. SHOWN describes the file in the error (default: FILE).
check() {
	local got
	got=$(sha256_of "$1")
	if [ "$got" != "$want_sha" ]; then
		say "error: checksum mismatch for $name from $2"
		say "  file:     ${3:-$1}"
		say "  expected: sha256 $want_sha"
		say "  got:      sha256 $got"
		exit 1
	fi
}

mkdir -p "$cache"
tmp=""
# shellcheck disable=SC2317 # called from the EXIT trap
cleanup() { if [ -n "$tmp" ]; then rm -rf "$tmp"; fi; }
trap cleanup EXIT
# mktemp -d with a template works with GNU and BSD mktemp.
tmp=$(mktemp -d "$cache/.fetch.XXXXXX")

# install FILE SOURCE: check FILE (a temporary file), then move it into the
# cache atomically.
install_from() {
	check "$1" "$2" "$1 (download, now deleted)"
	mv -f "$1" "$dest"
	printf 'fetch-leveldb: %s (sha256 %s) from %s\n' "$dest" "$want_sha" "$2"
	exit 0
}

# 1. An explicit local tarball.
if [ -n "$local_tarball" ]; then
	[ -f "$local_tarball" ] || die "$local_var=$local_tarball: no such file"
	check "$local_tarball" "$local_var"
	cp "$local_tarball" "$tmp/$name"
	install_from "$tmp/$name" "$local_var ($local_tarball)"
fi

# 2. The cache.
if [ -f "$dest" ]; then
	check "$dest" "the cache ($dest); delete it to fetch again"
	printf 'fetch-leveldb: %s (sha256 %s) from the cache\n' "$dest" "$want_sha"
	exit 0
fi

# 3. Upstream's release archive.
timeout=${LEVELDB_FETCH_TIMEOUT:-60}
if command -v curl >/dev/null 2>&1; then
	say "trying $upstream_url"
	if curl -fsSL --connect-timeout 10 --max-time "$timeout" -o "$tmp/$name" "$upstream_url"; then
		install_from "$tmp/$name" "$upstream_url"
	fi
	say "upstream download failed; trying Debian's source package"
elif command -v wget >/dev/null 2>&1; then
	say "trying $upstream_url"
	if wget -q -T 10 -t 1 -O "$tmp/$name" "$upstream_url"; then
		install_from "$tmp/$name" "$upstream_url"
	fi
	say "upstream download failed; trying Debian's source package"
else
	say "neither curl nor wget found; skipping upstream"
fi
rm -f "$tmp/$name"

# 4. Debian's source package (its orig tarball is upstream's file).
if ! command -v apt-get >/dev/null 2>&1; then
	die "could not fetch $name: upstream unreachable and no apt-get for Debian's source package.
  Download $upstream_url elsewhere and run: $local_var=/path/to/$name $0 $*"
fi

is_root=false
if [ "$(id -u)" = 0 ]; then is_root=true; fi

has_deb_src() {
	local f
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] && grep -Eq '^[[:space:]]*deb-src[[:space:]]' "$f" && return 0
	done
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] && grep -Eiq '^[[:space:]]*Types:.*deb-src' "$f" && return 0
	done
	return 1
}

has_source_version() {
	apt-cache showsrc "$pkg" 2>/dev/null | grep -q "^Version: ${debian_version}\$"
}

src_list=/etc/apt/sources.list.d/ldbcompat-debian-src.sources
if ! has_deb_src; then
	if $is_root; then
		say "no deb-src entry configured: adding $src_list (Debian bookworm, main) and running apt-get update"
		{
			echo "# Added by ldbcompat docker/fetch-leveldb.sh to fetch leveldb's and snappy's source packages."
			echo "Types: deb-src"
			echo "URIs: http://deb.debian.org/debian"
			echo "Suites: bookworm"
			echo "Components: main"
			if [ -f /usr/share/keyrings/debian-archive-keyring.gpg ]; then
				echo "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg"
			fi
		} >"$src_list"
		apt-get update -qq >&2 || die "apt-get update failed"
	else
		die "no deb-src entry in APT's sources, and not root to add one. As root, run:
  printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: bookworm\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' > $src_list
  apt-get update
then run $0 again (or set $local_var to a local copy of $name)."
	fi
fi

if ! has_source_version; then
	if $is_root; then
		say "APT does not know source package $pkg ${debian_version} yet: running apt-get update"
		apt-get update -qq >&2 || die "apt-get update failed"
	else
		die "APT does not know source package $pkg ${debian_version}; run 'apt-get update' as root, then $0 again"
	fi
fi

say "downloading Debian source package $pkg=${debian_version}"
sandbox=()
# As root, APT would otherwise try to download as user _apt, which cannot
# write to our private temporary directory (harmless, but it warns).
if $is_root; then sandbox=(-o APT::Sandbox::User=root); fi
if ! (cd "$tmp" && apt-get -q ${sandbox[@]+"${sandbox[@]}"} source --download-only "$pkg=${debian_version}" >&2); then
	die "apt-get source --download-only $pkg=${debian_version} failed"
fi
orig="$tmp/${pkg}_${version}.orig.tar.gz"
[ -f "$orig" ] || die "apt-get source did not produce $(basename "$orig")"
install_from "$orig" "Debian source package $pkg ${debian_version} ($(basename "$orig"))"
