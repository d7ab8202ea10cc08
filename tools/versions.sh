#!/usr/bin/env bash
# versions.sh — `make versions`: builds upstream LevelDB natively for every
# version of docker/leveldb-versions.tsv in turn (docker/build-leveldb.sh,
# cached in .cache/leveldb-<version>/), runs the suite against each with
# -tags leveldb, and writes docs/versions.md from what it found
# (internal/cmd/versionsdoc).
#
# Usage: tools/versions.sh [-o FILE] [VERSION...]
#   VERSION   what LEVELDB_VERSION accepts (v1.4 ... v1.20, 1.21, 1.22, 1.23,
#             main) or the table's own names (1.17, main-78a352f); default:
#             every version of the table, in its order
#   -o FILE   the page to write (default docs/versions.md; a relative path
#             is taken from the directory the script was started in)
#
# Environment:
#   VERSIONS_PKGS     the packages the suite runs: ./... (the default, the
#                     whole suite), a list, or "linked": the packages whose
#                     tests link upstream LevelDB (go list says which: those
#                     depending on cgo/upstream or levigo under -tags leveldb),
#                     since the others do not change with the version.
#                     internal/versions is always among them: its
#                     TestVersionFacts records each version's facts
#   VERSIONS_COMMAND  the command the page's header names (the Makefile
#                     passes its own; default: this script and its arguments)
#   LEVELDB_SOURCES   passed on to docker/fetch-leveldb.sh (LEVELDB_TARBALL,
#                     which names a single version's tarball, is not)
#   GO, CXX           the Go command, the C++ compiler
#
# Per version it keeps, in .cache/versions/<version>/: build.log (the
# build's progress), suite.log (go test's output), status (key=value: recipe,
# build built|cached|failed, build_seconds, built_seconds (the time
# build-info records), suite pass|fail|not run, suite_seconds, packages,
# failed_packages) and facts.json (TestVersionFacts). Progress goes to
# stderr, a line or two per version. Every version is tried; the page shows
# each failure, and the script then exits 1 when any version failed to
# build, failed its suite or recorded no facts.
set -euo pipefail

caller=$(pwd)
cd "$(dirname "$0")/.."
root=$(pwd)
GO=${GO:-go}
say() { printf 'versions: %s\n' "$*" >&2; }
die() {
	say "error: $*"
	exit 2
}

out=""
args=("$@")
while [ $# -gt 0 ]; do
	case "$1" in
	-o) [ $# -ge 2 ] || die "-o needs a file"; out=$2; shift 2 ;;
	-o*) out=${1#-o}; shift ;;
	-h | --help) sed -n '/^# Usage:/,/^# Environment/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
	-*) die "unknown option: $1" ;;
	*) break ;;
	esac
done
# -o is relative to where the script was started; the default, to the root.
case "$out" in
"") out="$root/docs/versions.md" ;;
/*) ;;
*) out="$caller/$out" ;;
esac

# The table's names of the versions asked for, in the order asked.
names=()
if [ $# -eq 0 ]; then
	while IFS=$'\t' read -r name _; do
		case "$name" in '' | '#'*) continue ;; esac
		names+=("$name")
	done <docker/leveldb-versions.tsv
else
	for v in "$@"; do
		line=$(LEVELDB_VERSION=$v docker/fetch-leveldb.sh --resolve) || die "unknown LevelDB version '$v' (see docker/leveldb-versions.tsv)"
		names+=("${line%%$'\t'*}")
	done
fi

# linked: the packages whose test binaries link upstream LevelDB (through
# cgo/upstream or levigo) with -tags leveldb. The others are pure Go: what
# they test does not change with the LevelDB version.
linked_packages() {
	local module
	module=$("$GO" list -m)
	"$GO" list -tags leveldb -test -f '{{if not .ForTest}}{{.ImportPath}}|{{join .Deps " "}}{{end}}' ./... |
		awk -F'|' '$1 ~ /\.test$/ && ($2 ~ /\/cgo\/upstream( |$)/ || $2 ~ /\/jmhodges\/levigo( |$)/) { sub(/\.test$/, "", $1); print $1 }' |
		sed "s#^$module#.#"
}
if [ "${VERSIONS_PKGS:-}" = linked ]; then
	mapfile -t pkgs < <(linked_packages)
	[ ${#pkgs[@]} -gt 0 ] || die "go list found no package whose tests link upstream LevelDB"
else
	read -r -a pkgs <<<"${VERSIONS_PKGS:-./...}"
fi
case " ${pkgs[*]} " in
*" ./... "* | *" ./internal/versions "*) ;;
*) pkgs+=(./internal/versions) ;;
esac

command=${VERSIONS_COMMAND:-tools/versions.sh${args[*]:+ ${args[*]}}}
# The page names no path of this machine: the sources directory is DIR.
if [ -n "${LEVELDB_SOURCES:-}" ]; then command="LEVELDB_SOURCES=DIR $command"; fi
unset LEVELDB_TARBALL

results="$root/.cache/versions"
mkdir -p "$results"
start=$(date +%s)
total=${#names[@]}
failed=()
i=0
for name in "${names[@]}"; do
	i=$((i + 1))
	dir="$results/$name"
	rm -rf "$dir"
	mkdir -p "$dir"
	tag=$(LEVELDB_VERSION=$name docker/fetch-leveldb.sh --resolve | cut -f2)
	label="[$i/$total] $tag"

	# The build: --print-env builds if needed and prints the cgo flags.
	say "$label: building (log: .cache/versions/$name/build.log)"
	t0=$(date +%s)
	build=failed
	if LEVELDB_VERSION=$name docker/build-leveldb.sh --print-env >"$dir/env" 2>"$dir/build.log"; then
		if grep -q ' is up to date, recipe ' "$dir/build.log"; then build=cached; else build=built; fi
	fi
	t1=$(date +%s)
	# The recipe, as the build names it ("with recipe make", "recipe cmake").
	recipe=$(sed -n 's/.*recipe \([a-z0-9-]*\).*/\1/p' "$dir/build.log" | tail -n 1)
	{
		printf 'recipe=%s\n' "$recipe"
		printf 'build=%s\n' "$build"
		printf 'build_seconds=%s\n' "$((t1 - t0))"
		# How long the cached build took when it was made (its build-info).
		if [ "$build" != failed ]; then
			info="$(LEVELDB_VERSION=$name docker/build-leveldb.sh --print-out)/build-info"
			printf 'built_seconds=%s\n' "$(sed -n 's/^build_seconds: //p' "$info")"
		fi
	} >"$dir/status"
	if [ "$build" = failed ]; then
		tail -n 15 "$dir/build.log" >&2
		say "$label: BUILD FAILED after $((t1 - t0)) s (recipe ${recipe:-unknown}); full log .cache/versions/$name/build.log"
		printf 'suite=not run\n' >>"$dir/status"
		failed+=("$tag")
		continue
	fi

	# The suite, with the build's cgo flags, in a subshell of its own.
	say "$label: $build with recipe $recipe in $((t1 - t0)) s; go test -tags leveldb -count=1 ${pkgs[*]}"
	suite=fail
	if (
		# shellcheck disable=SC1091 # written just above by build-leveldb.sh
		. "$dir/env"
		LDBCOMPAT_VERSIONS_OUT="$dir/facts.json" "$GO" test -tags leveldb -count=1 "${pkgs[@]}"
	) >"$dir/suite.log" 2>&1; then
		suite=pass
	fi
	t2=$(date +%s)
	{
		printf 'suite=%s\n' "$suite"
		printf 'suite_seconds=%s\n' "$((t2 - t1))"
		printf 'packages=%s\n' "${pkgs[*]}"
		# The packages that failed, as go test names them ("FAIL<tab>pkg
		# [build failed]", "FAIL<tab>pkg<tab>1.2s"), without the module path.
		printf 'failed_packages=%s\n' "$(sed -n 's#^FAIL\t\([^\t]*\).*#\1#p' "$dir/suite.log" |
			sed 's#^github.com/ldbcompat/ldbcompat/##' | paste -sd ';' -)"
	} >>"$dir/status"
	if [ "$suite" = pass ] && [ -f "$dir/facts.json" ]; then
		say "$label: suite passed in $((t2 - t1)) s"
	else
		# go test's output but the lines of packages that passed.
		grep -vE '^(ok|\?) ' "$dir/suite.log" | head -n 200 >&2 || true
		if [ "$suite" = pass ]; then
			say "$label: FAILED: the suite passed in $((t2 - t1)) s but recorded no facts (.cache/versions/$name/facts.json)"
		else
			say "$label: SUITE FAILED in $((t2 - t1)) s; full output .cache/versions/$name/suite.log"
		fi
		failed+=("$tag")
	fi
done
end=$(date +%s)

cxx_version=$("${CXX:-c++}" --version 2>/dev/null | sed -n 1p || true)
"$GO" run ./internal/cmd/versionsdoc -results "$results" -versions "${names[*]}" \
	-command "$command" -seconds "$((end - start))" -packages "${pkgs[*]}" \
	-compiler "$cxx_version" -out "$out"

if [ ${#failed[@]} -gt 0 ]; then
	say "${#failed[@]} of $total versions FAILED: ${failed[*]} (see $out); $((end - start)) s in all"
	exit 1
fi
say "all $total versions pass; $((end - start)) s in all; wrote $out"
