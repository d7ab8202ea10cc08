#!/usr/bin/env bash
# compat-arm64.sh — what `make compat-arm64` runs: the whole suite with
# -tags leveldb, cross-built for linux/arm64 and run under qemu-aarch64 on an
# amd64 Linux host (natively on an arm64 one).
#
# Usage: tools/compat-arm64.sh       (from any directory)
#
# Steps:
#   1. tools/install-deps.sh --arm64: the aarch64 cross compilers and
#      qemu-user (installed with apt as root when missing).
#   2. docker/build-leveldb.sh --target aarch64: upstream LevelDB 1.23 for
#      linux/arm64 in .cache/leveldb-1.23/linux-arm64, with snappy 1.1.9
#      cross-built from its checksummed tarball when there is no aarch64
#      libsnappy (LEVELDB_SNAPPY, see build-leveldb.sh).
#   3. For every package with tests: GOARCH=arm64 CGO_ENABLED=1 go test -c
#      -tags leveldb into .cache/compat-arm64/; then the test binaries run,
#      as many at a time as there are cores, from their package's directory
#      (tests read testdata relative to it) under `timeout -s KILL $COMPAT_ARM64_TIMEOUT qemu-aarch64`,
#      through `go tool test2json`, into .cache/compat-arm64/events.json,
#      which gotestsum reads (tools/gotestsum.sh --raw-command) to print the
#      summary: a line per package, every skipped test, the output of every
#      failed test and a closing count.
#   4. internal/cmd/genvectors, cross-built the same way, runs under qemu with
#      -check: upstream's answers on arm64 must equal the committed golden
#      vectors.
# It exits 1 when a test, a package or the vector check fails.
#
# Environment:
#   COMPAT_ARM64_TIMEOUT  seconds allowed for each test binary (900)
#   COMPAT_ARM64_JOBS     test binaries run at once (default: nproc)
#   QEMU_AARCH64          the emulator (default: qemu-aarch64 -L
#                         /usr/aarch64-linux-gnu on a non-arm64 host)
#   LEVELDB_SNAPPY        passed on to build-leveldb.sh
#
# Never install Debian's :arm64 multiarch packages for this (libsnappy-dev:arm64
# and the like): with them in /usr/lib/aarch64-linux-gnu, qemu-aarch64 -L
# /usr/aarch64-linux-gnu has been seen to hang; timeout -s KILL bounds it.

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
cd "$root"

say() { printf 'compat-arm64: %s\n' "$*" >&2; }
die() {
	say "error: $*"
	exit 1
}

start=$(date +%s)
per_test_timeout=${COMPAT_ARM64_TIMEOUT:-900}
jobs=${COMPAT_ARM64_JOBS:-$(nproc)}
out="$root/.cache/compat-arm64"

case "$(uname -m)" in
aarch64 | arm64) "$here/install-deps.sh" ;;
*) "$here/install-deps.sh" --arm64 ;;
esac

# The cross environment (CGO_*, GOOS, GOARCH, CC, CXX), applied only to the
# commands that build arm64 binaries: go run and go tool stay native.
cross_env=$("$root/docker/build-leveldb.sh" --target aarch64 --print-env)
build_info="$("$root/docker/build-leveldb.sh" --target aarch64 --print-out)/build-info"
[ -f "$build_info" ] || die "no $build_info after build-leveldb.sh"
snappy=$(sed -n 's/^snappy: //p' "$build_info")
cross() { (eval "$cross_env" && "$@"); }

if [ -n "${QEMU_AARCH64:-}" ]; then
	read -r -a qemu <<<"$QEMU_AARCH64"
elif [ "$(uname -m)" = aarch64 ] || [ "$(uname -m)" = arm64 ]; then
	qemu=()
else
	qemu=(qemu-aarch64 -L /usr/aarch64-linux-gnu)
	# Under qemu-user a test serving a FUSE mount hangs (cmd/ldbcompat's
	# faulty-storage tests sat at 0% CPU until the package's timeout):
	# the FUSE tests run natively (go test, make compat) instead.
	export LDBCOMPAT_NO_FUSE="under qemu-user, where serving a FUSE mount hangs; the FUSE tests run natively"
fi

# The native helpers, built first so that a cross-compile error is not
# mistaken for theirs.
mkdir -p "$out"
rm -f "$out"/*.test "$out"/genvectors "$out"/*.json "$out"/*.events "$out"/*.log "$out"/*.rc
"$here/gotestsum.sh" --version >&2
test2json=$(go env GOTOOLDIR)/test2json
[ -x "$test2json" ] || go build -o "$out/test2json.host" cmd/test2json
[ -x "$test2json" ] || test2json="$out/test2json.host"

# Packages with tests, as arm64 sees them (build tags, GOARCH files).
mapfile -t pkgs < <(cross go list -tags leveldb \
	-f '{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}} {{.Dir}}{{end}}' ./...)
[ ${#pkgs[@]} -gt 0 ] || die "go list found no package with tests"
# The slowest under qemu first (docs/testing.md has their times), so that
# the others fill the other cores meanwhile instead of one of them running
# alone at the end.
first=(internal/kit internal/table cmd/ldbcompat internal/verify internal/cases internal/logfile)
ordered=()
for f in "${first[@]}"; do
	for line in "${pkgs[@]}"; do
		[ "${line%% *}" = "github.com/ldbcompat/ldbcompat/$f" ] && ordered+=("$line")
	done
done
for line in "${pkgs[@]}"; do
	rel=${line%% *}
	case " ${first[*]} " in *" ${rel#github.com/ldbcompat/ldbcompat/} "*) ;; *) ordered+=("$line") ;; esac
done
pkgs=("${ordered[@]}")

say "LevelDB $(sed -n 's/^leveldb_version: //p' "$build_info") for linux/arm64, snappy $snappy; cross-compiling ${#pkgs[@]} test packages and genvectors"
t0=$(date +%s)
build_failed=()
for line in "${pkgs[@]}"; do
	pkg=${line%% *}
	name=$(printf '%s' "${pkg#github.com/ldbcompat/ldbcompat}" | sed 's|^/||; s|/|_|g')
	name=${name:-root}
	if ! cross go test -c -tags leveldb -o "$out/$name.test" "$pkg"; then
		build_failed+=("$pkg")
	fi
done
cross go build -tags leveldb -o "$out/genvectors" ./internal/cmd/genvectors ||
	build_failed+=(github.com/ldbcompat/ldbcompat/internal/cmd/genvectors)
say "cross-compiled in $(($(date +%s) - t0))s${build_failed[*]:+; FAILED to build: ${build_failed[*]}}"

# Run each binary from its package's directory, as go test does, at most
# $jobs at a time (most tests use one core, and qemu-user is CPU-bound),
# each into its own events file, joined afterwards.
# test2json exits with the binary's status: a package whose binary failed
# (a test failed, it crashed or it was killed) is remembered, since
# gotestsum, reading a file, exits 0 whatever the events say. test2json's
# own messages (not JSON, which gotestsum refuses) go to a log of their own.
say "running under ${qemu[*]:-the host (arm64)}, at most ${per_test_timeout}s per package, $jobs at a time"
run_one() { # pkg dir name
	local t1 rc=0
	t1=$(date +%s)
	(cd "$2" && "$test2json" -t -p "$1" \
		timeout -s KILL "$per_test_timeout" ${qemu[@]+"${qemu[@]}"} "$out/$3.test" \
		-test.v=test2json -test.count=1 -test.timeout="$((per_test_timeout - 30))s") \
		>"$out/$3.events" 2>"$out/$3.log" || rc=$?
	echo "$rc" >"$out/$3.rc"
	say "  $1: $(($(date +%s) - t1))s"
}
names=()
for line in "${pkgs[@]}"; do
	pkg=${line%% *}
	name=$(printf '%s' "${pkg#github.com/ldbcompat/ldbcompat}" | sed 's|^/||; s|/|_|g')
	name=${name:-root}
	[ -x "$out/$name.test" ] || continue
	names+=("$pkg $name")
	while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
	run_one "$pkg" "${line#* }" "$name" &
done
wait
: >"$out/events.json"
: >"$out/test2json.log"
run_failed=()
for entry in ${names[@]+"${names[@]}"}; do
	pkg=${entry% *}
	name=${entry#* }
	cat "$out/$name.events" >>"$out/events.json"
	cat "$out/$name.log" >>"$out/test2json.log"
	[ "$(cat "$out/$name.rc")" = 0 ] || run_failed+=("$pkg")
done
if [ -s "$out/test2json.log" ]; then
	say "test2json said:"
	cat "$out/test2json.log" >&2
fi
# Packages that did not build are failures in the summary too.
for pkg in ${build_failed[@]+"${build_failed[@]}"}; do
	printf '{"Action":"output","Package":"%s","Output":"FAIL %s [cross-compile failed, see above]\\n"}\n{"Action":"fail","Package":"%s"}\n' \
		"$pkg" "$pkg" "$pkg" >>"$out/events.json"
done

status=0
say "summary of the test binaries' events ($out/events.json)"
"$here/gotestsum.sh" --raw-command -- cat "$out/events.json" || status=1
if [ ${#run_failed[@]} -gt 0 ] || [ ${#build_failed[@]} -gt 0 ]; then
	say "FAILED packages: ${run_failed[*]}${build_failed[*]:+ ${build_failed[*]} (did not build)}"
	status=1
fi

# Golden vectors: upstream on arm64 must give the committed answers.
if [ -x "$out/genvectors" ]; then
	say "golden vectors: upstream on linux/arm64 against testdata/vectors"
	if ! timeout -s KILL "$per_test_timeout" ${qemu[@]+"${qemu[@]}"} "$out/genvectors" \
		-check -build-info "$build_info" -out testdata/vectors; then
		say "FAILED: upstream's answers on arm64 differ from testdata/vectors (or genvectors failed)"
		status=1
	fi
else
	status=1
fi

if [ "$status" -eq 0 ]; then
	say "passed in $(($(date +%s) - start))s"
else
	say "FAILED after $(($(date +%s) - start))s"
fi
exit "$status"
