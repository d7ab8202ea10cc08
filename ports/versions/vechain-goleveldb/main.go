// Command vechain-goleveldb checks github.com/vechain/goleveldb (module path github.com/syndtr/goleveldb) at v1.0.1-0.20220809091043-51eb019c8655 with the conformance kit,
// through the adapter package goleveldb, and prints the row of
// docs/ports.md as JSON (its go.mod declares module github.com/syndtr/goleveldb, so only a replace can use it, as VeChain Thor's go.mod does). ports/cmd/report runs it.
package main

import (
	"github.com/ldbcompat/ldbcompat/ports/goleveldb"
	"github.com/ldbcompat/ldbcompat/ports/internal/row"
)

func main() {
	row.Main(row.Adapter{Module: goleveldb.Module, Port: goleveldb.Port, Notes: goleveldb.Notes}, "ports/versions/vechain-goleveldb")
}
