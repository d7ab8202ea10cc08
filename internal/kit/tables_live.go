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

// noPolicyName names a filter policy no table has a filter block for:
// with it upstream reads a table as a database without a filter policy
// does (Table::ReadMeta finds no "filter."+name entry).
const noPolicyName = "ldbcompat.no-filter-policy"

// liveGets looks every key up in data through upstream's TableCache::Get
// (Table::InternalGet) with paranoid_checks and verify_checksums, and as
// filter policy an InternalFilterPolicy over NewBloomFilterPolicy(bits),
// or none when bits is 0. The table is written to a temporary directory
// as table 1.
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
