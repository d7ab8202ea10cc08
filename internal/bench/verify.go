//go:build leveldb

package bench

import (
	"bytes"
	"encoding/binary"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/jmhodges/levigo"

	"github.com/ldbcompat/ldbcompat/internal/filtercheck"
	"github.com/ldbcompat/ldbcompat/internal/table"
)

var (
	dbDir   = flag.String("db", "", "database to verify; written there with upstream if it does not exist (default: a temporary one)")
	entries = flag.Int("entries", 300000, "entries of the generated database")
)

// Verify measures, over a database upstream wrote, how many megabytes of
// table files per second of CPU time one core checks: first in this process
// (table.Open and filtercheck.CompareTable on each table, what `ldbcompat verify`
// does per table), then with the `ldbcompat verify` command itself, run
// with GOMAXPROCS=1.
func Verify(rounds int) (Extra, error) {
	dir := *dbDir
	if dir == "" {
		tmp, err := os.MkdirTemp("", "benchcmp-db-")
		if err != nil {
			return Extra{}, err
		}
		defer os.RemoveAll(tmp)
		dir = filepath.Join(tmp, "db")
	}
	if _, err := os.Stat(dir); os.IsNotExist(err) {
		if err := WriteDB(dir, *entries); err != nil {
			return Extra{}, fmt.Errorf("bench: writing the database: %w", err)
		}
	}
	tables, size, err := tableFiles(dir)
	if err != nil {
		return Extra{}, err
	}
	mb := float64(size) / 1e6
	e := Extra{Name: "verify"}

	// In process, one goroutine and GOMAXPROCS=1, timed in CPU time of
	// the whole process (the garbage collector's included), so that other
	// programs on the machine do not count.
	var inproc []float64
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1)) // as the command below
	runtime.GC()
	for r := 0; r < rounds; r++ {
		start := cpuTime()
		for _, path := range tables {
			if err := checkTable(path); err != nil {
				return e, err
			}
		}
		s := (cpuTime() - start).Seconds()
		inproc = append(inproc, mb/s)
		e.Lines = append(e.Lines, fmt.Sprintf("BenchmarkVerifyTables/impl=go \t1\t%.1f MB/s", mb/s))
	}
	e.Text = fmt.Sprintf("%d tables, %.1f MB (written by upstream, snappy, 10 bits/key): "+
		"table read + filter rebuild in process %.0f MB per CPU-second",
		len(tables), mb, median(inproc))

	// The command, if it builds. Naming it by import path works from this
	// module and from one that replaces it, such as ports.
	bin := filepath.Join(os.TempDir(), fmt.Sprintf("benchcmp-ldbcompat-%d", os.Getpid()))
	defer os.Remove(bin)
	const cmdPath = "github.com/ldbcompat/ldbcompat/cmd/ldbcompat"
	if out, err := exec.Command("go", "build", "-o", bin, cmdPath).CombinedOutput(); err != nil {
		e.Text += fmt.Sprintf("; `ldbcompat verify` not measured (go build %s: %s)",
			cmdPath, strings.TrimSpace(string(out)))
		return e, nil
	}
	var cli []float64
	for r := 0; r < rounds; r++ {
		cmd := exec.Command(bin, "verify", dir)
		cmd.Env = append(os.Environ(), "GOMAXPROCS=1")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			return e, fmt.Errorf("bench: ldbcompat verify %s: %v\n%s", dir, err, out.String())
		}
		cpu := (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds()
		cli = append(cli, mb/cpu)
		e.Lines = append(e.Lines, fmt.Sprintf("BenchmarkVerifyCLI/impl=go \t1\t%.1f MB/s", mb/cpu))
	}
	e.Text += fmt.Sprintf("; `ldbcompat verify` (GOMAXPROCS=1) %.0f MB per CPU-second", median(cli))
	return e, nil
}

// checkTable does what `ldbcompat verify` does with one table.
func checkTable(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	t, err := table.Open(path, f, fi.Size())
	if err != nil {
		return err
	}
	r, err := filtercheck.CompareTable(t)
	if err != nil {
		return err
	}
	if r.Match != filtercheck.MatchOK {
		return fmt.Errorf("bench: %s: filter block %s", path, r.Match)
	}
	return nil
}

// tableFiles lists dir's tables and their total size.
func tableFiles(dir string) ([]string, int64, error) {
	var tables []string
	var size int64
	for _, pat := range []string{"*.ldb", "*.sst"} {
		m, err := filepath.Glob(filepath.Join(dir, pat))
		if err != nil {
			return nil, 0, err
		}
		for _, p := range m {
			fi, err := os.Stat(p)
			if err != nil {
				return nil, 0, err
			}
			size += fi.Size()
			tables = append(tables, p)
		}
	}
	if len(tables) == 0 {
		return nil, 0, fmt.Errorf("bench: no tables in %s", dir)
	}
	return tables, size, nil
}

// WriteDB writes a database of n entries with upstream, shaped like
// db_bench's: 16-byte keys (decimal numbers) in random order, 100-byte
// values that snappy halves, 10 bits/key bloom filters, 4 KiB blocks; then
// it compacts the whole range.
func WriteDB(dir string, n int) error {
	opts := levigo.NewOptions()
	defer opts.Close()
	fp := levigo.NewBloomFilter(DefaultBitsPerKey)
	defer fp.Close()
	opts.SetCreateIfMissing(true)
	opts.SetErrorIfExists(true)
	opts.SetFilterPolicy(fp)
	opts.SetCompression(levigo.SnappyCompression)
	db, err := levigo.Open(dir, opts)
	if err != nil {
		return err
	}
	defer db.Close()
	wo := levigo.NewWriteOptions()
	defer wo.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	val := make([]byte, 100)
	batch := levigo.NewWriteBatch()
	defer batch.Close()
	for i := 0; i < n; i++ {
		key := fmt.Appendf(nil, "%016d", rng.Uint64N(uint64(n)*10))
		for j := 0; j < 50; j += 8 {
			binary.LittleEndian.PutUint64(val[j:], rng.Uint64())
		}
		for j := 50; j < 100; j++ {
			val[j] = 'v'
		}
		batch.Put(key, val)
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

// cpuTime returns the user and system CPU time this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
