#!/usr/bin/env bash
# compat.sh — what `make compat` runs: the whole suite with -tags leveldb
# against upstream LevelDB 1.23, in a container when an engine works here,
# natively otherwise. It says which it used and why.
#
# Usage: tools/compat.sh           (from any directory; make compat runs it)
#
# Where it runs:
#   COMPAT_IN unset     docker if `docker info` succeeds, else podman if
#                       `podman info` succeeds, else natively
#   COMPAT_IN=docker    docker, or fail
#   COMPAT_IN=podman    podman, or fail
#   COMPAT_IN=native    `make compat-native` on this machine
# Where docker is installed but no engine runs (no systemd, a CI machine),
# `tools/dockerd.sh start` starts one and `tools/dockerd.sh stop` stops it.
#
# In a container it fetches the checked tarball on the host
# (docker/fetch-leveldb.sh) into .cache/, the build context, then runs
#   <engine> build -f docker/Dockerfile --target compat [--build-arg GO_IMAGE=...] .
# whose last stage runs the suite and `make vectors-check`: the build fails
# when a test fails. The result is tagged localhost/ldbcompat-compat; the
# previous run's image is removed.
#
# Environment:
#   GO_IMAGE            base image (Dockerfile default: golang:1.26-bookworm);
#                       where nothing can be pulled: GO_IMAGE=$(docker/offline-base.sh)
#   PODMAN_BUILD_FLAGS  extra flags for podman build (default --isolation=chroot,
#                       which works where podman cannot run containers itself,
#                       or nothing when BUILDAH_ISOLATION is set)
#   DOCKER_BUILD_FLAGS  extra flags for docker build (default none). docker
#                       always gets --force-rm (no container is left behind
#                       when a step fails), and --network host when the
#                       daemon has no bridge network and these flags name no
#                       network (a daemon started by tools/dockerd.sh)
#   MAKE                make program for the native path (default make)

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
dockerdir="$root/docker" # the Dockerfile and the scripts that build upstream
cd "$root"

say() { printf 'compat: %s\n' "$*" >&2; }
die() {
	say "error: $*"
	exit 1
}

# works ENGINE: succeed if ENGINE is installed and `ENGINE info` succeeds;
# otherwise leave the reason in $why.
why=""
works() {
	if ! command -v "$1" >/dev/null 2>&1; then
		why="$1 is not installed"
		return 1
	fi
	local info=("$1" info)
	if command -v timeout >/dev/null 2>&1; then info=(timeout 60 "$1" info); fi
	if ! "${info[@]}" >/dev/null 2>&1; then
		why="'$1 info' fails (no engine running, or no access to it)"
		return 1
	fi
	return 0
}

in=${COMPAT_IN:-}
case "$in" in
docker | podman)
	works "$in" || die "COMPAT_IN=$in, but $why"
	reason="COMPAT_IN=$in"
	;;
native) reason="COMPAT_IN=native" ;;
"")
	if works docker; then
		in=docker
		reason="'docker info' works (COMPAT_IN=native|podman to choose otherwise)"
	else
		docker_why=$why
		if works podman; then
			in=podman
			reason="$docker_why; 'podman info' works (COMPAT_IN=native to run without a container)"
		else
			in=native
			reason="no container engine: $docker_why; $why"
		fi
	fi
	;;
*) die "COMPAT_IN must be docker, podman or native, not '$in'" ;;
esac

if [ "$in" = native ]; then
	say "running natively: $reason"
	exec "${MAKE:-make}" --no-print-directory compat-native
fi

say "running in a container with $in: $reason"
start=$(date +%s)

# The Dockerfile's default base comes from a registry. Where it can be
# neither found locally nor pulled, make the local stand-in (offline-base.sh:
# debootstrap + this machine's Go) and say so; where that is impossible too,
# run natively, unless an engine was asked for.
if [ -z "${GO_IMAGE:-}" ]; then
	default=$(sed -n 's/^ARG GO_IMAGE=//p' docker/Dockerfile)
	if ! "$in" image inspect "$default" >/dev/null 2>&1; then
		pull=("$in" pull -q "$default")
		if command -v timeout >/dev/null 2>&1; then pull=(timeout 300 "${pull[@]}"); fi
		if ! "${pull[@]}" >/dev/null 2>&1; then
			say "cannot pull $default (no access to its registry): making a local base image with docker/offline-base.sh"
			if GO_IMAGE=$("$dockerdir/offline-base.sh" --engine "$in"); then
				export GO_IMAGE
			elif [ -n "${COMPAT_IN:-}" ]; then
				die "no base image for $in: $default cannot be pulled and docker/offline-base.sh failed"
			else
				say "no base image for $in either: running natively instead"
				exec "${MAKE:-make}" --no-print-directory compat-native
			fi
		fi
	fi
fi

# The tarball goes into the build context; the Dockerfile builds it with
# docker/build-leveldb.sh, like the native path.
"$dockerdir/fetch-leveldb.sh" >&2

args=(build -f docker/Dockerfile --target compat -t localhost/ldbcompat-compat)
# LEVELDB_VERSION (default 1.23), by its name in docker/leveldb-versions.tsv,
# which also names its tarball in .cache/.
args+=(--build-arg "LEVELDB_VERSION=$("$root/docker/fetch-leveldb.sh" --resolve | cut -f1)")
if [ -n "${GO_IMAGE:-}" ]; then
	args+=(--build-arg "GO_IMAGE=$GO_IMAGE")
	base=$GO_IMAGE
else
	base="the Dockerfile's default $(sed -n 's/^ARG GO_IMAGE=//p' docker/Dockerfile)"
fi
# A new value every run, so the suite runs instead of coming from the cache.
args+=(--build-arg "COMPAT_RUN=$(date +%Y%m%dT%H%M%S)-$$")
extra=()
if [ "$in" = podman ]; then
	if [ -n "${PODMAN_BUILD_FLAGS+set}" ]; then
		read -r -a extra <<<"$PODMAN_BUILD_FLAGS"
	elif [ -z "${BUILDAH_ISOLATION:-}" ]; then
		extra=(--isolation=chroot)
	fi
else
	read -r -a extra <<<"${DOCKER_BUILD_FLAGS:-}"
	# docker's legacy builder keeps the container of a step that fails
	# (`docker ps -a` shows it until removed by hand); --force-rm removes it
	# too. BuildKit (buildx) has no such containers and accepts the flag.
	extra=(--force-rm ${extra[@]+"${extra[@]}"})
	# A daemon with no default bridge network (dockerd --bridge=none, as
	# tools/dockerd.sh starts it) gives RUN steps no network at all: apt and
	# the module proxy fail. Build on the host's network then, unless the
	# flags choose a network themselves.
	network=false
	for f in ${extra[@]+"${extra[@]}"}; do
		case "$f" in --network | --network=* | --net | --net=*) network=true ;; esac
	done
	if ! $network && ! docker network inspect bridge >/dev/null 2>&1; then
		say "the docker daemon has no bridge network (dockerd --bridge=none?): building with --network host"
		extra+=(--network host)
	fi
fi
args+=(${extra[@]+"${extra[@]}"} .)

old=$("$in" image inspect --format '{{.Id}}' localhost/ldbcompat-compat 2>/dev/null || true)
say "base image: $base"
say "$in ${args[*]}"
status=0
"$in" "${args[@]}" || status=$?
if [ "$status" -ne 0 ]; then
	say "FAILED in $in after $(($(date +%s) - start))s (exit $status): see the output above"
	exit "$status"
fi
new=$("$in" image inspect --format '{{.Id}}' localhost/ldbcompat-compat 2>/dev/null || true)
if [ -n "$old" ] && [ "$old" != "$new" ]; then
	"$in" rmi "$old" >/dev/null 2>&1 || true
fi
say "passed in $in in $(($(date +%s) - start))s"
