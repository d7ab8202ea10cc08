// Package tabledb reads and writes minimal LevelDB databases around a
// filter policy and filter block under test: the compat kit's ReadDB and
// WriteDB hooks for a port with no database of its own. Read answers a Get
// of each key as upstream does when the filter is used, logs included.
package tabledb

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/internal/base"
	"github.com/ldbcompat/ldbcompat/internal/logfile"
	"github.com/ldbcompat/ldbcompat/internal/manifest"
	"github.com/ldbcompat/ldbcompat/internal/manifest/manifesttest"
	"github.com/ldbcompat/ldbcompat/internal/table"
	"github.com/ldbcompat/ldbcompat/internal/table/tabletest"
)

// FilterBlockReader is a filter block reader: leveldb::FilterBlockReader's
// call.
type FilterBlockReader interface {
	KeyMayMatch(blockOffset uint64, key []byte) bool
}

// Write writes kvs (distinct keys, in any order) into the empty directory
// dir as table 5 of a database, snappy-compressed, with a filter block of
// policy p (none when p is nil) built by newBuilder (package bloom's when
// nil), and a MANIFEST listing the table.
func Write(dir string, kvs [][2][]byte, p bloom.FilterPolicy, newBuilder func(bloom.FilterPolicy) tabletest.FilterBlockBuilder) error {
	entries := make([]table.Entry, len(kvs))
	for i, kv := range kvs {
		entries[i] = table.Entry{Key: table.InternalKey{UserKey: kv[0], Seq: uint64(i + 1), Kind: table.KindValue}, Value: kv[1]}
	}
	slices.SortFunc(entries, func(a, b table.Entry) int { return bytes.Compare(a.Key.UserKey, b.Key.UserKey) })
	o := tabletest.Options{Snappy: true, Policy: p, NewFilterBlockBuilder: newBuilder}
	data := tabletest.Build(entries, o)
	if err := os.WriteFile(filepath.Join(dir, "000005.ldb"), data, 0o644); err != nil {
		return err
	}
	tab := manifesttest.Table{Level: 0, Number: 5, Size: uint64(len(data)), LastSequence: uint64(len(kvs))}
	if len(entries) > 0 {
		// A Get looks in no table whose key range misses its key.
		first, last := entries[0].Key, entries[len(entries)-1].Key
		tab.Smallest = manifesttest.InternalKey(string(first.UserKey), first.Seq)
		tab.Largest = manifesttest.InternalKey(string(last.UserKey), last.Seq)
	}
	return manifesttest.WriteDB(dir, 2, tab)
}

// Read reports for each key whether a Get finds it in the tables of dir
// (every *.ldb and *.sst file, newest version first), using the filter
// block of policy p, read by newReader (package bloom's when nil), where
// the table has one of p's name, or in the logs DB::Open replays.
func Read(dir string, p bloom.FilterPolicy, newReader func(bloom.FilterPolicy, []byte) FilterBlockReader, keys [][]byte) ([]bool, error) {
	if newReader == nil {
		newReader = func(p bloom.FilterPolicy, c []byte) FilterBlockReader { return bloom.NewFilterBlockReader(p, c) }
	}
	type version struct {
		seq  uint64
		live bool
	}
	newest := map[string]version{}
	want := map[string]bool{}
	for _, k := range keys {
		want[string(k)] = true
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	for _, e := range ents {
		name := e.Name()
		if !e.Type().IsRegular() || !base.HasTableExt(name) {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		t, err := table.Open(name, bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return nil, err
		}
		var fr FilterBlockReader
		if fname, contents, ok := t.FilterBlock(); ok && fname == p.Name() {
			fr = newReader(p, contents)
		}
		err = t.DataBlocks(func(b *table.DataBlock) error {
			for _, e := range b.Entries {
				uk := e.Key.UserKey
				if !want[string(uk)] || (fr != nil && !fr.KeyMayMatch(b.Handle.Offset, uk)) {
					continue
				}
				if v, ok := newest[string(uk)]; !ok || v.seq < e.Key.Seq {
					newest[string(uk)] = version{e.Key.Seq, e.Key.Kind == table.KindValue}
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	// DB::Open replays the logs into the memtable, read before any table.
	err = replayLogs(dir, ents, func(key []byte, seq uint64, live bool) {
		if v, ok := newest[string(key)]; want[string(key)] && (!ok || v.seq < seq) {
			newest[string(key)] = version{seq, live}
		}
	})
	if err != nil {
		return nil, err
	}
	found := make([]bool, len(keys))
	for i, k := range keys {
		found[i] = newest[string(k)].live
	}
	return found, nil
}

// replayLogs calls put with each op of the logs of dir (entries ents) that
// DB::Open replays (db/db_impl.cc RecoverLogFile), all when the MANIFEST
// cannot be read.
func replayLogs(dir string, ents []os.DirEntry, put func(key []byte, seq uint64, live bool)) error {
	names := make([]string, len(ents))
	for i, e := range ents {
		names[i] = e.Name()
	}
	var logNumber, prevLogNumber uint64
	if v, err := manifest.Read(dir); err == nil {
		logNumber, prevLogNumber = v.LogNumber, v.PrevLogNumber
	}
	for _, n := range logfile.LogsToReplay(names, logNumber, prevLogNumber) {
		name := fmt.Sprintf("%06d.log", n)
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			continue // MaybeIgnoreError: a log that does not open is skipped
		}
		ReplayLog(bytes.NewReader(data), name, func(op logfile.Op, seq uint64, _ int64) {
			put(op.Key, seq, op.Kind != logfile.OpDelete)
		})
	}
	return nil
}

// ReplayLog calls put with each op of the log read from src (named name) and
// its sequence number and record offset, as RecoverLogFile applies them: a
// record shorter than a batch header, or not a batch, is skipped.
func ReplayLog(src io.Reader, name string, put func(op logfile.Op, seq uint64, offset int64)) {
	rd := logfile.NewReader(src, name, logfile.Options{NoDiagnosis: true})
	for {
		r, err := rd.Next()
		if err == io.EOF {
			return
		}
		if err != nil || len(r.Data) < logfile.BatchHeaderSize {
			continue
		}
		b, err := logfile.NewBatch(r.Data)
		if err != nil {
			continue
		}
		seq := b.Sequence
		_, _ = b.Iterate(func(op logfile.Op) {
			put(op, seq, r.Offset)
			seq++
		})
	}
}
