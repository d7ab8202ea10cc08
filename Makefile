# ldbcompat — see README.md. Every target runs from a fresh clone.
SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
GO ?= go
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2
GOARCH_HOST := $(shell $(GO) env GOARCH)
LEVELDB_OUT := .cache/leveldb-1.23/linux-$(GOARCH_HOST)
# Builds upstream LevelDB if needed and exports the cgo flags that point at it.
LEVELDB_ENV := eval "$$(docker/build-leveldb.sh --print-env)"

.PHONY: test lint deps leveldb compat compat-native vectors vectors-check help

help:
	@echo "make test           go test ./... (pure Go, no C++ needed)"
	@echo "make compat         build LevelDB 1.23 from its tarball and run the whole suite against it"
	@echo "make vectors        regenerate testdata/vectors from upstream"
	@echo "make vectors-check  fail if upstream's answers differ from the committed vectors"
	@echo "make lint           gofmt, go vet (with and without the leveldb tag), staticcheck"

test:
	$(GO) test ./...

deps:
	docker/install-deps.sh

leveldb: deps
	docker/build-leveldb.sh

compat: compat-native

compat-native: deps
	@start=$$(date +%s); \
	$(LEVELDB_ENV); \
	echo "compat: running the suite with -tags leveldb against $(LEVELDB_OUT)"; \
	$(GO) test -tags leveldb -count=1 -json ./... | $(GO) run ./internal/cmd/testsummary -label compat; \
	echo "compat: done in $$(( $$(date +%s) - start ))s"

vectors: deps
	$(LEVELDB_ENV); $(GO) run -tags leveldb ./internal/cmd/genvectors -build-info $(LEVELDB_OUT)/build-info -out testdata/vectors

vectors-check: deps
	$(LEVELDB_ENV); $(GO) run -tags leveldb ./internal/cmd/genvectors -build-info $(LEVELDB_OUT)/build-info -out testdata/vectors -check

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...
	$(LEVELDB_ENV); $(GO) vet -tags leveldb ./... && $(GO) run $(STATICCHECK) -tags leveldb ./...
