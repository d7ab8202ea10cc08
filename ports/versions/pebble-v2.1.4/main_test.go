package main

import (
	"testing"

	"github.com/ldbcompat/ldbcompat/ports/cockroachdbpebble"
	"github.com/ldbcompat/ldbcompat/ports/internal/porttest"
)

// TestFormats: the adapter's table, log and synced-write hooks, built with
// this module's version, read back what they write (and, under the leveldb
// tag, upstream reads the tables and logs they write); as in the ports
// module's pebble v2, its table reader refuses upstream's tables and
// upstream refuses its directory.
func TestFormats(t *testing.T) {
	porttest.Formats(t, cockroachdbpebble.Port(), porttest.FormatsOptions{
		TablesRefused: "did not read any value for the properties block in the meta index",
		UpstreamOpen:  "Invalid argument: DIR: does not exist (create_if_missing is false)",
	})
}
