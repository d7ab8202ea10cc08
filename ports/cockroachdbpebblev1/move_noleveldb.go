//go:build !leveldb

package cockroachdbpebblev1

import "github.com/ldbcompat/ldbcompat/ports/internal/row"

// MoveTables needs upstream LevelDB (the leveldb build tag): without it,
// it says so.
func MoveTables() []row.Measured {
	return []row.Measured{{
		What:    "Tables and databases moved between pebble v1 and LevelDB 1.23",
		Outcome: "not measured: built without the `leveldb` tag, so upstream LevelDB could not be asked",
	}}
}
