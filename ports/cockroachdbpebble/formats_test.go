package cockroachdbpebble

import (
	"testing"

	"github.com/ldbcompat/ldbcompat/ports/internal/porttest"
)

// TestFormats: the table, log and synced-write hooks read back what they
// write (and, under the leveldb tag, upstream reads the tables and logs
// they write). Pebble's table reader refuses every table upstream wrote,
// which has no "rocksdb.properties" block; upstream refuses pebble's
// directory, which has no CURRENT file (pebble names its MANIFEST in a
// marker file).
func TestFormats(t *testing.T) {
	porttest.Formats(t, Port(), porttest.FormatsOptions{
		TablesRefused: "did not read any value for the properties block in the meta index",
		UpstreamOpen:  "Invalid argument: DIR: does not exist (create_if_missing is false)",
	})
}
