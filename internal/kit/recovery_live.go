//go:build leveldb

package kit

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ldbcompat/ldbcompat/cgo/upstream"
	"github.com/ldbcompat/ldbcompat/internal/fixturegen"
)

// liveOpen returns what a scan finds after DB::Open of dir, which it
// writes: pass a copy.
func liveOpen(dir string, paranoid bool) ([]kv, error) {
	s, err := upstream.OpenScan(dir, paranoid)
	if err != nil {
		return nil, err
	}
	if s.OpenStatus != "" {
		return nil, errors.New(s.OpenStatus)
	}
	if s.ScanStatus != "" {
		return nil, fmt.Errorf("scan after DB::Open: %s", s.ScanStatus)
	}
	out := make([]kv, len(s.Keys))
	for i := range s.Keys {
		out[i] = kv{s.Keys[i], s.Values[i]}
	}
	return out, nil
}

// liveLogDBs has upstream leave a database of each fixturegen.LogDBKinds
// in its log under dir, with other seeds than the committed ones.
func liveLogDBs(dir string) ([]upstreamDB, error) {
	var out []upstreamDB
	for i, kind := range fixturegen.LogDBKinds {
		seed := int64(101 + i)
		d := filepath.Join(dir, kind)
		if _, err := fixturegen.GenerateLogDB(d, kind, seed); err != nil {
			return out, err
		}
		out = append(out, upstreamDB{name: fmt.Sprintf("%s%s (seed %d)", liveLogDBPrefix, kind, seed), bits: fixturegen.LogDBBitsPerKey, fsys: os.DirFS(d)})
	}
	return out, nil
}

// liveLogDBCount is how many databases liveLogDBs writes.
var liveLogDBCount = len(fixturegen.LogDBKinds)
