package cockroachdbpebblev1

import (
	"bytes"
	"sort"

	pbloom "github.com/cockroachdb/pebble/bloom"
	"github.com/cockroachdb/pebble/objstorage/objstorageprovider"
	"github.com/cockroachdb/pebble/sstable"
	"github.com/cockroachdb/pebble/vfs"
)

// writeLevelDBTable writes kvs, sorted by key, to path with pebble v1's
// sstable.Writer in LevelDB's table format with pebble's bloom filter.
func writeLevelDBTable(path string, kvs [][2][]byte, bitsPerKey int) error {
	sorted := append([][2][]byte(nil), kvs...)
	sort.Slice(sorted, func(i, j int) bool { return bytes.Compare(sorted[i][0], sorted[j][0]) < 0 })
	f, err := vfs.Default.Create(path)
	if err != nil {
		return err
	}
	w := sstable.NewWriter(objstorageprovider.NewFileWritable(f), sstable.WriterOptions{
		TableFormat:  sstable.TableFormatLevelDB,
		FilterPolicy: pbloom.FilterPolicy(bitsPerKey),
	})
	for _, kv := range sorted {
		if err := w.Set(kv[0], kv[1]); err != nil {
			w.Close()
			return err
		}
	}
	return w.Close()
}
