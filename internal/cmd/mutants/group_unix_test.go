//go:build unix

package main

import (
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// gone tells whether process pid has exited (a zombie counts: it runs no
// more), from /proc.
func gone(pid int) bool {
	state, _, _, ok := procStat(pid)
	return !ok || state == "Z" || state == "X"
}

// TestRunGroupedKillsOrphans: a process that outlives its parent in the
// group runGrouped started (as a test binary outlives the go test that
// gremlins stopped at its timeout) is killed while the command still runs,
// and whatever the command leaves running is killed when it exits.
func TestRunGroupedKillsOrphans(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skipf("no /proc here: %v", err)
	}
	prev := sweepEvery
	sweepEvery = 50 * time.Millisecond
	defer func() { sweepEvery = prev }()
	// The inner shell starts a sleep and exits, orphaning it; a second
	// later the outer one says whether it still runs, then leaves a sleep
	// of its own behind.
	script := `pid=$(sh -c 'sleep 30 >/dev/null 2>&1 & echo $!')
sleep 1
state=$(cut -d' ' -f3 /proc/$pid/stat 2>/dev/null)
if [ -n "$state" ] && [ "$state" != Z ]; then echo "orphan $pid alive"; else echo "orphan $pid gone"; fi
sleep 30 >/dev/null 2>&1 &
echo $!`
	cmd := exec.Command("sh", "-c", script)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	if err := runGrouped(cmd); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("runGrouped took %v: it waited for the processes left behind", d)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || !strings.HasSuffix(lines[0], " gone") {
		t.Fatalf("output %q, want the orphan gone while the command ran, then a pid", out.String())
	}
	left, err := strconv.Atoi(lines[1])
	if err != nil {
		t.Fatalf("output %q: %v", out.String(), err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for !gone(left) {
		if time.Now().After(deadline) {
			t.Fatalf("process %d, left running by the command, still runs after it exited", left)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// running returns the processes named name (their comm in /proc) that
// have not exited, waiting up to 5 seconds for those just killed to go.
func running(name string) []int {
	deadline := time.Now().Add(5 * time.Second)
	for {
		var named []int
		for _, pid := range pids() {
			comm, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
			if err == nil && strings.TrimSpace(string(comm)) == name && !gone(pid) {
				named = append(named, pid)
			}
		}
		if len(named) == 0 || time.Now().After(deadline) {
			return named
		}
		time.Sleep(50 * time.Millisecond)
	}
}
