//go:build leveldb

package kit

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/ldbcompat/ldbcompat/cgo/upstream"
	"github.com/ldbcompat/ldbcompat/internal/cases"
)

// Upstream's TableBuilder and Table, live through cgo.

func liveTable(c cases.TableCase) ([]byte, error) { return cases.UpstreamTable(c) }

func liveRead(data []byte, bits int) ([][2][]byte, string, error) {
	return cases.UpstreamRead(data, bits)
}

// noPolicyName has no filter block: upstream reads without a filter.
const noPolicyName = "ldbcompat.no-filter-policy"

// liveGets looks every key up through upstream's TableCache::Get, checksums
// verified, with a bloom filter of bits (none for 0).
func liveGets(data []byte, keys [][]byte, bits int) ([]keyGet, error) {
	dir, err := os.MkdirTemp("", "ldbcompat-table-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, "000001.ldb"), data, 0o644); err != nil {
		return nil, err
	}
	o := upstream.TableOptions{PolicyName: noPolicyName, Lookups: keys}
	if bits > 0 {
		o.PolicyName, o.BitsPerKey = upstream.BloomName(bits), bits
	}
	r, err := upstream.ReadTable(dir, 1, uint64(len(data)), o)
	if err != nil {
		return nil, fmt.Errorf("upstream's lookups in the port's table: %w", err)
	}
	if r.OpenStatus != "" {
		return nil, fmt.Errorf("upstream's TableCache cannot open the port's table: %s", r.OpenStatus)
	}
	out := make([]keyGet, len(r.Gets))
	for i, g := range r.Gets {
		out[i] = keyGet{found: g.Found, key: g.Key, value: g.Value, status: g.Status}
	}
	return out, nil
}
