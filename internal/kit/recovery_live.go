//go:build leveldb

package kit

import (
	"errors"
	"fmt"

	"github.com/ldbcompat/ldbcompat/cgo/upstream"
)

// liveOpen has the linked LevelDB open the database in dir with DB::Open
// (default options, paranoid_checks as paranoid) and returns every entry
// a scan yields. DB::Open writes to dir: pass a copy.
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
