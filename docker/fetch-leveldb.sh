#!/usr/bin/env bash
# fetch-leveldb.sh — put the source tarball of a LevelDB version in
# <repo>/.cache/ and check the tree inside it against the content digest
# pinned in docker/leveldb-versions.tsv; with --snappy, the snappy 1.1.9
# release tarball instead, checked by its SHA-256 (the cross builds compile
# it from source when the target has no libsnappy).
#
# Usage: docker/fetch-leveldb.sh [--extract DIR | --resolve | --snappy]
#                                                   (from any directory)
#   (no argument)   fetch and check the tarball of $LEVELDB_VERSION
#   --extract DIR   the same, then leave the checked tree in DIR (which must
#                   not exist): the very tree whose digest was computed, so
#                   a build from DIR builds what was checked
#   --resolve       print the version's line of leveldb-versions.tsv
#                   (version, tag, commit, commit date, content digest,
#                   tab-separated) and exit; fetches nothing
#   --snappy        the snappy 1.1.9 tarball (SHA-256 of the file)
#
# LEVELDB_VERSION names the version: v1.4 ... v1.20, 1.21, 1.22, 1.23 (the
# default) or main (the commit pinned in leveldb-versions.tsv); the table's
# own names (1.17, main-78a352f) work too. The tarball is cached as
# .cache/leveldb-<version>.tar.gz, e.g. leveldb-1.17.tar.gz,
# leveldb-main-78a352f.tar.gz.
#
# Sources, tried in this order; the first one that has a file wins:
#   1. $LEVELDB_TARBALL   a path to a local copy of the tarball
#                         ($SNAPPY_TARBALL with --snappy)
#   2. the cache          <repo>/.cache/leveldb-<version>.tar.gz
#                         (<repo>/.cache/snappy-1.1.9.tar.gz)
#   3. $LEVELDB_SOURCES   a directory of leveldb-<version>.tar.gz files
#                         (not with --snappy)
#   4. upstream           GitHub's archive of the release tag (of the commit,
#                         for main), with a short time-out
#   5. Debian             for 1.23 only: the source package leveldb 1.23-4
#                         (snappy 1.1.9-3), whose orig tarball is upstream's
#                         release tarball
#
# The content digest (LevelDB): every tarball is extracted into a temporary
# directory, which must hold exactly one top directory of regular files and
# directories (no links, devices or paths outside it); the digest is
# sha256 over the sorted `sha256sum` listing of every regular file, paths
# relative to that top directory (docker/leveldb-versions.tsv shows the
# command). It is the same for every archive of the same tree: upstream's
# GitHub archive, Debian's orig tarball and a `git archive` of the tag agree,
# byte-different as the tarballs are. It replaces the SHA-256 of the tarball
# that this script checked for 1.23 before: one rule for every version, and
# it checks what is compiled rather than one compression of it. The tarball's
# own SHA-256 is still printed, and build-leveldb.sh records it in build-info.
#
# A tree or file that does not check out is a hard error (exit 1), never
# skipped for the next source: it names the source, the expected and the
# computed digest (or sum). Downloads go to a temporary directory inside
# .cache/ and are moved into place only after they check out, so the cache
# never holds a partial or unchecked file.
#
# Environment:
#   LEVELDB_VERSION       the version (default 1.23)
#   LEVELDB_TARBALL       local LevelDB tarball to use (copied into the cache)
#   LEVELDB_SOURCES       directory holding leveldb-<version>.tar.gz files
#   LEVELDB_CACHE         the cache directory (default <repo>/.cache; for the
#                         tests: build-leveldb.sh always uses <repo>/.cache)
#   SNAPPY_TARBALL        local snappy tarball to use, with --snappy
#   LEVELDB_FETCH_TIMEOUT seconds allowed for the upstream download (60)
#
# Prints one line on stdout saying which file, which source and which
# digest; diagnostics go to stderr.

set -euo pipefail

say() { printf 'fetch-leveldb: %s\n' "$*" >&2; }
die() {
	say "error: $*"
	exit 1
}

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
table="$here/leveldb-versions.tsv"

mode=fetch
extract_to=""
case "${1:-}" in
"") ;;
--extract)
	if [ $# -lt 2 ] || [ -z "$2" ]; then die "--extract needs a directory"; fi
	mode=extract extract_to=$2
	[ ! -e "$extract_to" ] || die "--extract $extract_to: it exists already"
	;;
--resolve) mode=resolve ;;
--snappy) mode=snappy ;;
*) die "unknown argument: $1 (usage: $0 [--extract DIR | --resolve | --snappy])" ;;
esac

# resolve NAME: print the table line whose version or tag is NAME (or NAME
# without a leading v); fail when there is none.
resolve() {
	local want=$1
	[ -f "$table" ] || die "missing $table"
	awk -F'\t' -v w="$want" '
		/^#/ || NF < 5 { next }
		# String comparisons: as numbers, 1.2 would equal 1.20.
		$1 "" == w "" || $2 "" == w "" || "v" $1 == w "" { print; found = 1; exit }
		END { exit !found }' "$table"
}

known_versions() {
	awk -F'\t' '!/^#/ && NF >= 5 { printf "%s%s", sep, $2; sep = " " } END { print "" }' "$table"
}

if [ "$mode" = snappy ]; then
	readonly pkg=snappy version=1.1.9 debian_version=1.1.9-3
	readonly want_sha=75c1fbb3d618dd3a0483bff0e26d0a92b495bbe5059c8b4f1c962b478b6e06e7
	readonly upstream_url="https://github.com/google/snappy/archive/refs/tags/1.1.9.tar.gz"
	local_tarball=${SNAPPY_TARBALL:-} local_var=SNAPPY_TARBALL
	name="snappy-1.1.9.tar.gz"
	what="snappy 1.1.9"
	sources_dir=""
else
	requested=${LEVELDB_VERSION:-1.23}
	if ! line=$(resolve "$requested"); then
		die "unknown LEVELDB_VERSION '$requested'; known: $(known_versions) (see $table)"
	fi
	IFS=$'\t' read -r version tag commit commit_date want_digest <<<"$line"
	if [ "$mode" = resolve ]; then
		printf '%s\n' "$line"
		exit 0
	fi
	pkg=leveldb
	if [ "$tag" = main ]; then
		upstream_url="https://github.com/google/leveldb/archive/${commit}.tar.gz"
	else
		upstream_url="https://github.com/google/leveldb/archive/refs/tags/${tag}.tar.gz"
	fi
	debian_version=""
	if [ "$version" = 1.23 ]; then debian_version=1.23-4; fi
	local_tarball=${LEVELDB_TARBALL:-} local_var=LEVELDB_TARBALL
	name="leveldb-${version}.tar.gz"
	what="leveldb $version ($tag, commit $commit of $commit_date)"
	sources_dir=${LEVELDB_SOURCES:-}
fi

cache=${LEVELDB_CACHE:-"$root/.cache"}
dest="$cache/$name"

sha256_cmd() {
	if command -v sha256sum >/dev/null 2>&1; then
		sha256sum "$@"
	elif command -v shasum >/dev/null 2>&1; then
		shasum -a 256 "$@"
	else
		die "no sha256sum or shasum found to check the sources"
	fi
}
sha256_of() { sha256_cmd "$1" | cut -d' ' -f1; }

mkdir -p "$cache"
tmp=""
# shellcheck disable=SC2317 # called from the EXIT trap
cleanup() { if [ -n "$tmp" ]; then rm -rf "$tmp"; fi; }
trap cleanup EXIT
# mktemp -d with a template works with GNU and BSD mktemp.
tmp=$(mktemp -d "$cache/.fetch.XXXXXX")

# content_digest DIR: the content digest of the tree in DIR: sha256 of the
# sorted `sha256sum` listing ("<sum>  ./<path>" lines) of its regular files.
content_digest() {
	(
		cd "$1"
		find . -type f -print0 | LC_ALL=C sort -z | {
			if command -v sha256sum >/dev/null 2>&1; then
				xargs -0 -r sha256sum
			else
				xargs -0 -r shasum -a 256
			fi
		} | sha256_cmd | cut -d' ' -f1
	)
}

# mismatch SOURCE FILE KIND EXPECTED GOT: the error for a file that does not
# check out.
mismatch() {
	say "error: $3 mismatch for $what from $1"
	say "  file:     $2"
	say "  expected: $3 $4"
	say "  got:      $3 $5"
	if [ "$mode" != snappy ]; then
		say "  (the expected digest is pinned in $table; the tree in this tarball is not upstream's $tag)"
	fi
	exit 1
}

# check FILE SOURCE [SHOWN]: check FILE, exit 1 if it does not check out.
# For LevelDB, extract it and check the tree's content digest; the checked
# tree is left in $tmp/tree. SHOWN describes the file in errors (default FILE).
check() {
	local file=$1 src=$2 shown=${3:-$1}
	if [ "$mode" = snappy ]; then
		local got
		got=$(sha256_of "$file")
		[ "$got" = "$want_sha" ] || mismatch "$src" "$shown" sha256 "$want_sha" "$got"
		return 0
	fi
	local x="$tmp/x" top listing bad got
	rm -rf "$x" "$tmp/tree"
	mkdir "$x"
	if ! listing=$(tar -tzf "$file" 2>&1); then
		die "$shown (from $src) is not a readable gzip-compressed tar archive: $listing"
	fi
	# One top directory; no absolute paths, no '..' components.
	bad=$(printf '%s\n' "$listing" | awk '/^\// || /(^|\/)\.\.(\/|$)/ { print; exit }')
	[ -z "$bad" ] || die "$shown (from $src) has a member outside its top directory: $bad"
	top=$(printf '%s\n' "$listing" | sed -e 's|^\./||' -e 's|/.*||' | LC_ALL=C sort -u)
	if [ -z "$top" ] || [ "$(printf '%s\n' "$top" | wc -l)" -ne 1 ]; then
		die "$shown (from $src) does not hold exactly one top directory (found: $(printf '%s\n' "$top" | tr '\n' ' '))"
	fi
	tar -xzf "$file" -C "$x" --no-same-owner || die "could not extract $shown (from $src)"
	[ -d "$x/$top" ] || die "$shown (from $src): its top entry $top is not a directory"
	bad=$(cd "$x/$top" && find . ! -type f ! -type d -print | sed -n 1p)
	[ -z "$bad" ] || die "$shown (from $src) holds $bad, which is neither a regular file nor a directory"
	got=$(content_digest "$x/$top")
	[ "$got" = "$want_digest" ] || mismatch "$src" "$shown" "content digest" "$want_digest" "$got"
	mv "$x/$top" "$tmp/tree"
	rm -rf "$x"
}

# done_with FILE SOURCE: the tarball in the cache checked out; report it and,
# with --extract, move the checked tree into place.
done_with() {
	local sum
	sum=$(sha256_of "$1")
	if [ "$mode" = snappy ]; then
		printf 'fetch-leveldb: %s (sha256 %s) from %s\n' "$1" "$sum" "$2"
		exit 0
	fi
	if [ "$mode" = extract ]; then
		mv "$tmp/tree" "$extract_to" || die "could not move the checked tree to $extract_to"
		printf 'fetch-leveldb: %s (leveldb %s, content digest %s, tarball sha256 %s) from %s; extracted to %s\n' \
			"$1" "$version" "$want_digest" "$sum" "$2" "$extract_to"
	else
		printf 'fetch-leveldb: %s (leveldb %s, content digest %s, tarball sha256 %s) from %s\n' \
			"$1" "$version" "$want_digest" "$sum" "$2"
	fi
	exit 0
}

# install_from FILE SOURCE [SHOWN]: check FILE (a file in $tmp), then move it
# into the cache atomically.
install_from() {
	check "$1" "$2" "${3:-$1}"
	chmod 644 "$1"
	mv -f "$1" "$dest"
	done_with "$dest" "$2"
}

# 1. An explicit local tarball.
if [ -n "$local_tarball" ]; then
	[ -f "$local_tarball" ] || die "$local_var=$local_tarball: no such file"
	cp "$local_tarball" "$tmp/$name"
	install_from "$tmp/$name" "$local_var ($local_tarball)" "$local_tarball"
fi

# 2. The cache.
if [ -f "$dest" ]; then
	check "$dest" "the cache ($dest); delete it to fetch again"
	done_with "$dest" "the cache"
fi

# 3. A directory of source tarballs.
if [ -n "$sources_dir" ]; then
	[ -d "$sources_dir" ] || die "LEVELDB_SOURCES=$sources_dir: no such directory"
	if [ -f "$sources_dir/$name" ]; then
		cp "$sources_dir/$name" "$tmp/$name"
		install_from "$tmp/$name" "LEVELDB_SOURCES ($sources_dir/$name)" "$sources_dir/$name"
	fi
	say "LEVELDB_SOURCES=$sources_dir has no $name; trying upstream"
fi

# 4. Upstream's archive. The downloader's own error output is kept, and
# summed up in the one line that says what happens next.
timeout=${LEVELDB_FETCH_TIMEOUT:-60}
next="; trying Debian's source package"
if [ "$pkg" = leveldb ] && [ -z "$debian_version" ]; then next=""; fi

# why_failed TOOL: TOOL's last line of error output ($tmp/fetch.err),
# without curl's error number: "curl: could not resolve host: github.com".
why_failed() {
	local msg
	msg=$(sed -e '/^[[:space:]]*$/d' "$tmp/fetch.err" | tail -n 1 | sed -e 's/^curl: ([0-9]*) //' -e "s/^$1: //")
	if [ -z "$msg" ]; then msg="it failed without a word"; fi
	printf '%s: %s%s' "$1" "$(printf '%s' "${msg:0:1}" | tr '[:upper:]' '[:lower:]')" "${msg:1}"
}

if command -v curl >/dev/null 2>&1; then
	if curl -fsSL --connect-timeout 10 --max-time "$timeout" -o "$tmp/$name" "$upstream_url" 2>"$tmp/fetch.err"; then
		install_from "$tmp/$name" "$upstream_url" "$tmp/$name (download, now deleted)"
	fi
	why=$(why_failed curl)
elif command -v wget >/dev/null 2>&1; then
	if wget -nv -T 10 -t 1 -O "$tmp/$name" "$upstream_url" 2>"$tmp/fetch.err"; then
		install_from "$tmp/$name" "$upstream_url" "$tmp/$name (download, now deleted)"
	fi
	why=$(why_failed wget)
else
	why="neither curl nor wget is installed"
fi
say "$pkg $version: upstream's archive ($upstream_url) cannot be reached ($why)$next"
rm -f "$tmp/$name"

hint="Download $upstream_url elsewhere and run: $local_var=/path/to/$name"
if [ "$pkg" = leveldb ]; then hint="$hint LEVELDB_VERSION=$version"; fi
hint="$hint $0${1:+ $*}"
if [ "$pkg" = leveldb ]; then
	hint="$hint
  (or point LEVELDB_SOURCES at a directory holding $name)"
fi
if [ "$pkg" = leveldb ] && [ -z "$debian_version" ]; then
	die "could not fetch $name: not in the cache, upstream unreachable, and Debian packages no other release than 1.23.
  $hint"
fi

# 5. Debian's source package (its orig tarball is upstream's file).
if ! command -v apt-get >/dev/null 2>&1; then
	die "could not fetch $name: upstream unreachable and no apt-get for Debian's source package.
  $hint"
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
mkdir "$tmp/apt"
if ! (cd "$tmp/apt" && apt-get -q ${sandbox[@]+"${sandbox[@]}"} source --download-only "$pkg=${debian_version}" >&2); then
	die "apt-get source --download-only $pkg=${debian_version} failed"
fi
orig_version=${debian_version%-*}
orig="$tmp/apt/${pkg}_${orig_version}.orig.tar.gz"
[ -f "$orig" ] || die "apt-get source did not produce $(basename "$orig")"
install_from "$orig" "Debian source package $pkg ${debian_version} ($(basename "$orig"))" "$orig (download, now deleted)"
