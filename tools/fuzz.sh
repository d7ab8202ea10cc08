#!/usr/bin/env bash
# Runs every Go fuzz target of the given packages, one `go test -fuzz` run
# each (Go takes one target per run), and prints each target's executions.
#
#   tools/fuzz.sh [-tags TAGS] [-match REGEXP] PKG...   (make fuzz calls it)
#
# -match picks the targets by name (default ^Fuzz: all of them); make fuzz
# runs the FuzzUpstream* targets, which need the leveldb tag, apart.
#
# FUZZTIME is the budget per target: a duration (60s) or a count of
# executions (100000x); FUZZTIME_<target> (FUZZTIME_FuzzUpstreamTable=4000x)
# overrides it for one target. FUZZMINIMIZETIME bounds the minimization of
# each new input (Go's default, 60s, can stall a short run).
#
# A failing input is written by Go to PKG/testdata/fuzz/TARGET/; the run
# stops there with a non-zero exit, naming the file. Commit it with the fix.
#
# One failure is not the target's: with a duration budget, Go up to 1.26
# can report its own deadline as "context deadline exceeded" when the time
# runs out while a worker is busy (golang/go#75804, fixed in Go 1.27). Such
# a run wrote no input and reported nothing else; it is counted as a run
# that ended, and the summary says so. Count budgets never hit it.
set -euo pipefail

tags=()
match='^Fuzz'
while [ $# -gt 0 ]; do
	case $1 in
	-tags)
		tags=(-tags "$2")
		shift 2
		;;
	-match)
		match=$2
		shift 2
		;;
	*) break ;;
	esac
done
if [ $# -eq 0 ]; then
	echo "usage: tools/fuzz.sh [-tags TAGS] [-match REGEXP] PKG..." >&2
	exit 2
fi

GO=${GO:-go}
FUZZTIME=${FUZZTIME:-60s}
FUZZMINIMIZETIME=${FUZZMINIMIZETIME:-5s}

log=$(mktemp)
# Each run's temporary files go to a directory of its own, removed after
# it: Go kills its fuzz workers when the budget runs out, before the
# cleanups of t.TempDir and f.TempDir run, which would leave their
# directories in /tmp run after run.
runtmp=$(mktemp -d)
trap 'chmod -R u+rwX "$runtmp" 2>/dev/null; rm -rf "$log" "$runtmp"' EXIT

# corpus PKG TARGET: the files of the target's corpus directory, one a line.
corpus() {
	local dir
	dir="$("$GO" list -f '{{.Dir}}' "$1")/testdata/fuzz/$2"
	if [ -d "$dir" ]; then
		(cd "$dir" && ls -1)
	fi
}

summary=()
for pkg in "$@"; do
	targets=$("$GO" test "${tags[@]}" -list "$match" "$pkg" | grep '^Fuzz' || true)
	for t in $targets; do
		budget_var="FUZZTIME_$t"
		budget=${!budget_var:-$FUZZTIME}
		case $budget in
		*x) duration=false ;;
		*) duration=true ;;
		esac
		echo "fuzz: $pkg $t for $budget"
		before=$(corpus "$pkg" "$t")
		status=0
		TMPDIR=$runtmp "$GO" test "${tags[@]}" -run '^$' -fuzz "^$t\$" -fuzztime "$budget" \
			-fuzzminimizetime "$FUZZMINIMIZETIME" "$pkg" 2>&1 | tee "$log" || status=$?
		# (A directory a test made unreadable is opened up first.)
		chmod -R u+rwX "$runtmp" 2>/dev/null || true
		find "$runtmp" -mindepth 1 -delete
		execs=$(grep -o 'execs: [0-9]*' "$log" | tail -1 | cut -d' ' -f2 || true)
		note=""
		if [ "$status" -ne 0 ]; then
			after=$(corpus "$pkg" "$t")
			# The race's whole report: the target's FAIL line, then the
			# deadline, then FAIL; nothing written, no other message.
			failure=$(sed -n "/^--- FAIL: $t /,\$p" "$log")
			if $duration && [ "$before" = "$after" ] &&
				! grep -q 'Failing input written\|panic:\|hung or terminated' "$log" &&
				[ "$(printf '%s\n' "$failure" | sed -n 2p | sed 's/^[[:space:]]*//')" = "context deadline exceeded" ]; then
				echo "fuzz: $t: Go reported its own $budget deadline as a failure (golang/go#75804); no failing input, counted as ended"
				note=" (ended by golang/go#75804)"
			else
				echo "fuzz: $pkg $t FAILED (exit $status)." >&2
				new=$(comm -13 <(printf '%s\n' "$before") <(printf '%s\n' "$after") | sed '/^$/d')
				if [ -n "$new" ]; then
					echo "fuzz: failing input written to $pkg/testdata/fuzz/$t/$new" >&2
					echo "fuzz: reproduce with: $GO test ${tags[*]:+${tags[*]} }-run '^$t/$new\$' $pkg" >&2
				fi
				exit 1
			fi
		fi
		summary+=("$(printf '%-32s %-24s %12s execs of %s%s' "$t" "$pkg" "${execs:-?}" "$budget" "$note")")
	done
done
echo "fuzz: every target ran without a failure:"
printf '%s\n' "${summary[@]}"
