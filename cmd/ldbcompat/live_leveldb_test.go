//go:build leveldb

package main

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/jmhodges/levigo"

	"github.com/ldbcompat/ldbcompat/cgo/upstream"
	"github.com/ldbcompat/ldbcompat/internal/verify"
)

// TestVerifyWhileLevelDBWrites: `verify` on a database that upstream
// LevelDB has open and is writing to, flushing and compacting all along:
// tables being written and tables being deleted come and go, and every run
// must still exit 0, every table it reads verifying (old-filter for a
// release before v1.18).
func TestVerifyWhileLevelDBWrites(t *testing.T) {
	dir := t.TempDir()
	opts := levigo.NewOptions()
	defer opts.Close()
	opts.SetCreateIfMissing(true)
	opts.SetWriteBufferSize(32 << 10)
	opts.SetBlockSize(1024)
	fp := levigo.NewBloomFilter(10)
	defer fp.Close()
	opts.SetFilterPolicy(fp)
	opts.SetCompression(levigo.NoCompression)
	db, err := levigo.Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	wo := levigo.NewWriteOptions()
	defer wo.Close()
	put := func(rng *rand.Rand, n int) error {
		v := make([]byte, 200)
		for i := 0; i < n; i++ {
			for j := range v {
				v[j] = byte(rng.Uint32())
			}
			if err := db.Put(wo, []byte(fmt.Sprintf("k%07d", rng.IntN(1_000_000))), v); err != nil {
				return err
			}
		}
		return nil
	}
	rng := rand.New(rand.NewPCG(7, 8))
	if err := put(rng, 2000); err != nil { // some tables to start with
		t.Fatal(err)
	}

	var stop atomic.Bool
	var wg sync.WaitGroup
	var writeErr error
	var writes atomic.Int64
	wg.Add(1)
	go func() {
		defer wg.Done()
		rng := rand.New(rand.NewPCG(9, 10))
		for !stop.Load() {
			if err := put(rng, 100); err != nil {
				writeErr = err
				return
			}
			writes.Add(100)
		}
	}()
	// Every table is ok, or old-filter when the release predates v1.18
	// (its filter is leveldb.BuiltinBloomFilter, which 1.23 ignores).
	verdict := "ok"
	if upstream.LegacyBloom() {
		verdict = "old-filter"
	}
	summary := regexp.MustCompile(`(?m)^(\d+) tables?(?:: (\d+) ` + verdict + `)?(; (\d+) table files? skipped \(not live\))?$`)
	checked, skipped := 0, 0
	for run := 0; run < 20; run++ {
		code, stdout, stderr := runCmd(t, "verify", dir)
		m := summary.FindStringSubmatch(stdout)
		if code != verify.ExitOK || m == nil || (m[1] != m[2] && !(m[1] == "0" && m[2] == "")) {
			stop.Store(true)
			wg.Wait()
			t.Fatalf("run %d: exit %d\nstdout:\n%s\nstderr:\n%s", run, code, stdout, stderr)
		}
		n, _ := strconv.Atoi(m[1])
		s, _ := strconv.Atoi(m[4])
		checked += n
		skipped += s
	}
	stop.Store(true)
	wg.Wait()
	if writeErr != nil {
		t.Fatal(writeErr)
	}
	if checked == 0 || writes.Load() == 0 {
		t.Fatalf("%d tables checked, %d writes during the runs: nothing was tested", checked, writes.Load())
	}
	t.Logf("20 runs: %d tables checked, %d table files skipped; %d writes meanwhile", checked, skipped, writes.Load())
}
