// Package ports lists the Go ports of LevelDB that ldbcompat checks, each
// described as a compat.Port by an adapter package that uses only the
// port's public API. `make ports` runs compat.Check on each and writes
// docs/ports.md (see cmd/report).
//
// This is a module of its own, so that the ldbcompat module does not
// depend on the ports.
package ports

import (
	"github.com/ldbcompat/ldbcompat/compat"
	"github.com/ldbcompat/ldbcompat/ports/cockroachdbpebble"
	"github.com/ldbcompat/ldbcompat/ports/golangleveldb"
	"github.com/ldbcompat/ldbcompat/ports/goleveldb"
)

// Adapter is one port and how its adapter reaches each property.
type Adapter struct {
	Module string // the port's module path
	Port   func() compat.Port
	// Notes say, by property, which API the adapter calls, or why the
	// property cannot be reached.
	Notes map[compat.Property]string
}

// Adapters returns every port with an adapter.
func Adapters() []Adapter {
	return []Adapter{
		{Module: goleveldb.Module, Port: goleveldb.Port, Notes: goleveldb.Notes},
		{Module: golangleveldb.Module, Port: golangleveldb.Port, Notes: golangleveldb.Notes},
		{Module: cockroachdbpebble.Module, Port: cockroachdbpebble.Port, Notes: cockroachdbpebble.Notes},
	}
}

// Missing is a port without an adapter, and why.
type Missing struct {
	Module string
	// Why says what blocks an adapter; the report adds what the module
	// proxy answers for the module now.
	Why string
	// API is the public API an adapter would use.
	API string
}

// Unadapted returns the ports that have no adapter.
func Unadapted() []Missing {
	return []Missing{{
		Module: "github.com/kezhuw/leveldb",
		Why:    "its source cannot be fetched here: the module proxy serves no version of it, and without a tag its pseudo-version (commit time and hash) must be known exactly",
		API:    "leveldb.NewBloomFilter(bits) returns a leveldb.Filter (Name, Append(*bytes.Buffer, keys), Contains, NewGenerator); its hash and filter block are in internal packages, so the filter block would be reached through leveldb.Open and DB.Get only",
	}}
}
