package kezhuwleveldb

import (
	"testing"

	"github.com/ldbcompat/ldbcompat/ports/internal/porttest"
)

// TestFormats: the table, log and synced-write hooks read back what they
// write, and what upstream wrote (and, under the leveldb tag, upstream
// reads what they write).
func TestFormats(t *testing.T) { porttest.Formats(t, Port(), porttest.FormatsOptions{}) }
