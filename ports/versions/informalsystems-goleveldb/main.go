// Command informalsystems-goleveldb checks github.com/informalsystems/goleveldb (module path github.com/syndtr/goleveldb) at v0.0.0-20240822155617-8112573615f8 with the conformance kit,
// through the adapter package goleveldb, and prints the row of
// docs/ports.md as JSON (its go.mod declares module github.com/syndtr/goleveldb, so only a replace can use it). ports/cmd/report runs it.
package main

import (
	"github.com/ldbcompat/ldbcompat/ports/goleveldb"
	"github.com/ldbcompat/ldbcompat/ports/internal/row"
)

func main() {
	row.Main(row.Adapter{Module: goleveldb.Module, Port: goleveldb.Port, Notes: goleveldb.Notes}, "ports/versions/informalsystems-goleveldb")
}
