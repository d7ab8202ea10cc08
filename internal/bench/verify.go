//go:build leveldb

package bench

import (
	"bytes"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/jmhodges/levigo"

	"github.com/ldbcompat/ldbcompat/cgo/upstream"
)

var (
	dbDir        = flag.String("db", "", "the database of 16-byte keys and 100-byte values; written there with upstream if it does not exist (default: a temporary one)")
	entries      = flag.Int("entries", 300000, "entries of the generated -db database")
	smallDBDir   = flag.String("smalldb", "", "the database of small keys (1 to 30 bytes); written there with upstream if it does not exist (default: a temporary one)")
	smallEntries = flag.Int("smallentries", 1000000, "keys written into the generated -smalldb database")
)

// A benchDB is a database that Verify measures, and how to write it.
type benchDB struct {
	name  string // in benchmark names: db=<name>
	dir   string // "" for a temporary one
	shape string // what it holds, for the report
	write func(dir string) error
}

func benchDBs() []benchDB {
	return []benchDB{
		{
			name:  "values",
			dir:   *dbDir,
			shape: fmt.Sprintf("%d puts of 16-byte keys and 100-byte values", *entries),
			write: func(dir string) error { return WriteDB(dir, *entries) },
		},
		{
			name:  "smallkeys",
			dir:   *smallDBDir,
			shape: fmt.Sprintf("%d puts of random 1- to 30-byte keys and %d-byte values", *smallEntries, SmallValueLen),
			write: func(dir string) error { return WriteSmallDB(dir, *smallEntries) },
		},
	}
}

// Verify measures, over each database of benchDBs (written by upstream if
// missing), the CPU time of `ldbcompat verify` (GOMAXPROCS=1) against that
// of upstream's full scan (upstream.TimeDBScan, on a hard-linked copy),
// alternating round by round, both from the page cache, and reports the
// median of the rounds' ratios and the ratio of the fastest runs.
func Verify(rounds int) ([]Extra, error) {
	var out []Extra
	for _, db := range benchDBs() {
		e, err := verifyDB(db, rounds)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

func verifyDB(db benchDB, rounds int) (Extra, error) {
	e := Extra{Name: "verify, db=" + db.name}
	dir := db.dir
	if dir == "" {
		tmp, err := os.MkdirTemp("", "benchcmp-db-")
		if err != nil {
			return e, err
		}
		defer os.RemoveAll(tmp)
		dir = filepath.Join(tmp, "db")
	}
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		start := time.Now()
		if err := db.write(dir); err != nil {
			return e, fmt.Errorf("bench: writing the database %s: %w", dir, err)
		}
		fmt.Fprintf(os.Stderr, "bench: wrote %s (%s) in %v\n", dir, db.shape, time.Since(start).Round(time.Millisecond))
	}
	tables, size, err := warmTables(dir)
	if err != nil {
		return e, err
	}
	mb := float64(size) / 1e6
	name := "db=" + db.name
	e.Name = fmt.Sprintf("verify, db=%s (%s; %d tables, %.1f MB, snappy, 10 bits/key)",
		db.name, db.shape, tables, mb)

	// By import path, which works from a module that replaces this one.
	bin := filepath.Join(os.TempDir(), fmt.Sprintf("benchcmp-ldbcompat-%d", os.Getpid()))
	defer os.Remove(bin)
	const cmdPath = "github.com/ldbcompat/ldbcompat/cmd/ldbcompat"
	if out, err := exec.Command("go", "build", "-o", bin, cmdPath).CombinedOutput(); err != nil {
		e.Text = fmt.Sprintf("`ldbcompat verify` not measured (go build %s: %s)",
			cmdPath, strings.TrimSpace(string(out)))
		return e, nil
	}
	scanDir, cleanup, err := linkCopy(dir)
	if err != nil {
		return e, err
	}
	defer cleanup()
	// A new process's CPU time varies more: readRounds rounds each.
	warm, err := alternate(readRounds*rounds, bin, dir, scanDir)
	if err != nil {
		return e, err
	}
	e.Lines = append(e.Lines, warm.lines("BenchmarkReadDB", name, mb)...)
	cli, scan := warm.cli, warm.scan
	e.Text = fmt.Sprintf("verify / upstream scan %.2f (median of %d rounds' ratios; of the fastest runs %.2f); "+
		"`ldbcompat verify` (GOMAXPROCS=1) %.3f CPU-s, %.0f MB per CPU-second; "+
		"upstream scan (DB::Open, one iterator, verify_checksums, no fill_cache; %d entries) %.3f CPU-s",
		medianRatio(cli, scan), len(cli), slices.Min(cli)/slices.Min(scan),
		median(cli), mb/median(cli), warm.scanned.Entries, median(scan))
	return e, nil
}

// readRuns is the CPU-seconds of each round's `ldbcompat verify` and
// upstream scan, and the last scan.
type readRuns struct {
	cli, scan []float64
	scanned   upstream.DBScan
}

// lines returns the runs as benchstat lines of bench/name, of mb MB.
func (r readRuns) lines(bench, name string, mb float64) []string {
	var out []string
	for i := range r.cli {
		out = append(out,
			fmt.Sprintf("%s/%s/impl=go-verify \t1\t%.4f cpu-sec/op\t%.1f MB/s", bench, name, r.cli[i], mb/r.cli[i]),
			fmt.Sprintf("%s/%s/impl=c++-scan \t1\t%.4f cpu-sec/op\t%.1f MB/s", bench, name, r.scan[i], mb/r.scan[i]))
	}
	return out
}

// alternate runs `ldbcompat verify` (bin) on dir and upstream's scan on
// scanDir in n rounds, each first in every other round.
func alternate(n int, bin, dir, scanDir string) (runs readRuns, err error) {
	for r := 0; r < n; r++ {
		for i := 0; i < 2; i++ {
			if (r+i)%2 == 0 {
				cpuSec, err := runVerify(bin, dir)
				if err != nil {
					return runs, err
				}
				runs.cli = append(runs.cli, cpuSec)
				continue
			}
			runtime.GC() // so that the Go runtime does little meanwhile
			s, err := upstream.TimeDBScan(scanDir)
			if err != nil {
				return runs, err
			}
			runs.scanned = s
			runs.scan = append(runs.scan, s.CPU.Seconds())
		}
	}
	return runs, nil
}

// medianRatio is the median of the ratios a[r] / b[r]: a round's two runs
// saw much the same machine.
func medianRatio(a, b []float64) float64 {
	ratios := make([]float64, len(a))
	for r := range a {
		ratios[r] = a[r] / b[r]
	}
	return median(ratios)
}

// readRounds is Verify's rounds per round of the other benchmarks.
const readRounds = 3

// runVerify runs `ldbcompat verify dir` with GOMAXPROCS=1 and returns its
// CPU time (user and system) in seconds.
func runVerify(bin, dir string) (float64, error) {
	cmd := exec.Command(bin, "verify", dir)
	cmd.Env = append(os.Environ(), "GOMAXPROCS=1")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("bench: ldbcompat verify %s: %v\n%s", dir, err, out.String())
	}
	return (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds(), nil
}

// linkCopy makes a copy of the database dir for upstream's DB::Open, which
// writes: tables hard-linked where it can, other files copied, but LOCK
// and the info logs. cleanup removes the copy.
func linkCopy(dir string) (copyDir string, cleanup func(), err error) {
	tmp, err := os.MkdirTemp("", "benchcmp-scan-")
	if err != nil {
		return "", nil, err
	}
	cleanup = func() { os.RemoveAll(tmp) }
	ents, err := os.ReadDir(dir)
	if err != nil {
		cleanup()
		return "", nil, err
	}
	for _, ent := range ents {
		n := ent.Name()
		if !ent.Type().IsRegular() || n == "LOCK" || n == "LOG" || n == "LOG.old" {
			continue
		}
		src, dst := filepath.Join(dir, n), filepath.Join(tmp, n)
		if strings.HasSuffix(n, ".ldb") || strings.HasSuffix(n, ".sst") {
			if os.Link(src, dst) == nil {
				continue
			}
		}
		b, err := os.ReadFile(src)
		if err == nil {
			err = os.WriteFile(dst, b, 0o666)
		}
		if err != nil {
			cleanup()
			return "", nil, fmt.Errorf("bench: copying %s: %w", src, err)
		}
	}
	return tmp, cleanup, nil
}

// warmTables reads dir's tables once, into the page cache, and returns
// their number and total size.
func warmTables(dir string) (tables int, size int64, err error) {
	for _, pat := range []string{"*.ldb", "*.sst"} {
		m, err := filepath.Glob(filepath.Join(dir, pat))
		if err != nil {
			return 0, 0, err
		}
		for _, p := range m {
			f, err := os.Open(p)
			if err != nil {
				return 0, 0, err
			}
			n, err := io.Copy(io.Discard, f)
			f.Close()
			if err != nil {
				return 0, 0, fmt.Errorf("bench: reading %s: %w", p, err)
			}
			size += n
			tables++
		}
	}
	if tables == 0 {
		return 0, 0, fmt.Errorf("bench: no tables in %s", dir)
	}
	return tables, size, nil
}

// WriteDB writes a database of n entries with upstream, shaped like
// db_bench's: 16-byte decimal keys in random order, 100-byte values that
// snappy halves.
func WriteDB(dir string, n int) error {
	rng := rand.New(rand.NewPCG(1, 2))
	val := make([]byte, 100)
	return writeDB(dir, n, func(i int) (key, value []byte) {
		key = fmt.Appendf(nil, "%016d", rng.Uint64N(uint64(n)*10))
		for j := 0; j < 50; j += 8 {
			binary.LittleEndian.PutUint64(val[j:], rng.Uint64())
		}
		for j := 50; j < 100; j++ {
			val[j] = 'v'
		}
		return key, val
	})
}

// SmallValueLen is the length of WriteSmallDB's values.
const SmallValueLen = 8

// WriteSmallDB writes a database of n puts with upstream: keys of 1 to 30
// random bytes (the shortest repeat), values of SmallValueLen random bytes.
func WriteSmallDB(dir string, n int) error {
	rng := rand.New(rand.NewPCG(7, 30))
	key := make([]byte, 30)
	val := make([]byte, SmallValueLen)
	return writeDB(dir, n, func(i int) ([]byte, []byte) {
		k := key[:1+rng.IntN(30)]
		for j := range k {
			k[j] = byte(rng.Uint32())
		}
		for j := range val {
			val[j] = byte(rng.Uint32())
		}
		return k, val
	})
}

// writeDB writes n puts of next's keys and values with upstream, in
// batches of 1000, with 10 bits/key bloom filters, 4 KiB blocks and snappy,
// then compacts the whole range.
func writeDB(dir string, n int, next func(i int) (key, value []byte)) error {
	opts := levigo.NewOptions()
	defer opts.Close()
	fp := levigo.NewBloomFilter(DefaultBitsPerKey)
	defer fp.Close()
	opts.SetCreateIfMissing(true)
	opts.SetErrorIfExists(true)
	opts.SetFilterPolicy(fp)
	opts.SetCompression(levigo.SnappyCompression)
	opts.SetBlockSize(BlockSize)
	db, err := levigo.Open(dir, opts)
	if err != nil {
		return err
	}
	defer db.Close()
	wo := levigo.NewWriteOptions()
	defer wo.Close()
	batch := levigo.NewWriteBatch()
	defer batch.Close()
	for i := 0; i < n; i++ {
		batch.Put(next(i))
		if i%1000 == 999 {
			if err := db.Write(wo, batch); err != nil {
				return err
			}
			batch.Clear()
		}
	}
	if err := db.Write(wo, batch); err != nil {
		return err
	}
	db.CompactRange(levigo.Range{})
	return nil
}
