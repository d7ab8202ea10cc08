//go:build leveldb

// Package fixturegen writes LevelDB databases through the real C++ library
// (via levigo) with deterministic, seeded content chosen to exercise filter
// blocks: user keys of 1 to 40 bytes with bytes of 0x80 and above, several
// versions of a user key kept by snapshots, values over 2 KiB (data blocks
// that skip whole 2 KiB filter ranges), tables from flushes and from a
// compaction. internal/cmd/mkfixtures and package compat's tests use it.
package fixturegen

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sort"

	"github.com/jmhodges/levigo"

	"github.com/ldbcompat/ldbcompat/internal/base"
	"github.com/ldbcompat/ldbcompat/internal/fixtures"
	"github.com/ldbcompat/ldbcompat/internal/table"
)

// Options selects what one generated database contains.
type Options struct {
	BitsPerKey int   // bloom filter bits per key
	BlockSize  int   // LevelDB block_size
	Snappy     bool  // snappy compression (else none)
	KeysPerRun int   // new user keys written per key range; 0 means 300
	Seed       int64 // seeds all content; 0 means 1
}

// Name returns a directory name describing o, such as "b10-bs4096-snappy".
func (o Options) Name() string {
	c := "none"
	if o.Snappy {
		c = "snappy"
	}
	return fmt.Sprintf("b%d-bs%d-%s", o.BitsPerKey, o.BlockSize, c)
}

// All returns every combination of the bits per key, block sizes and
// compressions the fixtures cover, with the given keys per run and seed.
func All(keysPerRun int, seed int64) []Options {
	var all []Options
	for _, b := range []int{1, 5, 10, 16, 30} {
		for _, bs := range []int{128, 1024, 4096} {
			for _, s := range []bool{false, true} {
				all = append(all, Options{BitsPerKey: b, BlockSize: bs, Snappy: s, KeysPerRun: keysPerRun, Seed: seed})
			}
		}
	}
	return all
}

// Generator names the program that writes fixtures, recorded in fixtures.Info.
const Generator = "go run -tags leveldb ./internal/cmd/mkfixtures"

// LevelDBVersion returns the version of the linked LevelDB, such as "1.23".
func LevelDBVersion() string {
	return fmt.Sprintf("%d.%d", levigo.GetLevelDBMajorVersion(), levigo.GetLevelDBMinorVersion())
}

// Each run writes user keys starting with its own byte, so the runs'
// tables do not overlap until the last run rewrites run 0's range.
var runPrefix = []byte{0x11, 0x7f, 0xc3}

// Generate creates a database in dir (which must not exist or be empty) with
// the content o selects, closes it, removes the files that vary from run to
// run (LOG, LOG.old, LOCK) and describes the tables it left. The write
// buffer is so large that every table comes from an explicit CompactRange,
// so the file set is the same on every run.
func Generate(dir string, o Options) (*fixtures.Info, error) {
	if o.KeysPerRun == 0 {
		o.KeysPerRun = 300
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	if o.BitsPerKey < 0 || o.BlockSize <= 0 {
		return nil, fmt.Errorf("fixturegen: bad options %+v", o)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if err := write(dir, o); err != nil {
		return nil, fmt.Errorf("fixturegen %s: %w", o.Name(), err)
	}
	for _, f := range volatile {
		if err := os.Remove(filepath.Join(dir, f)); err != nil && !os.IsNotExist(err) {
			return nil, err
		}
	}
	info, err := describe(dir, o)
	if err != nil {
		return nil, fmt.Errorf("fixturegen %s: %w", o.Name(), err)
	}
	return info, nil
}

// volatile are the files of a database that vary from run to run.
var volatile = []string{"LOG", "LOG.old", "LOCK"}

func write(dir string, o Options) error {
	db, err := Open(dir, o.BitsPerKey, func(opts *levigo.Options) {
		opts.SetCreateIfMissing(true)
		opts.SetErrorIfExists(true)
		opts.SetBlockSize(o.BlockSize)
		opts.SetWriteBufferSize(256 << 20)
		if o.Snappy {
			opts.SetCompression(levigo.SnappyCompression)
		} else {
			opts.SetCompression(levigo.NoCompression)
		}
	})
	if err != nil {
		return err
	}
	defer db.Close()
	wo := levigo.NewWriteOptions()
	defer wo.Close()

	rng := rand.New(rand.NewPCG(uint64(o.Seed), 0x6c64626366696c74))
	var snaps []*levigo.Snapshot
	defer func() {
		for _, s := range snaps {
			db.ReleaseSnapshot(s)
		}
	}()
	snapshot := func() { snaps = append(snaps, db.NewSnapshot()) }

	putAll := func(keys [][]byte) error {
		for _, k := range keys {
			if err := db.Put(wo, k, newValue(rng)); err != nil {
				return err
			}
		}
		return nil
	}
	// rewrite puts a new value under a key with probability put%, else
	// deletes it with probability (del-put)%.
	rewrite := func(keys [][]byte, put, del int) error {
		for _, k := range keys {
			var err error
			switch r := rng.IntN(100); {
			case r < put:
				err = db.Put(wo, k, newValue(rng))
			case r < del:
				err = db.Delete(wo, k)
			}
			if err != nil {
				return err
			}
		}
		return nil
	}
	var run0 [][]byte
	for run, prefix := range runPrefix {
		keys := newKeys(rng, prefix, o.KeysPerRun)
		if run == 0 {
			run0 = keys
		}
		// Snapshots between the rounds keep the older versions through
		// compaction.
		if err := putAll(keys); err != nil {
			return err
		}
		snapshot()
		if err := rewrite(keys, 30, 45); err != nil {
			return err
		}
		snapshot()
		if err := rewrite(keys, 10, 15); err != nil {
			return err
		}
		// Flushes the memtable into a table of its own.
		db.CompactRange(levigo.Range{Start: []byte{prefix}, Limit: []byte{prefix + 1}})
	}
	// Rewrite part of run 0's range: the flushed table overlaps run 0's
	// and a compaction merges the two.
	if err := rewrite(run0, 20, 30); err != nil {
		return err
	}
	if err := putAll(newKeys(rng, runPrefix[0], o.KeysPerRun/4)); err != nil {
		return err
	}
	db.CompactRange(levigo.Range{Start: []byte{runPrefix[0]}, Limit: []byte{runPrefix[0] + 1}})
	return nil
}

// newKeys returns n distinct user keys that start with prefix, of 1 to 40
// bytes (most lengths not multiples of 4), in random order.
func newKeys(rng *rand.Rand, prefix byte, n int) [][]byte {
	seen := make(map[string]bool, n)
	keys := make([][]byte, 0, n)
	for len(keys) < n {
		k := make([]byte, 1+rng.IntN(40))
		k[0] = prefix
		for i := 1; i < len(k); i++ {
			k[i] = byte(rng.Uint32())
		}
		if !seen[string(k)] {
			seen[string(k)] = true
			keys = append(keys, k)
		}
	}
	return keys
}

// words makes compressible values.
var words = []string{"level", "bloom", "filter", "block", "table", "key", "snappy", "restart", "index", " "}

// newValue returns a value: mostly small, sometimes empty, 1 in 25 between
// 2 and 6 KiB; half of them compressible text, half random bytes.
func newValue(rng *rand.Rand) []byte {
	var n int
	switch r := rng.IntN(100); {
	case r < 3:
		n = 0
	case r < 7:
		n = 2048 + rng.IntN(4096)
	default:
		n = 1 + rng.IntN(120)
	}
	v := make([]byte, 0, n+16)
	if rng.IntN(2) == 0 {
		for len(v) < n {
			v = append(v, words[rng.IntN(len(words))]...)
		}
		return v[:n]
	}
	for len(v) < n {
		v = append(v, byte(rng.Uint32()))
	}
	return v
}

// describe lists the tables in dir.
func describe(dir string, o Options) (*fixtures.Info, error) {
	info := &fixtures.Info{
		Name:               o.Name(),
		BitsPerKey:         o.BitsPerKey,
		BlockSize:          o.BlockSize,
		EffectiveBlockSize: min(max(o.BlockSize, 1<<10), 4<<20),
		Compression:        "none",
		KeysPerRun:         o.KeysPerRun,
		Seed:               o.Seed,
		LevelDBVersion:     LevelDBVersion(),
		Arch:               runtime.GOARCH,
		Generator:          Generator,
	}
	if o.Snappy {
		info.Compression = "snappy"
	}
	tables, err := describeTables(dir)
	if err != nil {
		return nil, err
	}
	info.Tables = tables
	snappyBlocks := 0
	for _, t := range tables {
		snappyBlocks += t.SnappyBlocks
	}
	if len(info.Tables) < 3 {
		return nil, fmt.Errorf("want at least 3 tables, LevelDB wrote %d", len(info.Tables))
	}
	if o.Snappy && snappyBlocks == 0 {
		return nil, fmt.Errorf("snappy requested but no block is compressed: was LevelDB built without snappy?")
	}
	return info, nil
}

// describeTables describes the tables in dir, in name order.
func describeTables(dir string) ([]fixtures.TableInfo, error) {
	names, err := Tables(dir)
	if err != nil {
		return nil, err
	}
	var out []fixtures.TableInfo
	for _, name := range names {
		ti, err := describeTable(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		ti.File = name
		out = append(out, *ti)
	}
	return out, nil
}

func describeTable(path string) (*fixtures.TableInfo, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	t, err := table.Open(filepath.Base(path), bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(data)
	ti := &fixtures.TableInfo{Size: int64(len(data)), SHA256: hex.EncodeToString(sum[:])}
	versions := map[string]int{}
	err = t.DataBlocks(func(b *table.DataBlock) error {
		ti.DataBlocks++
		if b.Compression == table.SnappyCompression {
			ti.SnappyBlocks++
		}
		for _, e := range b.Entries {
			ti.Entries++
			if e.Key.Kind == table.KindDeletion {
				ti.Deletions++
			}
			versions[string(e.Key.UserKey)]++
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, n := range versions {
		if n > 1 {
			ti.MultiVersion++
		}
	}
	if name, contents, ok := t.FilterBlock(); ok {
		ti.FilterPolicy, ti.FilterBlockSize = name, len(contents)
	}
	return ti, nil
}

// Tables returns the names of the table files (*.ldb, *.sst) in dir, sorted.
func Tables(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range ents {
		if n := e.Name(); base.HasTableExt(n) {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names, nil
}

// SnappyAvailable reports whether the linked LevelDB compresses with
// snappy (built without it, it silently stores blocks uncompressed), by
// writing a small database in a temporary directory.
func SnappyAvailable() (bool, error) {
	dir, err := os.MkdirTemp("", "fixturegen-snappy-")
	if err != nil {
		return false, err
	}
	defer os.RemoveAll(dir)
	db, err := Open(dir, -1, func(opts *levigo.Options) {
		opts.SetCreateIfMissing(true)
		opts.SetCompression(levigo.SnappyCompression)
	})
	if err != nil {
		return false, err
	}
	wo := levigo.NewWriteOptions()
	defer wo.Close()
	err = db.Put(wo, []byte("k"), bytes.Repeat([]byte("compressible "), 1000))
	if err == nil {
		db.CompactRange(levigo.Range{})
	}
	db.Close()
	if err != nil {
		return false, err
	}
	tables, err := describeTables(dir)
	if err != nil {
		return false, err
	}
	for _, t := range tables {
		if t.SnappyBlocks > 0 {
			return true, nil
		}
	}
	return false, nil
}

// DB is a database open in upstream LevelDB through levigo.
type DB struct {
	*levigo.DB
	opts   *levigo.Options
	filter *levigo.FilterPolicy
}

// Open opens the database in dir with upstream LevelDB and its bloom filter
// policy of bitsPerKey bits per key, or none when bitsPerKey is negative.
// setup, unless nil, sets more options first. Close the DB to free them.
func Open(dir string, bitsPerKey int, setup func(*levigo.Options)) (*DB, error) {
	d := &DB{opts: levigo.NewOptions()}
	if bitsPerKey >= 0 {
		d.filter = levigo.NewBloomFilter(bitsPerKey)
		d.opts.SetFilterPolicy(d.filter)
	}
	if setup != nil {
		setup(d.opts)
	}
	db, err := levigo.Open(dir, d.opts)
	if err != nil {
		d.Close()
		return nil, err
	}
	d.DB = db
	return d, nil
}

// Close closes the database and frees its options and filter policy.
func (d *DB) Close() {
	if d.DB != nil {
		d.DB.Close()
	}
	if d.filter != nil {
		d.filter.Close()
	}
	d.opts.Close()
}

// GetAll opens the database in dir as Open does, gets every key and closes
// it: vals[i] is nil for a missing key, errs[i] the error of its Get.
func GetAll(dir string, bitsPerKey int, keys [][]byte) (vals [][]byte, errs []error, err error) {
	db, err := Open(dir, bitsPerKey, nil)
	if err != nil {
		return nil, nil, err
	}
	defer db.Close()
	ro := levigo.NewReadOptions()
	defer ro.Close()
	vals = make([][]byte, len(keys))
	errs = make([]error, len(keys))
	for i, k := range keys {
		vals[i], errs[i] = db.Get(ro, k)
	}
	return vals, errs, nil
}

// The kinds of database GenerateLogDB writes, which upstream leaves with
// its writes in the log (for the kit's "recovers upstream's log").
const (
	LogClosed  = "closed"   // writes, then DB::Close, which in 1.23 leaves them in the log
	LogCrash   = "crash"    // synced writes, the directory copied while open
	LogTwoLogs = "two-logs" // synced writes over two logs, as a crash before the flush leaves them
)

// LogDBKinds lists the kinds of GenerateLogDB.
var LogDBKinds = []string{LogClosed, LogCrash, LogTwoLogs}

var logDBKinds = map[string]struct {
	how         string
	sync        bool
	writeBuffer int
}{
	LogClosed: {"puts and deletes without sync, then DB::Close, which in LevelDB 1.23 leaves the memtable in the log", false, 0},
	LogCrash:  {"puts and deletes each with sync, the directory copied while the database was open (as a crash leaves it)", true, 0},
	LogTwoLogs: {"puts and deletes each with sync through a 64 KiB write buffer, which switched to a second log; the directory as a crash leaves it before the flush of the full memtable is recorded: the MANIFEST as DB::Open wrote it, the first log as it was at the switch, the second after the last write",
		true, 64 << 10},
}

// LogDBBitsPerKey is the bloom filter the log databases are written with.
const LogDBBitsPerKey = 10

// GenerateLogDB has upstream write a database of kind (LogDBKinds) in
// dir, which must not exist or be empty, with seeded writes, and leaves
// in dir CURRENT, the MANIFEST and the logs.
func GenerateLogDB(dir, kind string, seed int64) (*fixtures.LogDBInfo, error) {
	k, ok := logDBKinds[kind]
	if !ok {
		return nil, fmt.Errorf("fixturegen: no log database kind %q", kind)
	}
	work, err := os.MkdirTemp("", "fixturegen-logdb-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	rng := rand.New(rand.NewPCG(uint64(seed), 0x6c64626c6f67))
	info := &fixtures.LogDBInfo{Name: kind, How: k.how, Seed: seed, LevelDBVersion: LevelDBVersion(), Arch: runtime.GOARCH, Generator: Generator}
	want := map[string][]byte{}
	deleted := map[string]bool{}
	files, err := writeLogDB(work, rng, info, want, deleted, k.sync, k.writeBuffer)
	if err != nil {
		return nil, fmt.Errorf("fixturegen %s: %w", kind, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var names []string
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		data := files[name]
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return nil, err
		}
		if isLog(name) {
			sum := sha256.Sum256(data)
			info.Logs = append(info.Logs, fixtures.LogFileInfo{File: name, Size: int64(len(data)), SHA256: hex.EncodeToString(sum[:])})
		}
	}
	var kvs [][2][]byte
	for k, v := range want {
		kvs = append(kvs, [2][]byte{[]byte(k), v})
	}
	info.Keys, info.Deleted = len(kvs), len(deleted)
	info.ContentsSHA256 = fixtures.ContentsDigest(kvs)
	return info, nil
}

func isLog(name string) bool {
	_, typ, ok := base.ParseFileName(name)
	return ok && typ == base.LogFile
}

// writeLogDB writes seeded puts and deletes into a new database in work,
// recording them in info, want (live keys) and deleted, and returns the
// files upstream left: with sync, while the database is open. With a
// writeBuffer, the writes go on until a second log, then 100 more.
func writeLogDB(work string, rng *rand.Rand, info *fixtures.LogDBInfo, want map[string][]byte, deleted map[string]bool, sync bool, writeBuffer int) (map[string][]byte, error) {
	db, err := Open(work, LogDBBitsPerKey, func(o *levigo.Options) {
		o.SetCreateIfMissing(true)
		o.SetErrorIfExists(true)
		if writeBuffer > 0 {
			o.SetWriteBufferSize(writeBuffer)
		}
	})
	if err != nil {
		return nil, err
	}
	closed := false
	defer func() {
		if !closed {
			db.Close()
		}
	}()
	wo := levigo.NewWriteOptions()
	defer wo.Close()
	wo.SetSync(sync)
	atOpen, err := fixtures.ReadFiles(work)
	if err != nil {
		return nil, err
	}
	firstLog := ""
	for name := range atOpen {
		if isLog(name) {
			firstLog = name
		}
	}
	var keys [][]byte
	used := map[string]bool{}
	put := func(k []byte) error {
		v := newValue(rng)
		info.Writes++
		want[string(k)] = v
		delete(deleted, string(k))
		return db.Put(wo, k, v)
	}
	// write makes one more write: a new key mostly, else an overwrite or
	// a delete of an earlier one.
	write := func() error {
		switch r := rng.IntN(100); {
		case r < 10 && len(keys) > 0:
			return put(keys[rng.IntN(len(keys))])
		case r < 20 && len(keys) > 0:
			k := keys[rng.IntN(len(keys))]
			info.Writes++
			delete(want, string(k))
			deleted[string(k)] = true
			return db.Delete(wo, k)
		}
		k := newKeys(rng, byte(rng.Uint32()), 1)[0]
		for used[string(k)] {
			k = newKeys(rng, byte(rng.Uint32()), 1)[0]
		}
		used[string(k)] = true
		keys = append(keys, k)
		return put(k)
	}
	writes := func(n int) error {
		for i := 0; i < n; i++ {
			if err := write(); err != nil {
				return err
			}
		}
		return nil
	}
	if writeBuffer == 0 {
		if err := writes(200); err != nil {
			return nil, err
		}
		if !sync {
			db.Close()
			closed = true
		}
		files, err := fixtures.ReadFiles(work)
		for _, n := range volatile {
			delete(files, n)
		}
		return files, err
	}
	// Until the switch: the first log as it was before each write, since
	// the write that switches goes to the second log.
	if firstLog == "" {
		return nil, fmt.Errorf("no log after DB::Open")
	}
	files := map[string][]byte{"CURRENT": atOpen["CURRENT"]}
	for name, data := range atOpen {
		if _, typ, ok := base.ParseFileName(name); ok && typ == base.DescriptorFile {
			files[name] = data
		}
	}
	second := ""
	for i := 0; second == "" && i < 10000; i++ {
		before, err := os.ReadFile(filepath.Join(work, firstLog))
		if err != nil {
			return nil, err
		}
		if err := write(); err != nil {
			return nil, err
		}
		now, err := os.ReadDir(work)
		if err != nil {
			return nil, err
		}
		for _, e := range now {
			if isLog(e.Name()) && e.Name() != firstLog {
				second = e.Name()
			}
		}
		files[firstLog] = before
	}
	if second == "" {
		return nil, fmt.Errorf("the memtable never switched to a second log")
	}
	if err := writes(100); err != nil {
		return nil, err
	}
	files[second], err = os.ReadFile(filepath.Join(work, second))
	return files, err
}
