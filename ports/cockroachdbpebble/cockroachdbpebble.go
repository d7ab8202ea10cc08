// Package cockroachdbpebble describes github.com/cockroachdb/pebble/v2,
// golang/leveldb's successor, as a compat.Port, through its public API
// and configured as its documentation says (a bloom.FilterPolicy in
// Options.Levels[0], which the other levels inherit):
//
//   - NewPolicy: bloom.FilterPolicy, its pebble.FilterPolicy. Pebble's only
//     filter type is pebble.TableFilter: one filter for a whole table, in
//     RocksDB's full-filter format (bits in 64-byte cache lines, then the
//     probe count and the number of lines), stored under the metaindex key
//     "fullfilter.rocksdb.BuiltinBloomFilter". CreateFilter is its
//     FilterWriter (AddKey each key, Finish(dst)), KeyMayMatch its
//     MayContain(TableFilter, ...);
//   - Hash: not exported (bloom's hash function is unexported);
//   - filter block builder and reader: pebble has none for LevelDB's filter
//     block (per-2KiB filters and an offset array). Its table reader looks
//     only for "fullfilter." blocks and refuses tables without a
//     "rocksdb.properties" block, which LevelDB does not write, so not even
//     a table made around the block can be put to it;
//   - WriteTable and ReadTable: its sstable writer in LevelDB's table
//     format, and its sstable reader; WriteLog and ReadLog: package
//     record's Writer (LevelDB's log format, which pebble's own WAL is
//     not) and Reader; WriteSynced: DB.Set with pebble.Sync;
//   - ReadDB and WriteDB: pebble.Open and DB.Get; DB.Set, DB.Flush and
//     DB.Compact. Pebble creates stores at its most compatible format
//     major version (pebble.FormatMinSupported, the default), whose tables
//     are still pebble's own (sstable.TableFormatPebblev1 or later): no
//     option makes a DB write sstable.TableFormatLevelDB.
package cockroachdbpebble

import (
	"context"
	"io"

	"github.com/cockroachdb/pebble/v2"
	pbloom "github.com/cockroachdb/pebble/v2/bloom"
	"github.com/cockroachdb/pebble/v2/record"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/compat"
	"github.com/ldbcompat/ldbcompat/internal/kit"
	"github.com/ldbcompat/ldbcompat/ports/internal/adapt"
	"github.com/ldbcompat/ldbcompat/ports/internal/pebbleapi"
)

// Module is the module this adapter checks.
const Module = "github.com/cockroachdb/pebble/v2"

// Notes say how each property is reached, or why it is not.
var Notes = map[kit.Property]string{
	kit.PropName:         `bloom.FilterPolicy(bits).Name(); pebble's table writer stores the filter under "fullfilter." and that name`,
	kit.PropHash:         "not exported: bloom's hash function is unexported (read in its source, not measured: it adds the 1 to 3 tail bytes sign-extended, as RocksDB does, where LevelDB 1.18 and later add them unsigned)",
	kit.PropFilterBytes:  "bloom.FilterPolicy(bits).NewWriter(pebble.TableFilter): AddKey, Finish(dst); the only filter type pebble has is one filter per table, in RocksDB's full-filter format (cache-line blocked bits, then 1 byte of probe count and 4 of line count)",
	kit.PropKeyMayMatch:  `bloom.FilterPolicy(bits).MayContain(pebble.TableFilter, filter, key); pebble's table reader calls it only on "fullfilter." blocks, never on a LevelDB filter, so its panics on upstream's filters below happen only to a program that hands it one`,
	kit.PropBlockBytes:   "does not exist: pebble writes no LevelDB filter block (a filter per 2 KiB of data block offsets and an offset array), only one whole-table filter",
	kit.PropReader:       `does not exist: pebble's table reader (sstable.NewReader) looks up only "fullfilter."+name, and it refuses every table without a "rocksdb.properties" block, which LevelDB never writes ("did not read any value for the properties block in the meta index"), so not even a table made around the block can be put to it`,
	kit.PropReadDB:       "pebble.Open with Options{ErrorIfNotExists: true, Levels[0].FilterPolicy: bloom.FilterPolicy(bits)}, DB.Get",
	kit.PropWriteDB:      "pebble.Open with Options{ErrorIfExists: true, DisableAutomaticCompactions: true, L0StopWritesThreshold: math.MaxInt32, Levels[0].FilterPolicy: bloom.FilterPolicy(bits)} at the default (and oldest) format major version, DB.Set, DB.Flush after every 64 KiB put, DB.Compact of the whole key range, DB.Close; no option makes a pebble DB write LevelDB's table format",
	kit.PropTableBytes:   "sstable.NewRawWriter with sstable.WriterOptions{TableFormat: sstable.TableFormatLevelDB, BlockSize, BlockRestartInterval, Compression: sstable.SnappyCompression or sstable.NoCompression, FilterPolicy: bloom.FilterPolicy(bits) (none for 0 bits)}, RawWriter.Add of each entry's user key and trailer (pebble's trailer is LevelDB's tag), RawWriter.Close; pebble orders and shortens keys itself with pebble.DefaultComparer, and writes its filter as a whole-table \"fullfilter.\" block in every format",
	kit.PropReadTable:    "sstable.NewMemReader with sstable.ReaderOptions{} (pebble verifies every block's checksum), Reader.NewIter(sstable.NoTransforms, nil, nil, sstable.AssertNoBlobHandles): First, Next, InternalKV.Value; it refuses a table without a \"rocksdb.properties\" block, which LevelDB never writes",
	kit.PropLogBytes:     "record.NewWriter: Writer.Next and Write for each record, Writer.Close. It writes LevelDB's log format; pebble's database writes its WAL with record.LogWriter instead, in the recyclable format (a header of 11 bytes with the log number, chunk types 5 to 8), which upstream's log::Reader does not read",
	kit.PropReadLog:      "record.NewReader(r, 0), Reader.Next and reading each record to its end, stopping at the first error, as pebble's WAL replay does (a torn tail ends the log; a damaged chunk is corruption that fails the open)",
	kit.PropLogRecovered: "pebble.Open with Options{ErrorIfExists: true, DisableAutomaticCompactions: true, MemTableSize: above the kit's writes} at the default format major version, DB.Set with pebble.Sync, DB.Close when the kit asks. The directory is pebble's, not LevelDB's: no CURRENT file (marker files name the MANIFEST), a WAL in the recyclable format, an OPTIONS file",
	kit.PropRecoversLog:  "pebble.Open with Options{ErrorIfNotExists: true, Levels[0].FilterPolicy: bloom.FilterPolicy(bits)}, DB.Get (the ReadDB hook)",
}

// Port returns pebble described as a compat.Port.
func Port() compat.Port { return api.Port(Module) }

// api binds pebble's functions to the adapter, which
// ports/internal/pebbleapi holds for pebble v1 and v2.
var api = &pebbleapi.API[db]{
	NewPolicy:    func(bitsPerKey int) bloom.FilterPolicy { return newPolicy(bitsPerKey) },
	Open:         open,
	ErrNotFound:  pebble.ErrNotFound,
	WriteTable:   writeTable,
	ReadTable:    readTable,
	NewLogWriter: func(w io.Writer) adapt.LogWriter { return record.NewWriter(w) },
	NewLogReader: func(r io.Reader) pebbleapi.LogReader { return record.NewReader(r, 0) },
}

// Policy is a pebble.FilterPolicy, used for pebble.TableFilter filters, as
// a bloom.FilterPolicy.
type Policy = pebbleapi.Policy[pebble.FilterType, pebble.FilterWriter, pebble.FilterPolicy]

// newPolicy returns pebble's bloom filter policy of bitsPerKey as a Policy.
func newPolicy(bitsPerKey int) Policy {
	return Policy{P: pbloom.FilterPolicy(bitsPerKey), Table: pebble.TableFilter}
}

// quiet is pebbleapi.Quiet, which drops pebble's informational messages
// and panics on a fatal error, keeping pebble's errors.
type quiet struct{ pebbleapi.Quiet }

func (quiet) Errorf(format string, args ...any) { pebble.DefaultLogger.Errorf(format, args...) }

// open opens dir at the default format major version, with the bloom
// filter on every level as a pebble user sets it.
func open(dir string, o pebbleapi.Open) (db, error) {
	po := &pebble.Options{Logger: quiet{}, ErrorIfExists: o.ErrorIfExists, ErrorIfNotExists: o.ErrorIfNotExists,
		DisableAutomaticCompactions: o.DisableAutomaticCompactions, L0StopWritesThreshold: o.L0StopWritesThreshold, MemTableSize: o.MemTableSize}
	if o.Filter {
		po.Levels[0].FilterPolicy = pbloom.FilterPolicy(o.BitsPerKey)
	}
	d, err := pebble.Open(dir, po)
	return db{d}, err
}

// db is a pebble DB as a pebbleapi.DB.
type db struct{ *pebble.DB }

func (d db) Set(key, value []byte) error { return d.DB.Set(key, value, pebble.NoSync) }

func (d db) SetSync(key, value []byte) error { return d.DB.Set(key, value, pebble.Sync) }

func (d db) Compact(start, end []byte) error {
	return d.DB.Compact(context.Background(), start, end, false)
}
