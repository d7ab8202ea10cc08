//go:build leveldb

package fixturegen

import (
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
)

// The databases upstream leaves with its writes in the log, for the
// kit's "recovers upstream's log": LevelDB 1.23 closes a database without
// flushing its memtable, and a crash leaves the writes since the last
// flush in the log alone.

// The kinds of database GenerateLogDB writes.
const (
	// LogClosed: writes, then DB::Close (delete of the DB), which in
	// 1.23 leaves the memtable's writes in the log.
	LogClosed = "closed"
	// LogCrash: synced writes; the directory copied while the database
	// is open, as a crash of the process leaves it.
	LogCrash = "crash"
	// LogTwoLogs: synced writes through a 64 KiB write buffer, which
	// switches to a new log once full; the directory as a crash leaves
	// it before the full memtable's flush is recorded: the MANIFEST still
	// names the first log, so DB::Open replays both.
	LogTwoLogs = "two-logs"
)

// LogDBKinds lists the kinds of GenerateLogDB.
var LogDBKinds = []string{LogClosed, LogCrash, LogTwoLogs}

// LogDBBitsPerKey is the bloom filter the log databases are written with.
const LogDBBitsPerKey = 10

// GenerateLogDB has upstream write a database of kind (LogDBKinds) in
// dir, which must not exist or be empty, with seeded writes, and leaves
// in dir CURRENT, the MANIFEST and the logs (LOG, LOG.old and LOCK
// removed, as they vary from run to run).
func GenerateLogDB(dir, kind string, seed int64) (*fixtures.LogDBInfo, error) {
	work, err := os.MkdirTemp("", "fixturegen-logdb-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	rng := rand.New(rand.NewPCG(uint64(seed), 0x6c64626c6f67))
	info := &fixtures.LogDBInfo{Name: kind, Seed: seed, LevelDBVersion: LevelDBVersion(), Arch: runtime.GOARCH, Generator: Generator}
	want := map[string][]byte{}
	deleted := map[string]bool{}
	var files map[string][]byte
	switch kind {
	case LogClosed:
		info.How = "puts and deletes without sync, then DB::Close, which in LevelDB 1.23 leaves the memtable in the log"
		files, err = writeLogDB(work, rng, info, want, deleted, false, 0)
	case LogCrash:
		info.How = "puts and deletes each with sync, the directory copied while the database was open (as a crash leaves it)"
		files, err = writeLogDB(work, rng, info, want, deleted, true, 0)
	case LogTwoLogs:
		info.How = "puts and deletes each with sync through a 64 KiB write buffer, which switched to a second log; the directory as a crash leaves it before the flush of the full memtable is recorded: the MANIFEST as DB::Open wrote it, the first log as it was at the switch, the second after the last write"
		files, err = writeLogDB(work, rng, info, want, deleted, true, 64<<10)
	default:
		return nil, fmt.Errorf("fixturegen: no log database kind %q", kind)
	}
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
		if _, typ, ok := base.ParseFileName(name); ok && typ == base.LogFile {
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

// writeLogDB writes the seeded puts and deletes into a new database in
// work, recording them in info, want (live keys) and deleted, and returns
// the files of the directory upstream left: with sync, copied while the
// database is open; else after closing it. A writeBuffer above 0 sets
// write_buffer_size: the writes go on until the memtable switches to a
// second log, then 100 more.
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
	atOpen, err := readDir(work)
	if err != nil {
		return nil, err
	}
	firstLog := ""
	for name := range atOpen {
		if _, typ, ok := base.ParseFileName(name); ok && typ == base.LogFile {
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
	del := func(k []byte) error {
		info.Writes++
		delete(want, string(k))
		deleted[string(k)] = true
		return db.Delete(wo, k)
	}
	// write makes one more write: a new key mostly, else an overwrite or
	// a delete of an earlier one.
	write := func() error {
		switch r := rng.IntN(100); {
		case r < 10 && len(keys) > 0:
			return put(keys[rng.IntN(len(keys))])
		case r < 20 && len(keys) > 0:
			return del(keys[rng.IntN(len(keys))])
		}
		k := newKeys(rng, byte(rng.Uint32()), 1)[0]
		for used[string(k)] {
			k = newKeys(rng, byte(rng.Uint32()), 1)[0]
		}
		used[string(k)] = true
		keys = append(keys, k)
		return put(k)
	}
	if writeBuffer == 0 {
		for i := 0; i < 200; i++ {
			if err := write(); err != nil {
				return nil, err
			}
		}
		if !sync {
			db.Close()
			closed = true
		}
		files, err := readDir(work)
		if err != nil {
			return nil, err
		}
		for _, n := range []string{"LOG", "LOG.old", "LOCK"} {
			delete(files, n)
		}
		return files, nil
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
			if _, typ, ok := base.ParseFileName(e.Name()); ok && typ == base.LogFile && e.Name() != firstLog {
				second = e.Name()
			}
		}
		files[firstLog] = before
	}
	if second == "" {
		return nil, fmt.Errorf("the memtable never switched to a second log")
	}
	for i := 0; i < 100; i++ {
		if err := write(); err != nil {
			return nil, err
		}
	}
	data, err := os.ReadFile(filepath.Join(work, second))
	if err != nil {
		return nil, err
	}
	files[second] = data
	return files, nil
}

// readDir returns the regular files of dir and their contents.
func readDir(dir string) (map[string][]byte, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		out[e.Name()] = data
	}
	return out, nil
}
