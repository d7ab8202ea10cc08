//go:build !leveldb

package compat

import "errors"

// Without the leveldb tag the kit has no upstream library to ask: these
// stand in for kit_live.go.

func runLive(Port, caseSet) *results { return &results{} }

func liveDBs(string) ([]upstreamDB, error) { return nil, nil }

func confirmContents(upstreamDB, []dbKey, [][]byte) error { return nil }

func upstreamGet(string, int, [][]byte) ([][]byte, []error, error) {
	return nil, nil, errors.New("built without the leveldb tag")
}
