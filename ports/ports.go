// Package ports lists the Go implementations of LevelDB that ldbcompat
// checks, each described as a compat.Port by an adapter package that uses
// only the port's public API, and who runs each (users.json). `make
// ports` runs the kit (internal/kit.Check) on each and writes
// docs/ports.md (see cmd/report).
//
// This is a module of its own, so that the ldbcompat module does not
// depend on the ports. Go builds one version of a module per build, so
// the other versions of a module checked here (and the forks that keep
// another module's path, used through a replace directive) are checked by
// the modules under versions/, each building an adapter of this module
// with its own version.
package ports

import (
	_ "embed"

	"github.com/ldbcompat/ldbcompat/ports/btcsuitegoleveldb"
	"github.com/ldbcompat/ldbcompat/ports/cockroachdbpebble"
	"github.com/ldbcompat/ldbcompat/ports/cockroachdbpebblev1"
	"github.com/ldbcompat/ldbcompat/ports/golangleveldb"
	"github.com/ldbcompat/ldbcompat/ports/goleveldb"
	"github.com/ldbcompat/ldbcompat/ports/internal/row"
	"github.com/ldbcompat/ldbcompat/ports/internal/users"
	"github.com/ldbcompat/ldbcompat/ports/kezhuwleveldb"
	"github.com/ldbcompat/ldbcompat/ports/pingcapgoleveldb"
	"github.com/ldbcompat/ldbcompat/ports/siddontanggoleveldb"
)

// Adapter is one port and how its adapter reaches each property.
type Adapter = row.Adapter

// The adapters this module checks itself.
var (
	syndtr     = Adapter{Module: goleveldb.Module, Port: goleveldb.Port, Notes: goleveldb.Notes}
	btcsuite   = Adapter{Module: btcsuitegoleveldb.Module, Port: btcsuitegoleveldb.Port, Notes: btcsuitegoleveldb.Notes}
	pingcap    = Adapter{Module: pingcapgoleveldb.Module, Port: pingcapgoleveldb.Port, Notes: pingcapgoleveldb.Notes}
	siddontang = Adapter{Module: siddontanggoleveldb.Module, Port: siddontanggoleveldb.Port, Notes: siddontanggoleveldb.Notes}
	golang     = Adapter{Module: golangleveldb.Module, Port: golangleveldb.Port, Notes: golangleveldb.Notes}
	pebbleV1   = Adapter{Module: cockroachdbpebblev1.Module, Port: cockroachdbpebblev1.Port, Notes: cockroachdbpebblev1.Notes, Measure: cockroachdbpebblev1.MoveTables}
	pebbleV2   = Adapter{Module: cockroachdbpebble.Module, Port: cockroachdbpebble.Port, Notes: cockroachdbpebble.Notes}
	kezhuw     = Adapter{Module: kezhuwleveldb.Module, Port: kezhuwleveldb.Port, Notes: kezhuwleveldb.Notes, Measure: kezhuwleveldb.Measure}
)

// Adapters returns the adapters this module checks itself.
func Adapters() []Adapter {
	return []Adapter{syndtr, btcsuite, pingcap, siddontang, golang, pebbleV1, pebbleV2, kezhuw}
}

// Source is where one row of the report comes from: an adapter checked in
// this module, or a module under versions/ that checks one of them with
// another version (or a fork under the same module path) and prints the
// row.
type Source struct {
	Adapter *Adapter
	// Dir is the module's directory, relative to this module's, such as
	// "versions/syndtr-goleveldb-2ae1ddf", when Adapter is nil.
	Dir string
}

// Sources returns every row of the report, in report order: each family
// of implementations together, the version most people run first.
func Sources() []Source {
	in := func(a Adapter) Source { return Source{Adapter: &a} }
	return []Source{
		{Dir: "versions/syndtr-goleveldb-2ae1ddf"},
		in(syndtr),
		{Dir: "versions/vechain-goleveldb"},
		{Dir: "versions/informalsystems-goleveldb"},
		in(btcsuite),
		in(pingcap),
		in(siddontang),
		in(golang),
		in(pebbleV1),
		{Dir: "versions/pebble-v2.1.4"},
		in(pebbleV2),
		in(kezhuw),
	}
}

//go:embed users.json
var usersJSON []byte

// Users returns the facts of users.json: who runs which module at which
// version, from their go.mod files.
func Users() (*users.File, error) { return users.Parse(usersJSON) }
