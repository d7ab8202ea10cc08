package pingcapgoleveldb

import (
	"testing"

	"github.com/ldbcompat/ldbcompat/ports/internal/porttest"
)

// TestFormats: the table, log and synced-write hooks read back what they
// write, and what upstream wrote; uncompressed, the tables have upstream's
// blocks but the metaindex (which names the filter
// "leveldb.BuiltinBloomFilter", without upstream's "2"); under the leveldb
// tag, upstream reads what they write.
func TestFormats(t *testing.T) {
	porttest.Formats(t, Port(), porttest.FormatsOptions{SameBlocks: true})
}
