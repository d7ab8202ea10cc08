# ldbcompat — see README.md. Every target runs from a fresh clone.
SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
GO ?= go
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2
GOARCH_HOST := $(shell $(GO) env GOARCH)
# The upstream LevelDB that every target below builds and uses: v1.4 ...
# v1.20, 1.21, 1.22, 1.23 or main (docker/leveldb-versions.tsv pins each
# one's source tree). The scripts read it from the environment.
LEVELDB_VERSION ?= 1.23
export LEVELDB_VERSION
# Where docker/build-leveldb.sh builds it for this machine, e.g.
# .cache/leveldb-1.23/linux-amd64 (absolute; empty for an unknown version).
# $(shell) is given LEVELDB_VERSION: before GNU make 4.4 it does not see
# exported variables, so `make vectors LEVELDB_VERSION=v1.17` read 1.23's.
LEVELDB_OUT := $(shell LEVELDB_VERSION=$(LEVELDB_VERSION) docker/build-leveldb.sh --print-out)
# Builds upstream LevelDB if needed and exports the cgo flags that point at
# it. When LevelDB cannot be fetched or built, the recipe stops there, the
# script's error its last words: `|| exit` and not `&&`, since a failure
# inside an && list does not stop a shell, even with -e
# (docker/make_test.go checks every target that uses it).
LEVELDB_ENV := leveldb_env=$$(docker/build-leveldb.sh --print-env) || exit $$?; eval "$$leveldb_env"

.PHONY: test build lint deps leveldb compat compat-native compat-arm64 vectors vectors-check fuzz help

help:
	@echo "make test           go test ./... (pure Go, no C++ needed)"
	@echo "make build          build the CLI into bin/ldbcompat"
	@echo "make deps           install what building LevelDB needs (apt, as root), or name it"
	@echo "make leveldb        fetch, check and build upstream LevelDB into .cache/ (LEVELDB_VERSION)"
	@echo "make compat         build LevelDB 1.23 (or LEVELDB_VERSION=v1.4 ... 1.23, main) from its"
	@echo "                    checked sources and run the whole suite against it,"
	@echo "                    in docker or podman when one works, else natively (COMPAT_IN=docker|podman|native)"
	@echo "make compat-native  the same, here, never in a container"
	@echo "make compat-arm64   the same, cross-built for linux/arm64 and run under qemu-aarch64"
	@echo "make versions       build every LevelDB release since v1.4 and main in turn (or VERSIONS='v1.17 main'),"
	@echo "                    run the suite against each and write docs/versions.md"
	@echo "make vectors        regenerate testdata/vectors from upstream"
	@echo "make vectors-check  fail if upstream's answers differ from the committed vectors"
	@echo "make lint           gofmt, the project's words (tools/narration.sh), go vet (with and without the leveldb tag), staticcheck"
	@echo "make fixtures       regenerate testdata/tables (databases written by upstream through levigo)"
	@echo "make fixtures-other regenerate testdata/other (databases other LevelDB implementations write)"
	@echo "make fixtures-foreign regenerate testdata/foreign (Pebble and RocksDB databases, which LevelDB cannot open)"
	@echo "make ports          run the kit on the Go ports in ports/ and write docs/ports.md"
	@echo "make bench          time bloom against upstream C++ (and the ports) side by side, and verify"
	@echo "                    against upstream's full scan of the same databases;"
	@echo "                    benchstat samples in $(BENCH_OUT)"
	@echo "make fprate         plot the measured false-positive rate against theory (docs/fprate.*)"
	@echo "make fuzz           run every fuzz target for FUZZTIME (default 60s) each; compat's against upstream"
	@echo "make mutants        mutation testing: bloom judged by the kit alone, the readers by their tests,"
	@echo "                    with and without upstream; writes docs/mutants.md (MUTANTS_TARGETS='kit table':"
	@echo "                    some targets, reported in .cache/mutants/report.md)"
	@echo "make mutants-diff   the same on the lines changed since MUTANTS_BASE (HEAD~1), at most MUTANTS_SAMPLE"
	@echo "                    mutants a target (0: all), as CI runs it"
	@echo "make help           this list"
	@echo ""
	@echo "LEVELDB_VERSION picks the upstream release (1.23 by default); only 1.23 can be fetched"
	@echo "without GitHub (from Debian). LEVELDB_SOURCES=DIR names a directory of leveldb-<version>.tar.gz"
	@echo "files (docs/building.md)."

test:
	$(GO) test ./...

# The CLI, into bin/ (ignored by git).
build:
	$(GO) build -buildvcs=auto -o bin/ldbcompat ./cmd/ldbcompat

deps:
	tools/install-deps.sh

leveldb: deps
	docker/build-leveldb.sh

# In a container when docker or podman works (tools/compat.sh says which
# and why), natively otherwise; COMPAT_IN=docker|podman|native forces one.
# GO_IMAGE picks the base image, e.g. GO_IMAGE=$(docker/offline-base.sh).
compat:
	@MAKE="$(MAKE)" tools/compat.sh

compat-native: deps
	@start=$$(date +%s); \
	$(LEVELDB_ENV); \
	echo "compat: running the suite with -tags leveldb against $(LEVELDB_OUT)"; \
	GO="$(GO)" tools/gotestsum.sh -- -tags leveldb -count=1 ./...; \
	echo "compat: done in $$(( $$(date +%s) - start ))s"

# Cross-built for linux/arm64 and run under qemu-aarch64 (tools/compat-arm64.sh).
compat-arm64:
	tools/compat-arm64.sh

# Every version of docker/leveldb-versions.tsv in turn, natively (builds
# cached in .cache/leveldb-<version>/): the suite against each, then
# docs/versions.md from what each build answered (tools/versions.sh).
# VERSIONS='v1.17 main' runs some only, VERSIONS_PKGS='./internal/kit ./cgo/upstream'
# some packages only, VERSIONS_OUT another page. Fails when any version does,
# after trying them all.
VERSIONS ?=
VERSIONS_OUT ?= docs/versions.md
.PHONY: versions
versions: deps
	@VERSIONS_COMMAND="make versions$(if $(VERSIONS), VERSIONS='$(VERSIONS)')$(if $(VERSIONS_PKGS), VERSIONS_PKGS='$(VERSIONS_PKGS)')$(if $(filter-out docs/versions.md,$(VERSIONS_OUT)), VERSIONS_OUT=$(VERSIONS_OUT))" \
		GO="$(GO)" tools/versions.sh -o "$(VERSIONS_OUT)" $(VERSIONS)

vectors: deps
	$(LEVELDB_ENV); $(GO) run -tags leveldb ./internal/cmd/genvectors -build-info $(LEVELDB_OUT)/build-info

# Writes testdata/tables/ again through the C++ library (levigo): six small
# databases with the options recorded beside each. compat's
# TestCommittedFixturesReproduce fails when the committed ones drift.
# testdata/logdbs/: three databases upstream left with their writes in the log.
.PHONY: fixtures
fixtures: deps
	$(LEVELDB_ENV); $(GO) run -tags leveldb ./internal/cmd/mkfixtures -build-info $(LEVELDB_OUT)/build-info -out testdata/tables -logdbs testdata/logdbs

vectors-check: deps
	$(LEVELDB_ENV); $(GO) run -tags leveldb ./internal/cmd/genvectors -build-info $(LEVELDB_OUT)/build-info -check

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	@tools/narration.sh
	$(LEVELDB_ENV); $(GO) vet ./... && $(GO) run $(STATICCHECK) ./... && \
		$(GO) vet -tags leveldb ./... && $(GO) run $(STATICCHECK) -tags leveldb ./...

# Runs the conformance kit (internal/kit.Check) on every Go implementation of
# LevelDB in ports/, a module of its own, at each version people run (the
# other versions in the modules under ports/versions), with -tags leveldb,
# and writes docs/ports.md from the results: first the go.mod facts of
# ports/users.json checked again through the module proxy (cmd/users),
# then the adapters' own tests, then ports/cmd/report.
.PHONY: ports
ports: deps
	$(LEVELDB_ENV); cd ports && $(GO) run ./cmd/users && $(GO) test -tags leveldb -count=1 ./... && $(GO) run -tags leveldb ./cmd/report -out ../docs/ports.md

# Times package bloom against upstream C++ LevelDB 1.23 on the same keys and
# filter (upstream's loops timed inside C++), alternating in one process,
# and `ldbcompat verify`'s CPU time beside upstream's own full scan (DB::Open
# and one iterator, timed inside C++) of two databases upstream writes; with
# ports/ present its Go ports join in (ports/cmd/bench). Prints the table,
# the ratios and the CPU, and writes benchstat-compatible $(BENCH_OUT)
# (ignored by git). BENCHFLAGS passes flags, e.g. BENCHFLAGS='-rounds 9
# -time 50ms -db /tmp/benchdb -smalldb /tmp/smalldb' (see internal/bench).
BENCH_OUT := .cache/bench/bench.txt

.PHONY: bench
bench: deps
	@$(LEVELDB_ENV); \
	if [ -f ports/go.mod ] && [ -d ports/cmd/bench ]; then \
		cd ports && $(GO) run -tags leveldb ./cmd/bench -out ../$(BENCH_OUT) $(BENCHFLAGS); \
	else \
		$(GO) run -tags leveldb ./internal/cmd/benchcmp -out $(BENCH_OUT) $(BENCHFLAGS); \
	fi

# Measures bloom's false-positive rate and filter size for 1..20 bits/key
# against theory and plots them: docs/fprate.png, docs/fprate.svg and the
# table in docs/fprate.txt. The plotting library lives in the tools/fprate
# module, so the ldbcompat module stays free of it.
.PHONY: fprate
fprate:
	$(GO) run -C tools/fprate . -out ../../docs/fprate | tee docs/fprate.txt

# Every fuzz target of every package, one `go test -fuzz` run each
# (tools/fuzz.sh): the pure-Go targets, then the differential FuzzUpstream*
# ones against upstream LevelDB, built if needed, with the leveldb tag. FUZZTIME
# is per target, a duration (60s) or an execution count (100000x), and
# FUZZTIME_<Target> in the environment overrides it for one target; new
# inputs that widen coverage are minimized for at most FUZZMINIMIZETIME. A
# failing input is written to the package's testdata/fuzz/<Target>/: commit
# it with the fix. The summary gives each target's executions (the count Go
# prints last; it includes minimization runs).
FUZZTIME ?= 60s
FUZZMINIMIZETIME ?= 5s
FUZZ_PKGS := ./bloom ./internal/table ./internal/manifest ./internal/logfile ./internal/filtercheck ./internal/verify ./cmd/ldbcompat
FUZZ_LEVELDB_PKGS := ./internal/kit ./internal/table ./internal/manifest ./internal/logfile

fuzz: deps
	@$(LEVELDB_ENV); export GO="$(GO)" FUZZTIME="$(FUZZTIME)" FUZZMINIMIZETIME="$(FUZZMINIMIZETIME)"; \
	tools/fuzz.sh $(FUZZ_PKGS); \
	if [ -n "$(strip $(FUZZ_LEVELDB_PKGS))" ]; then \
		tools/fuzz.sh -tags leveldb -match '^FuzzUpstream' $(FUZZ_LEVELDB_PKGS); \
	fi

# Writes testdata/other/ again: small databases written by other LevelDB
# implementations (plyvel, libleveldb-java, classic-level, leveldown,
# syndtr/goleveldb), with the writer, its version and the options recorded
# beside each. Installs what is missing when run as root (tools/other/fixtures.sh).
.PHONY: fixtures-other
fixtures-other:
	tools/other/fixtures.sh

# Writes testdata/foreign/ again: Pebble v2 and v1 databases (ports/cmd/
# mkforeign) and a RocksDB one (Debian's rocksdb-tools, installed when
# missing as root), which upstream LevelDB cannot open and `verify` names
# (tools/other/foreign.sh).
.PHONY: fixtures-foreign
fixtures-foreign:
	GO="$(GO)" tools/other/foreign.sh

# Mutation testing (internal/cmd/mutants over gremlins, installed pinned
# into .cache/bin): every target of internal/cmd/mutants, the leveldb-tagged
# ones against upstream LevelDB built as for make compat; fails on a
# surviving mutant that tools/mutants/survivors.txt does not explain, and
# writes docs/mutants.md. MUTANTS_TARGETS picks targets (kit, kit-live,
# table, table-live, ...), whose report then goes to
# .cache/mutants/report.md; MUTANTS_WORKERS the parallel test runs;
# MUTANTS_REUSE=1 keeps the gremlins results of the targets whose inputs
# have not changed since their last run here (the report says which).
# mutants-diff runs only the mutants on lines changed since MUTANTS_BASE,
# at most MUTANTS_SAMPLE of them per target (evenly spread; 0: all), and
# writes no report: CI's bounded check.
GREMLINS_VERSION := v0.6.0
GREMLINS := .cache/bin/gremlins-$(GREMLINS_VERSION)
MUTANTS_TARGETS ?=
MUTANTS_WORKERS ?= 2
MUTANTS_BASE ?= HEAD~1
MUTANTS_SAMPLE ?= 0
MUTANTS_REUSE ?=
# Each process's address space, in KiB (ulimit -v): a mutant that makes a
# size unbounded fails its allocation at once instead of driving the
# machine into swapping (8 GiB: the kit's wide filter needs 1 GiB).
MUTANTS_VMEM ?= 8388608
MUTANTS_FLAGS = -gremlins $(GREMLINS) -workers $(MUTANTS_WORKERS) $(if $(MUTANTS_TARGETS),-targets $(subst $(eval) ,$(comma),$(strip $(MUTANTS_TARGETS)))) $(if $(MUTANTS_REUSE),-reuse)
comma := ,

# Installs gremlins, pinned, once (after LevelDB: a target stops first
# when LevelDB cannot be had).
GREMLINS_INSTALL = test -x $(GREMLINS) || { mkdir -p .cache/bin .cache/gobin && \
	GOBIN=$(CURDIR)/.cache/gobin $(GO) install github.com/go-gremlins/gremlins/cmd/gremlins@$(GREMLINS_VERSION) && \
	mv .cache/gobin/gremlins $(GREMLINS); }

.PHONY: mutants mutants-diff
mutants: deps
	@$(LEVELDB_ENV); ulimit -v $(MUTANTS_VMEM) && $(GREMLINS_INSTALL) && $(GO) run ./internal/cmd/mutants $(MUTANTS_FLAGS)

mutants-diff: deps
	@$(LEVELDB_ENV); ulimit -v $(MUTANTS_VMEM) && $(GREMLINS_INSTALL) && $(GO) run ./internal/cmd/mutants $(MUTANTS_FLAGS) -diff $(MUTANTS_BASE) -sample $(MUTANTS_SAMPLE)
