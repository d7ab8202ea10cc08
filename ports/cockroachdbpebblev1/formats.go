package cockroachdbpebblev1

import (
	pbloom "github.com/cockroachdb/pebble/bloom"
	"github.com/cockroachdb/pebble/sstable"
	"github.com/cockroachdb/pebble/vfs"

	"github.com/ldbcompat/ldbcompat/compat"
	"github.com/ldbcompat/ldbcompat/ports/internal/adapt"
	"github.com/ldbcompat/ldbcompat/ports/internal/ikey"
	"github.com/ldbcompat/ldbcompat/ports/internal/pebbleapi"
)

// writeTable writes entries with sstable.NewWriter in LevelDB's table
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
	w := sstable.NewWriter(f, wo)
	add := func(e compat.Entry) error {
		return w.Add(sstable.InternalKey{UserKey: ikey.UserKey(e.Key), Trailer: ikey.Tag(e.Key)}, e.Value)
	}
	if err := adapt.WriteEntries(entries, add, w.Close); err != nil {
		return nil, err
	}
	return f.Buf.Bytes(), nil
}

// readTable reads every entry with sstable.NewReader over an in-memory
// file and an iterator without bounds; pebble verifies every block's
// checksum.
func readTable(contents []byte) ([]compat.Entry, error) {
	fs := vfs.NewMem()
	f, err := fs.Create("000001.ldb")
	if err != nil {
		return nil, err
	}
	if _, err := f.Write(contents); err != nil {
		return nil, err
	}
	if err := f.Close(); err != nil {
		return nil, err
	}
	if f, err = fs.Open("000001.ldb"); err != nil {
		return nil, err
	}
	rd, err := sstable.NewSimpleReadable(f)
	if err != nil {
		f.Close()
		return nil, err
	}
	r, err := sstable.NewReader(rd, sstable.ReaderOptions{})
	if err != nil {
		// NewReader has closed rd.
		return nil, err
	}
	defer r.Close()
	it, err := r.NewIter(nil, nil)
	if err != nil {
		return nil, err
	}
	var out []compat.Entry
	for k, lv := it.First(); k != nil; k, lv = it.Next() {
		if out, err = pebbleapi.AppendEntry(out, k.UserKey, k.Trailer, lv.Value); err != nil {
			it.Close()
			return out, err
		}
	}
	return out, it.Close()
}
