package main

import (
	"testing"

	"github.com/ldbcompat/ldbcompat/ports/goleveldb"
	"github.com/ldbcompat/ldbcompat/ports/internal/porttest"
)

// TestFormats: the adapter's table, log and synced-write hooks, built with
// this module's version, read back what they write, and what upstream
// wrote; uncompressed, the tables have upstream's blocks but the
// metaindex (which names the filter without upstream's "2"); under the
// leveldb tag, upstream reads what they write.
func TestFormats(t *testing.T) {
	porttest.Formats(t, goleveldb.Port(), porttest.FormatsOptions{SameBlocks: true})
}
