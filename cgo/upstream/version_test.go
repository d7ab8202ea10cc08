//go:build leveldb

package upstream

import (
	"fmt"
	"os/exec"
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
