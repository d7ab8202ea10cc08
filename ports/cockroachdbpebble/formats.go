package cockroachdbpebble

import (
	"github.com/cockroachdb/pebble/v2"
	pbloom "github.com/cockroachdb/pebble/v2/bloom"
	"github.com/cockroachdb/pebble/v2/sstable"

	"github.com/ldbcompat/ldbcompat/compat"
	"github.com/ldbcompat/ldbcompat/ports/internal/adapt"
	"github.com/ldbcompat/ldbcompat/ports/internal/ikey"
	"github.com/ldbcompat/ldbcompat/ports/internal/pebbleapi"
)

// writeTable writes entries with sstable.NewRawWriter in LevelDB's table
// format, splitting each internal key into its user key and trailer
// (pebble's trailer is LevelDB's tag: sequence number << 8 | kind, and
// kinds 0 and 1 are LevelDB's deletion and value).
func writeTable(entries []compat.Entry, o compat.TableOptions) ([]byte, error) {
	wo := sstable.WriterOptions{TableFormat: sstable.TableFormatLevelDB, BlockSize: o.BlockSize, BlockRestartInterval: o.RestartInterval, Compression: sstable.NoCompression}
	if o.Snappy {
		wo.Compression = sstable.SnappyCompression
	}
	if o.BitsPerKey > 0 {
		wo.FilterPolicy = pbloom.FilterPolicy(o.BitsPerKey)
	}
	f := &adapt.MemWritable{}
	w := sstable.NewRawWriter(f, wo)
	add := func(e compat.Entry) error {
		k := sstable.InternalKey{UserKey: ikey.UserKey(e.Key), Trailer: pebble.InternalKeyTrailer(ikey.Tag(e.Key))}
		return w.Add(k, e.Value, false)
	}
	if err := adapt.WriteEntries(entries, add, w.Close); err != nil {
		return nil, err
	}
	return f.Buf.Bytes(), nil
}

// readTable reads every entry with sstable.NewMemReader and an iterator
// without bounds; pebble verifies every block's checksum.
func readTable(contents []byte) ([]compat.Entry, error) {
	r, err := sstable.NewMemReader(contents, sstable.ReaderOptions{})
	if err != nil {
		return nil, err
	}
	defer r.Close()
	it, err := r.NewIter(sstable.NoTransforms, nil, nil, sstable.AssertNoBlobHandles)
	if err != nil {
		return nil, err
	}
	var out []compat.Entry
	for kv := it.First(); kv != nil; kv = it.Next() {
		if out, err = pebbleapi.AppendEntry(out, kv.K.UserKey, uint64(kv.K.Trailer), kv.Value); err != nil {
			it.Close()
			return out, err
		}
	}
	return out, it.Close()
}
