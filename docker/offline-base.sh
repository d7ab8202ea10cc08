#!/usr/bin/env bash
# offline-base.sh — make a local stand-in for the golang:*-bookworm base image
# on a machine that cannot pull images, and print its name on stdout:
#
#   GO_IMAGE=$(docker/offline-base.sh) make compat
#
# The image is Debian bookworm (debootstrap --variant=minbase, from the Debian
# mirror that APT already uses here, plus ca-certificates) with this machine's
# Go toolchain copied to /usr/local/go, laid out like the official image:
# GOPATH=/go, PATH=/go/bin:/usr/local/go/bin:..., WORKDIR /go. It is imported
# with `podman import` (or `docker import`) as
#
#   localhost/ldbcompat-base:bookworm-go<version>   e.g. bookworm-go1.26.8
#
# and reused as long as an image of that name exists: the first run takes
# about half a minute, later ones return at once. Only the base is offline:
# the Dockerfile still installs its build dependencies with apt and downloads
# Go modules through the module proxy, in RUN steps that have the network.
#
# Usage: docker/offline-base.sh [--engine podman|docker] [--force]
#   --engine  which engine imports the image (default: podman if `podman info`
#             works, else docker if `docker info` works)
#   --force   make the image again even if it exists
#
# The host's local CA certificates (/usr/local/share/ca-certificates/*.crt,
# Debian's place for CAs an administrator adds, e.g. a TLS-inspecting proxy's)
# are added to the image too, so that HTTPS from its RUN steps (the module
# proxy) works as it does on the host; OFFLINE_BASE_HOST_CA=0 leaves them out.
#
# Environment:
#   OFFLINE_BASE_ENGINE  same as --engine
#   DEBIAN_MIRROR        Debian mirror for debootstrap (default: the first
#                        bookworm mirror in APT's sources, else deb.debian.org)
#   GOROOT_SRC           Go toolchain to copy in (default: `go env GOROOT`)
#
# Needs root (debootstrap), debootstrap itself (apt-get install debootstrap;
# installed here when missing and root) and Go. Progress goes to stderr.

set -euo pipefail

readonly suite=bookworm

say() { printf 'offline-base: %s\n' "$*" >&2; }
die() {
	say "error: $*"
	exit 1
}
usage() { sed -n '/^# Usage:/,/^# Needs/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; }

engine=${OFFLINE_BASE_ENGINE:-}
force=false
while [ $# -gt 0 ]; do
	case "$1" in
	--engine) [ $# -ge 2 ] || die "--engine needs a value (podman or docker)"; engine=$2; shift 2 ;;
	--engine=*) engine=${1#--engine=}; shift ;;
	--force) force=true; shift ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; die "unknown argument: $1" ;;
	esac
done

if [ -z "$engine" ]; then
	if command -v podman >/dev/null 2>&1 && podman info >/dev/null 2>&1; then
		engine=podman
	elif command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; then
		engine=docker
	else
		die "no working container engine: neither 'podman info' nor 'docker info' succeeds"
	fi
fi
case "$engine" in
podman | docker) command -v "$engine" >/dev/null 2>&1 || die "$engine not found" ;;
*) die "unknown engine '$engine' (want podman or docker)" ;;
esac

goroot=${GOROOT_SRC:-}
if [ -z "$goroot" ]; then
	command -v go >/dev/null 2>&1 || die "go not found on PATH (set GOROOT_SRC to a Go toolchain)"
	goroot=$(go env GOROOT)
fi
[ -x "$goroot/bin/go" ] || die "$goroot/bin/go not found: not a Go toolchain"
gover=$("$goroot/bin/go" env GOVERSION)
image="localhost/ldbcompat-base:$suite-$gover"

image_exists() {
	if [ "$engine" = podman ]; then
		podman image exists "$image"
	else
		docker image inspect "$image" >/dev/null 2>&1
	fi
}

if ! $force && image_exists; then
	say "$image exists ($engine); reusing it (--force makes it again)"
	echo "$image"
	exit 0
fi

[ "$(id -u)" = 0 ] || die "debootstrap needs root; run as root, or pull a golang:*-bookworm image instead"
if ! command -v debootstrap >/dev/null 2>&1; then
	command -v apt-get >/dev/null 2>&1 || die "debootstrap not found and no apt-get to install it"
	say "installing debootstrap with apt-get"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >&2 ||
		{ apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >&2; } ||
		die "could not install debootstrap"
fi

# The first Debian mirror APT uses for the main archive (not security), in the
# deb822 (.sources) or one-line (.list) format; deb.debian.org otherwise.
apt_mirror() {
	local f
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk '
			/^[[:space:]]*$/ { if (deb && uri != "" && uri !~ /security/) { print uri; exit } deb = 0; uri = ""; next }
			tolower($1) == "types:" && / deb( |$)/ { deb = 1 }
			tolower($1) == "uris:" { uri = $2 }
			END { if (deb && uri != "" && uri !~ /security/) print uri }
		' "$f" | grep -E '/debian/?$' | head -n 1
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { print $i; break } }' "$f" |
			grep -v security | grep -E '/debian/?$' | head -n 1
	done
}
mirror=${DEBIAN_MIRROR:-$(apt_mirror 2>/dev/null | head -n 1 || true)}
mirror=${mirror:-http://deb.debian.org/debian}
mirror=${mirror%/}
security=${mirror%/debian}/debian-security

start=$(date +%s)
tmp=$(mktemp -d "${TMPDIR:-/var/tmp}/ldbcompat-base.XXXXXX")
# shellcheck disable=SC2317 # called from the EXIT trap
cleanup() { rm -rf "$tmp"; }
trap cleanup EXIT
root="$tmp/rootfs"

say "making $image: debootstrap --variant=minbase $suite from $mirror (log: $tmp/debootstrap.log while it runs)"
if ! debootstrap --variant=minbase --include=ca-certificates "$suite" "$root" "$mirror" >"$tmp/debootstrap.log" 2>&1; then
	tail -n 30 "$tmp/debootstrap.log" >&2
	if [ -f "$root/debootstrap/debootstrap.log" ]; then tail -n 30 "$root/debootstrap/debootstrap.log" >&2; fi
	die "debootstrap failed"
fi

# APT sources like the official image's: main, updates and security.
rm -f "$root/etc/apt/sources.list"
cat >"$root/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: $mirror
Suites: $suite $suite-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: $security
Suites: $suite-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
# Small, like the official images: no package lists, caches or logs.
rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/var/cache/apt/archives/*.deb \
	"$root"/var/log/*.log "$root"/var/log/apt/* "$root"/tmp/*
# Nothing from the host should leak in: debootstrap copies the host's resolv.conf.
: >"$root/etc/resolv.conf"

# The host's local CAs (see the top of this file).
if [ "${OFFLINE_BASE_HOST_CA:-1}" != 0 ]; then
	hostcas=()
	for f in /usr/local/share/ca-certificates/*.crt; do
		[ -f "$f" ] && hostcas+=("$f")
	done
	if [ ${#hostcas[@]} -gt 0 ]; then
		say "adding the host's local CA certificates: ${hostcas[*]}"
		mkdir -p "$root/usr/local/share/ca-certificates"
		cp "${hostcas[@]}" "$root/usr/local/share/ca-certificates/"
		chroot "$root" update-ca-certificates >"$tmp/update-ca.log" 2>&1 ||
			{ cat "$tmp/update-ca.log" >&2; die "update-ca-certificates failed in the image"; }
	fi
fi

say "copying Go $gover from $goroot to /usr/local/go"
mkdir -p "$root/usr/local" "$root/go/bin" "$root/go/src"
cp -a "$goroot" "$root/usr/local/go"
rm -rf "$root/usr/local/go/pkg/obj" "$root/usr/local/go/pkg/bootstrap"
chmod -R 1777 "$root/go"

path=/go/bin:/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
changes=(
	--change "ENV PATH=$path"
	--change "ENV GOPATH=/go"
	--change "ENV GOLANG_VERSION=${gover#go}"
	--change "WORKDIR /go"
	--change 'CMD ["bash"]'
)
say "importing with $engine import"
tar --numeric-owner -C "$root" -c . |
	"$engine" import "${changes[@]}" -m "ldbcompat offline base: debootstrap $suite minbase + $gover" - "$image" >/dev/null
say "made $image in $(($(date +%s) - start))s"
echo "$image"
