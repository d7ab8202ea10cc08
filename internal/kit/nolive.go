//go:build !leveldb

package kit

import (
	"errors"
	"fmt"

	"github.com/ldbcompat/ldbcompat/internal/cases"
)

// Without the leveldb tag the kit has no upstream library to ask: these
// stand in for live.go.

func upstreamOracle() cases.Oracle { return nil }

func liveNotRun() string { return "" }

func liveDBs(string) ([]upstreamDB, error) { return nil, nil }

func liveDBNamed(_, name string) (upstreamDB, error) {
	return upstreamDB{}, fmt.Errorf("no database %q: the kit has upstream write databases only when built with -tags leveldb", name)
}

func confirmContents(upstreamDB, []dbKey, [][]byte) error { return nil }

func upstreamGet(string, int, [][]byte) ([][]byte, []error, error) {
	return nil, nil, errors.New("built without the leveldb tag")
}

// Live reports whether the kit was built with the leveldb tag, asking
// upstream itself through cgo.
const Live = false

func liveWriteLog([][]byte) []byte { return nil }

func liveReadLog([]byte) ([][]byte, []int64, error) {
	return nil, nil, errors.New("built without the leveldb tag")
}

func liveOpen(string, bool) ([]kv, error) {
	return nil, errors.New("built without the leveldb tag")
}

func liveLogDBs(string) ([]upstreamDB, error) { return nil, nil }

// liveLogDBCount is how many databases liveLogDBs writes.
const liveLogDBCount = 0

var errNoLive = errors.New("the kit was built without the leveldb tag: upstream cannot be asked live")

func liveTable(cases.TableCase) ([]byte, error) { return nil, errNoLive }

func liveRead([]byte, int) ([][2][]byte, string, error) { return nil, "", errNoLive }

func liveGets([]byte, [][]byte, int) ([]keyGet, error) { return nil, errNoLive }
