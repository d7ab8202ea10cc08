// Command mkforeign writes the Pebble databases of testdata/foreign:
// databases of LevelDB's lineage that upstream LevelDB cannot open, which
// `ldbcompat verify` must name as such. make fixtures-foreign
// (tools/other/foreign.sh) runs it, and writes the RocksDB database
// beside them with Debian's rocksdb-tools.
//
// Usage:
//
//	go run ./cmd/mkforeign pebble-v2|pebble-v1 OUTDIR   # writes OUTDIR/NAME/
//
// Each database is written through the adapter of ports/ (its WriteDB: the
// store's own Open, Set, Flush, Compact and Close, with its bloom filter
// at 10 bits per key), with 300 keys; the lock file is removed.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/ldbcompat/ldbcompat/compat"
	"github.com/ldbcompat/ldbcompat/ports/cockroachdbpebble"
	"github.com/ldbcompat/ldbcompat/ports/cockroachdbpebblev1"
)

func main() {
	ports := map[string]func() compat.Port{
		"pebble-v2": cockroachdbpebble.Port,
		"pebble-v1": cockroachdbpebblev1.Port,
	}
	if len(os.Args) != 3 || ports[os.Args[1]] == nil {
		fmt.Fprintln(os.Stderr, "usage: mkforeign pebble-v2|pebble-v1 OUTDIR")
		os.Exit(2)
	}
	dir := filepath.Join(os.Args[2], os.Args[1])
	if err := write(ports[os.Args[1]](), dir); err != nil {
		fmt.Fprintln(os.Stderr, "mkforeign:", err)
		os.Exit(1)
	}
}

// write writes the database of port p into the new directory dir.
func write(p compat.Port, dir string) error {
	if err := os.Mkdir(dir, 0o755); err != nil {
		return err
	}
	kvs := make([][2][]byte, 300)
	for i := range kvs {
		kvs[i] = [2][]byte{[]byte(fmt.Sprintf("key%05d", i)), []byte(fmt.Sprintf("value %d", i))}
	}
	if err := p.WriteDB(dir, kvs, 10); err != nil {
		return fmt.Errorf("%s: %w", p.Name, err)
	}
	if err := os.Remove(filepath.Join(dir, "LOCK")); err != nil && !os.IsNotExist(err) {
		return err
	}
	return nil
}
