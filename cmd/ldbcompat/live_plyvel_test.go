package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// debianPython is Debian's Python, the one python3-plyvel installs into.
const debianPython = "/usr/bin/python3"

// needPlyvel skips the test with -short (saying what it does: does) and
// where debianPython cannot import plyvel.
func needPlyvel(t *testing.T, does string) {
	t.Helper()
	if testing.Short() {
		t.Skip("skipping in -short mode: " + does)
	}
	if out, err := exec.Command(debianPython, "-c", "import plyvel").CombinedOutput(); err != nil {
		t.Skipf("skipping: %s cannot import plyvel (on Debian or Ubuntu: apt-get install python3-plyvel): %v: %s",
			debianPython, err, strings.TrimSpace(string(out)))
	}
}

// plyvelWriter keeps writing into the database at argv[1] through plyvel
// (Debian's C++ LevelDB 1.23) until its stdin is closed: batches of puts
// and deletes, with a 64 KiB write buffer (so memtables are flushed and
// level 0 compacted in the background), a snapshot retaken every 5
// batches, a flush every 4 (compact_range over a range with no key) and a
// manual compaction of a random tenth of the keys every 6. It prints a JSON
// line of counts when the database has tables ("ready"), after each flush
// ("flushed") and when it has closed the database ("done").
const plyvelWriter = `
import json, random, sys, threading
import plyvel

db = plyvel.DB(sys.argv[1], create_if_missing=True, error_if_exists=True,
               write_buffer_size=64 << 10, block_size=1024,
               bloom_filter_bits=10, compression=None)
rng = random.Random(11)
n = {"puts": 0, "deletes": 0, "flushes": 0, "compactions": 0, "snapshots": 0}

def key():
    return b"k%07d" % rng.randrange(1000000) + rng.randbytes(rng.randrange(4))

def batch():
    for _ in range(100):
        db.put(key(), rng.randbytes(200))
        n["puts"] += 1
    for _ in range(10):
        db.delete(key())
        n["deletes"] += 1

def flush():
    db.compact_range(start=b"\xff", stop=b"\xff\xff")
    n["flushes"] += 1

def report(what):
    print(json.dumps(dict(n, state=what)), flush=True)

for _ in range(20):
    batch()
flush()
report("ready")

stop = threading.Event()
def wait_stdin():
    sys.stdin.read()
    stop.set()
threading.Thread(target=wait_stdin, daemon=True).start()

snap = None
i = 0
while not stop.is_set():
    i += 1
    batch()
    if i % 5 == 0:
        if snap is not None:
            snap.close()
        snap = db.snapshot()
        n["snapshots"] += 1
    if i % 4 == 0:
        flush()
        report("flushed")
    if i % 6 == 0:
        lo = rng.randrange(900000)
        db.compact_range(start=b"k%07d" % lo, stop=b"k%07d" % (lo + 100000))
        n["compactions"] += 1
if snap is not None:
    snap.close()
db.close()
report("done")
`

// writerCounts is a line the writer prints.
type writerCounts struct {
	State       string `json:"state"`
	Puts        int    `json:"puts"`
	Deletes     int    `json:"deletes"`
	Flushes     int    `json:"flushes"`
	Compactions int    `json:"compactions"`
	Snapshots   int    `json:"snapshots"`
}

// TestVerifyWhilePlyvelWrites: `ldbcompat verify`, built with go build and
// run as its own process, on a database that another process, plyvel over
// Debian's C++ LevelDB, keeps writing to, flushing and compacting all
// along: ten runs in a row must each exit 0, every table read verifying.
func TestVerifyWhilePlyvelWrites(t *testing.T) {
	needPlyvel(t, "builds the CLI and runs a plyvel writer")
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "ldbcompat")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	script := filepath.Join(tmp, "writer.py")
	if err := os.WriteFile(script, []byte(plyvelWriter), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(tmp, "db")

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	w := exec.CommandContext(ctx, debianPython, script, dir)
	stdin, err := w.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := w.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	w.Stderr = &stderr
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	// The writer's latest line, read all along so that it never blocks.
	var (
		mu     sync.Mutex
		latest writerCounts
	)
	news := make(chan struct{}, 1)
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			var c writerCounts
			if json.Unmarshal(sc.Bytes(), &c) == nil {
				mu.Lock()
				latest = c
				mu.Unlock()
				select {
				case news <- struct{}{}:
				default:
				}
			}
		}
		_, _ = io.Copy(io.Discard, stdout)
	}()
	current := func() writerCounts {
		mu.Lock()
		defer mu.Unlock()
		return latest
	}
	// waitFor waits for a line from the writer that ok accepts.
	waitFor := func(what string, ok func(writerCounts) bool) writerCounts {
		t.Helper()
		deadline := time.After(2 * time.Minute)
		for {
			if c := current(); ok(c) {
				return c
			}
			select {
			case <-news:
			case <-readDone:
				if c := current(); ok(c) {
					return c
				}
				t.Fatalf("the plyvel writer ended before %s: %+v\nstderr:\n%s", what, current(), stderr.String())
			case <-deadline:
				t.Fatalf("no %s from the plyvel writer after 2 minutes: %+v\nstderr:\n%s", what, current(), stderr.String())
			}
		}
	}
	stopped := false
	stop := func() (writerCounts, error) {
		stopped = true
		stdin.Close()
		<-readDone
		err := w.Wait()
		last := current()
		if err == nil && last.State != "done" {
			err = errors.New("the writer did not report closing the database")
		}
		return last, err
	}
	defer func() {
		if !stopped {
			cancel()
			_, _ = stop()
		}
	}()

	ready := waitFor("ready", func(c writerCounts) bool { return c.State != "" })

	summary := regexp.MustCompile(`(?m)^(\d+) tables?(?:: (\d+) ok)?(; (\d+) table files? skipped \(not live\))?$`)
	checked, skipped := 0, 0
	last := ready
	for run := 0; run < 10; run++ {
		// A flush at least since the last run: each run sees tables that
		// the one before did not.
		last = waitFor("flush", func(c writerCounts) bool { return c.Flushes > last.Flushes })
		cmd := exec.Command(bin, "verify", dir)
		var o, e strings.Builder
		cmd.Stdout, cmd.Stderr = &o, &e
		err := cmd.Run()
		code := 0
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			code = exit.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		m := summary.FindStringSubmatch(o.String())
		if code != 0 || m == nil || (m[1] != m[2] && !(m[1] == "0" && m[2] == "")) {
			t.Fatalf("run %d: exit %d\nstdout:\n%s\nstderr:\n%s", run, code, o.String(), e.String())
		}
		n, _ := strconv.Atoi(m[1])
		s, _ := strconv.Atoi(m[4])
		checked += n
		skipped += s
	}
	done, err := stop()
	if err != nil {
		t.Fatalf("plyvel writer: %v\nstderr:\n%s", err, stderr.String())
	}
	during := writerCounts{Puts: done.Puts - ready.Puts, Deletes: done.Deletes - ready.Deletes,
		Flushes: done.Flushes - ready.Flushes, Compactions: done.Compactions - ready.Compactions}
	if checked == 0 || during.Puts == 0 {
		t.Fatalf("%d tables checked, %d puts during the runs: nothing was tested", checked, during.Puts)
	}
	t.Logf("10 runs: %d tables checked, %d table files skipped; meanwhile plyvel wrote %d puts and %d deletes, with %d flushes and %d manual compactions",
		checked, skipped, during.Puts, during.Deletes, during.Flushes, during.Compactions)
}
