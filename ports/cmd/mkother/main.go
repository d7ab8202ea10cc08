// Command mkother writes the syndtr/goleveldb fixture database of
// testdata/other, and that directory's README.md, for make fixtures-other
// (tools/other/fixtures.sh runs it after the other writers).
//
// Usage:
//
//	go run ./cmd/mkother goleveldb OUTDIR   # writes OUTDIR/goleveldb/ and OUTDIR/goleveldb.json
//	go run ./cmd/mkother readme OUTDIR      # writes OUTDIR/README.md from OUTDIR/*.json
//
// The goleveldb database gets the workload every writer of tools/other
// shares (tools/other/README.md), with goleveldb's bloom filter
// (filter.NewBloomFilter(10)) and its data flushed into tables by
// CompactRange and by reopening. It lives in the ports module because that
// module already depends on goleveldb.
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"

	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/filter"
	"github.com/syndtr/goleveldb/leveldb/opt"
	"github.com/syndtr/goleveldb/leveldb/util"

	"github.com/ldbcompat/ldbcompat/internal/fixtures"
)

func main() {
	if len(os.Args) != 3 || (os.Args[1] != "goleveldb" && os.Args[1] != "readme") {
		fmt.Fprintln(os.Stderr, "usage: mkother goleveldb|readme OUTDIR")
		os.Exit(2)
	}
	var err error
	if os.Args[1] == "goleveldb" {
		err = writeGoleveldb(os.Args[2])
	} else {
		err = writeReadme(os.Args[2])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "mkother:", err)
		os.Exit(1)
	}
}

// fileInfo is one file of a database as written.
type fileInfo struct {
	Name   string `json:"name"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// summary is what the README's table shows of a database's options.
type summary struct {
	Filter      string `json:"filter"`
	BlockSize   int    `json:"block_size"`
	Compression string `json:"compression"`
}

// record is a database's JSON description, as every writer writes it.
type record struct {
	Name          string            `json:"name"`
	About         string            `json:"about"`
	Writer        string            `json:"writer"`
	WriterVersion string            `json:"writer_version"`
	LevelDB       string            `json:"leveldb_version"`
	Language      string            `json:"language"`
	Call          string            `json:"call"`
	Options       map[string]any    `json:"options"`
	Summary       summary           `json:"summary"`
	Workload      workloadSpec      `json:"workload"`
	Steps         []string          `json:"steps"`
	StepMeaning   map[string]string `json:"step_meaning"`
	Counts        map[string]int    `json:"counts"`
	Removed       []string          `json:"removed_after_close"`
	Files         []fileInfo        `json:"files"`
	Expect        expectation       `json:"expect"`
	Generator     string            `json:"generator"`
}

const goleveldbPath = "github.com/syndtr/goleveldb"

var goleveldbSteps = []string{"round", "compact", "snapshot", "round", "compact", "round", "reopen", "round", "reopen"}

func writeGoleveldb(outdir string) error {
	const name = "goleveldb"
	dir := filepath.Join(outdir, name)
	if _, err := os.Stat(dir); err == nil {
		return fmt.Errorf("%s already exists", dir)
	}
	o := &opt.Options{
		ErrorIfExist:         true,
		BlockSize:            4096,
		BlockRestartInterval: 16,
		Compression:          opt.SnappyCompression,
		Filter:               filter.NewBloomFilter(10),
		WriteBuffer:          4 << 20,
		CompactionTableSize:  2 << 20,
	}
	db, err := leveldb.OpenFile(dir, o)
	if err != nil {
		return err
	}
	w := newWorkload(workloadSpec{Seed: 1, New: 60, Overwrite: 20, Delete: 10})
	var snaps []*leveldb.Snapshot
	counts := map[string]int{}
	put := func(k, v []byte) error { return db.Put(k, v, nil) }
	del := func(k []byte) error { return db.Delete(k, nil) }
	for _, step := range goleveldbSteps {
		counts[step+"s"]++
		switch step {
		case "round":
			err = w.round(put, del)
		case "compact":
			err = db.CompactRange(util.Range{})
		case "snapshot":
			var s *leveldb.Snapshot
			if s, err = db.GetSnapshot(); err == nil {
				snaps = append(snaps, s)
			}
		case "reopen":
			for _, s := range snaps {
				s.Release()
			}
			snaps = nil
			if err = db.Close(); err == nil {
				reopen := *o
				reopen.ErrorIfExist = false
				db, err = leveldb.OpenFile(dir, &reopen)
			}
		}
		if err != nil {
			return fmt.Errorf("%s: step %s: %w", dir, step, err)
		}
	}
	for _, s := range snaps {
		s.Release()
	}
	if err := db.Close(); err != nil {
		return err
	}
	removed := []string{"LOG", "LOG.old", "LOCK"}
	for _, n := range removed {
		if err := os.Remove(filepath.Join(dir, n)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	files, err := filesOf(dir)
	if err != nil {
		return err
	}
	counts["puts"], counts["deletes"] = w.puts, w.deletes
	rec := record{
		Name:          name,
		About:         "syndtr/goleveldb with its bloom filter (filter.NewBloomFilter(10)), 4 KiB blocks, snappy",
		Writer:        goleveldbPath,
		WriterVersion: moduleVersion(goleveldbPath),
		LevelDB:       "none: a pure-Go implementation of LevelDB's format",
		Language:      runtime.Version(),
		Call:          "leveldb.OpenFile(dir, options)",
		Options: map[string]any{
			"ErrorIfExist":         true,
			"BlockSize":            4096,
			"BlockRestartInterval": 16,
			"Compression":          "opt.SnappyCompression",
			"Filter":               "filter.NewBloomFilter(10)",
			"WriteBuffer":          4 << 20,
			"CompactionTableSize":  2 << 20,
			"(all others)":         "goleveldb's defaults",
		},
		Summary:  summary{Filter: "filter.NewBloomFilter(10)", BlockSize: 4096, Compression: "snappy"},
		Workload: w.spec,
		Steps:    goleveldbSteps,
		StepMeaning: map[string]string{
			"round":    "one workload round: new keys, overwrites, deletions (tools/other/README.md)",
			"compact":  "db.CompactRange(util.Range{}): flushes the memtable, then compacts every level",
			"snapshot": "db.GetSnapshot(), released before the next reopen",
			"reopen":   "db.Close() and leveldb.OpenFile(dir, options) again: recovery writes the journal's entries into a level-0 table",
		},
		Counts:    counts,
		Removed:   removed,
		Files:     files,
		Expect:    w.expect(),
		Generator: "make fixtures-other (ports/cmd/mkother)",
	}
	data, err := json.MarshalIndent(rec, "", " ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(dir+".json", append(data, '\n'), 0o644); err != nil {
		return err
	}
	fmt.Println("mkother: wrote", dir)
	return nil
}

// moduleVersion is the version of module path this binary was built with.
func moduleVersion(path string) string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, m := range bi.Deps {
			if m.Path == path {
				if m.Replace != nil {
					return m.Version + " => " + m.Replace.Path + " " + m.Replace.Version
				}
				return m.Version
			}
		}
	}
	return "unknown"
}

func filesOf(dir string) ([]fileInfo, error) {
	files, err := fixtures.ReadFiles(dir)
	if err != nil {
		return nil, err
	}
	var out []fileInfo
	for name, data := range files {
		sum := sha256.Sum256(data)
		out = append(out, fileInfo{Name: name, Size: int64(len(data)), SHA256: hex.EncodeToString(sum[:])})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}
