// Command pebble-v2.1.4 checks github.com/cockroachdb/pebble/v2 at v2.1.4 with the conformance kit,
// through the adapter package cockroachdbpebble, and prints the row of
// docs/ports.md as JSON (the version go-ethereum v1.17.10 requires; the ports module requires v2.1.7). ports/cmd/report runs it.
package main

import (
	"github.com/ldbcompat/ldbcompat/ports/cockroachdbpebble"
	"github.com/ldbcompat/ldbcompat/ports/internal/row"
)

func main() {
	row.Main(row.Adapter{Module: cockroachdbpebble.Module, Port: cockroachdbpebble.Port, Notes: cockroachdbpebble.Notes}, "ports/versions/pebble-v2.1.4")
}
