#!/usr/bin/env bash
# gotestsum.sh — the test summary of `make compat` and `make compat-arm64`:
# gotestsum (gotest.tools/gotestsum), at the version pinned here, run with
# `go run` from the Go module proxy (the module cache keeps it for later
# runs; docker/Dockerfile fetches it in a layer of its own).
#
# Usage: tools/gotestsum.sh [gotestsum flags] [-- go test flags]
#   tools/gotestsum.sh -- -tags leveldb -count=1 ./...
#   tools/gotestsum.sh --raw-command -- cat events.json   (test2json output)
#   tools/gotestsum.sh --version                           (fetch and build it)
#
# It prints a line per package (PASS, FAIL, or SKIP for a package without
# tests), then every skipped test, subtests included, with the reason it
# gave, the output of every failed test, and a closing count
# ("DONE N tests, N skipped, N failures in Ns"). It exits non-zero when a
# test or a package failed, or when a package did not build.
#
# What it does not give: the passed/failed/skipped counts per package that
# the project's own summary (internal/cmd/testsummary, now gone) printed.
# The per-package verdict, every skipped test by name and the closing count
# carry what those counts were for, and the old counts saw top-level tests
# only, so a skipped subtest never showed; no code of ours is kept for them.
set -euo pipefail

readonly version=v1.13.0

exec "${GO:-go}" run "gotest.tools/gotestsum@$version" \
	--format pkgname --format-icons text --format-hide-empty-pkg "$@"
