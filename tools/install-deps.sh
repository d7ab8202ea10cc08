#!/usr/bin/env bash
# install-deps.sh — makes sure the tools that build upstream LevelDB and the
# cgo side of the suite are present: a C++ compiler, cmake, make, snappy's
# headers, and what fetching Debian's source package needs.
#
# As root on Debian or Ubuntu it installs what is missing with apt-get and
# says so; otherwise it names what to install and exits 1.
#
# Usage: tools/install-deps.sh [--arm64]
#   --arm64  also the aarch64 cross compilers and qemu-user (make compat-arm64)
set -euo pipefail

say() { printf 'install-deps: %s\n' "$*" >&2; }

arm64=false
[ "${1:-}" = "--arm64" ] && arm64=true

# package:command-or-file pairs; a package is needed when its probe fails.
need=()
probe() {
	local pkg=$1 what=$2
	case "$what" in
	/*) [ -e "$what" ] || need+=("$pkg") ;;
	*) command -v "$what" >/dev/null 2>&1 || need+=("$pkg") ;;
	esac
}
probe g++ g++
probe cmake cmake
probe make make
probe libsnappy-dev /usr/include/snappy.h
probe ca-certificates /etc/ssl/certs/ca-certificates.crt
probe curl curl
if $arm64; then
	probe gcc-aarch64-linux-gnu aarch64-linux-gnu-gcc
	probe g++-aarch64-linux-gnu aarch64-linux-gnu-g++
	probe qemu-user qemu-aarch64
fi
command -v go >/dev/null 2>&1 || { say "Go is not on PATH: install Go 1.22 or later (https://go.dev/dl/)"; exit 1; }

if [ ${#need[@]} -eq 0 ]; then
	exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	say "installing missing build dependencies with apt-get: ${need[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >&2
	apt-get install -y -qq --no-install-recommends "${need[@]}" >&2
	say "installed: ${need[*]}"
	exit 0
fi
say "missing build dependencies: ${need[*]}"
say "install them, for example: sudo apt-get install ${need[*]}"
exit 1
