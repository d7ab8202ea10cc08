//go:build leveldb

package upstream

import (
	"fmt"
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
