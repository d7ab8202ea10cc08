package siddontanggoleveldb

import (
	"testing"

	"github.com/ldbcompat/ldbcompat/ports/internal/porttest"
)

// TestWriteDBSameTables: WriteDB leaves the same table files on every
// run, so the report is the same from run to run.
func TestWriteDBSameTables(t *testing.T) { porttest.SameTables(t, Port().WriteDB) }
