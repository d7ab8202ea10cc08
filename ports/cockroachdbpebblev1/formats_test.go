package cockroachdbpebblev1

import (
	"testing"

	"github.com/ldbcompat/ldbcompat/ports/internal/porttest"
)

// TestFormats: the table, log and synced-write hooks read back what they
// write, and what upstream wrote; under the leveldb tag, upstream reads
// the tables and logs they write, and opens the directory pebble v1 leaves
// but finds none of its writes: pebble's WAL is in the recyclable format,
// whose records upstream's log::Reader drops as checksum mismatches.
func TestFormats(t *testing.T) {
	porttest.Formats(t, Port(), porttest.FormatsOptions{UpstreamFindsNone: true})
}
