package verify

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ldbcompat/ldbcompat/internal/logfile"
)

// TestDumpLogCloses: dump closes the file it read (no descriptor of the
// process leads to it afterwards).
func TestDumpLogCloses(t *testing.T) {
	path := writeTemp(t, "000007.log", logfile.WriteLog([][]byte{batchA}))
	if _, code := DumpLog(path, nil); code != ExitOK {
		t.Fatalf("code %d", code)
	}
	checkClosed(t, path)
}

// TestReplayLogsCloses: reading a database's logs leaves none open.
func TestReplayLogsCloses(t *testing.T) {
	dir := copyLogDB(t, "crash")
	openLogDB(t, dir)
	checkClosed(t, filepath.Join(dir, "000003.log"))
}

// checkClosed fails t when a descriptor of the process still leads to
// path.
func checkClosed(t *testing.T, path string) {
	t.Helper()
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real // what /proc/self/fd's links name
	}
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip(err)
	}
	for _, fd := range fds {
		if l, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); err == nil && l == path {
			t.Errorf("descriptor %s still open on %s", fd.Name(), path)
		}
	}
}
