//go:build leveldb

package cases

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ldbcompat/ldbcompat/cgo/upstream"
)

// The table cases asked of upstream: its TableBuilder's tables and its
// Table's reads, for the vectors and the kit's live checks.

// UpstreamTable has upstream's TableBuilder write c.
func UpstreamTable(c TableCase) ([]byte, error) {
	return upstream.BuildTable(c.Keys, c.Values, upstream.BuildOptions{BlockSize: c.BlockSize,
		RestartInterval: c.RestartInterval, Snappy: c.Snappy, BitsPerKey: c.BitsPerKey})
}

// UpstreamRead has upstream's Table read data with checksums verified,
// with the filter policy of bitsPerKey (0: none).
func UpstreamRead(data []byte, bitsPerKey int) ([][2][]byte, string, error) {
	s, err := upstream.ScanTable(data, bitsPerKey)
	if err != nil {
		return nil, "", err
	}
	return s.Entries, s.Status(), nil
}

// writeTableVectors writes TableVectorFile into dir from upstream.
func writeTableVectors(dir string, prov Provenance) error {
	var buf bytes.Buffer
	buf.WriteString(prov.header("table"))
	buf.WriteString("# table: out is upstream's table (sha256 digest without compression, hex with snappy);\n")
	buf.WriteString("# tabledamage: out is upstream's status (URL-escaped), ans the entries its Table returned (count:digest)\n")
	clean := map[string][]byte{}
	for _, c := range TableCases() {
		data, err := UpstreamTable(c)
		if err != nil {
			return fmt.Errorf("table case %q: %w", c.Name, err)
		}
		entries, status, err := UpstreamRead(data, c.BitsPerKey)
		if err != nil {
			return fmt.Errorf("table case %q: %w", c.Name, err)
		}
		if status != "" || len(entries) != len(c.Keys) {
			return fmt.Errorf("table case %q: upstream reads its own table with status %q and %d of %d entries", c.Name, status, len(entries), len(c.Keys))
		}
		clean[c.Name] = data
		fmt.Fprintln(&buf, TableRecord(c, data))
	}
	for _, d := range DamagedTables() {
		base, _ := TableCaseNamed(d.Base)
		data, err := d.Damage.Apply(clean[d.Base])
		if err != nil {
			return fmt.Errorf("damaged table %q: %w", d.Name, err)
		}
		entries, status, err := UpstreamRead(data, base.BitsPerKey)
		if err != nil {
			return fmt.Errorf("damaged table %q: %w", d.Name, err)
		}
		fmt.Fprintln(&buf, DamagedRecord(d, base, NewTableVerdict(status, entries)))
	}
	return os.WriteFile(filepath.Join(dir, TableVectorFile), buf.Bytes(), 0o644)
}
