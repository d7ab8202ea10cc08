package golangleveldb

import (
	"testing"

	"github.com/ldbcompat/ldbcompat/ports/internal/porttest"
)

// TestFormats: the table, log and synced-write hooks read back what they
// write, and what upstream wrote; under the leveldb tag, upstream reads
// the tables and logs they write, and refuses the database WriteSynced
// leaves: the MANIFEST golang/leveldb writes when it creates a database
// has no last sequence number, which upstream requires.
func TestFormats(t *testing.T) {
	porttest.Formats(t, Port(), porttest.FormatsOptions{UpstreamOpen: "Corruption: no last-sequence-number entry in descriptor"})
}
