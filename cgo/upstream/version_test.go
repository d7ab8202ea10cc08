//go:build leveldb

package upstream

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The headers and docker/build-leveldb.sh's name for the build agree: a
// release 1.N declares kMajorVersion 1 and kMinorVersion N; main declares at
// least 1.23 (the last release). Filters exist from 1.4.
func TestVersion(t *testing.T) {
	major, minor := Version()
	rel := Release()
	t.Logf("LevelDB headers say %d.%d; release %q; build %q", major, minor, rel, BuildID())
	if major != 1 || minor < 4 {
		t.Errorf("Version() = %d.%d, want 1.4 or later", major, minor)
	}
	switch {
	case rel == "":
		if BuildID() != "" {
			t.Errorf("BuildID() = %q without a Release()", BuildID())
		}
		t.Log("built without docker/build-leveldb.sh --print-env's CGO_CXXFLAGS: no release name")
	case strings.HasPrefix(rel, "main-"):
		if major != 1 || minor < 23 {
			t.Errorf("Release() = %q but the headers say %d.%d, before the last release 1.23", rel, major, minor)
		}
	default:
		if want := fmt.Sprintf("%d.%d", major, minor); rel != want {
			t.Errorf("Release() = %q but the headers say %s", rel, want)
		}
	}
	if rel != "" && len(BuildID()) != 16 {
		t.Errorf("BuildID() = %q, want 16 hex digits", BuildID())
	}
	if want := major == 1 && minor <= 17; LegacyBloom() != want {
		t.Errorf("LegacyBloom() = %v for %d.%d", LegacyBloom(), major, minor)
	}
}

// Compiler names the compiler and the version it gives for itself: for the
// compiler cgo used (go env CXX), when it can be run here, the version its
// -dumpfullversion (gcc) or -dumpversion (clang) prints.
func TestCompiler(t *testing.T) {
	c := Compiler()
	t.Logf("shim built by %q", c)
	f := strings.Fields(c)
	if len(f) < 2 || (f[0] != "g++" && f[0] != "clang++") {
		t.Fatalf("Compiler() = %q, want g++ or clang++ and a version", c)
	}
	out, err := exec.Command("go", "env", "CXX").Output()
	if err != nil {
		t.Skipf("go env CXX: %v", err)
	}
	cxx := strings.Fields(string(out))
	if len(cxx) == 0 {
		t.Skip("go env CXX is empty")
	}
	flag := "-dumpfullversion"
	if f[0] == "clang++" {
		flag = "-dumpversion"
	}
	out, err = exec.Command(cxx[0], append(cxx[1:], flag)...).Output()
	if err != nil {
		t.Skipf("%s %s: %v", strings.Join(cxx, " "), flag, err)
	}
	if v := strings.TrimSpace(string(out)); f[1] != v {
		t.Errorf("Compiler() = %q, but %s %s says %s", c, cxx[0], flag, v)
	}
}

// Reword's rules are the linked release's own words: a table too short to
// be one, and a CURRENT naming a MANIFEST that does not exist.
func TestReword(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "000007.sst"), make([]byte, 47), 0o644); err != nil { // every release reads .sst
		t.Fatal(err)
	}
	r, err := ReadTable(dir, 7, 47, TableOptions{PolicyName: BloomName(10), BitsPerKey: 10})
	if err != nil {
		t.Fatal(err)
	}
	if want := Reword("Corruption: file is too short to be an sstable"); r.OpenStatus != want {
		t.Errorf("short table: upstream %q, Reword %q", r.OpenStatus, want)
	}
	if err := os.WriteFile(filepath.Join(dir, "CURRENT"), []byte("MANIFEST-000003\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := RecoverManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "MANIFEST-000003")
	if want := Reword("Corruption: CURRENT points to a non-existent file: NotFound: " + path + ": No such file or directory"); m.Status != want {
		t.Errorf("missing MANIFEST: upstream %q, Reword %q", m.Status, want)
	}
	if got := Reword("Corruption: bad block type"); got != "Corruption: bad block type" {
		t.Errorf("Reword changed a status every release words alike: %q", got)
	}
}
