package docker_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestMakeStopsWithoutLevelDB: every make target that needs upstream
// LevelDB stops at once, exit status non-zero and the fetch error its last
// words, when LevelDB cannot be had, and runs nothing of the suite. The
// repository's Makefile, docker/ and tools/ are copied to an empty tree
// (so no LevelDB build is cached there), and the tarball given for v1.17 is
// not one: fetch-leveldb.sh refuses it before trying any other source. GO
// is a program that records any call, which must not happen.
func TestMakeStopsWithoutLevelDB(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped with -short: runs make")
	}
	for _, tool := range []string{"make", "bash", "tar", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("skipped: no %s on PATH", tool)
		}
	}
	root := t.TempDir()
	for _, p := range []string{"Makefile", "docker", "tools"} {
		if out, err := exec.Command("cp", "-R", filepath.Join("..", p), filepath.Join(root, p)).CombinedOutput(); err != nil {
			t.Fatalf("cp %s: %v\n%s", p, err, out)
		}
	}
	bad := filepath.Join(root, "not-a-tarball.tar.gz")
	calls := filepath.Join(root, "go-calls")
	fakeGo := filepath.Join(root, "fake-go")
	if err := os.WriteFile(bad, []byte("no tarball here\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// `go env` answers (the Makefile asks for GOARCH as it is read);
	// anything else is recorded.
	realGo, _ := exec.LookPath("go")
	script := "#!/bin/sh\nif [ \"$1\" = env ]; then exec " + realGo + " \"$@\"; fi\necho \"$@\" >>" + calls + "\nexit 1\n"
	if err := os.WriteFile(fakeGo, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	const fetchErr = "is not a readable gzip-compressed tar archive"
	for _, target := range []string{"compat-native", "compat", "vectors", "vectors-check", "fixtures", "lint", "ports", "bench", "fuzz", "leveldb"} {
		t.Run(target, func(t *testing.T) {
			os.Remove(calls)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, "make", "--no-print-directory", "-C", root, target,
				"LEVELDB_VERSION=v1.17", "LEVELDB_TARBALL="+bad, "GO="+fakeGo, "COMPAT_IN=native", "FUZZTIME=1x")
			// No sources directory and no route to GitHub are needed:
			// the tarball given is refused first.
			cmd.Env = append(os.Environ(), "LEVELDB_SOURCES=", "LEVELDB_FETCH_TIMEOUT=5")
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			err := cmd.Run()
			if err == nil {
				t.Fatalf("make %s succeeded without LevelDB:\n%s", target, &out)
			}
			if got, _ := os.ReadFile(calls); len(got) > 0 {
				t.Errorf("make %s ran Go after LevelDB failed to fetch: %s\n%s", target, got, &out)
			}
			// The last words: the fetch error (its die message carries
			// tar's and gzip's), then only make's report of the failed
			// recipe.
			lines := strings.Split(strings.TrimSpace(out.String()), "\n")
			last := -1
			for i, l := range lines {
				if strings.Contains(l, fetchErr) {
					last = i
				}
			}
			if last < 0 {
				t.Fatalf("make %s: no fetch error (%q):\n%s", target, fetchErr, &out)
			}
			for _, l := range lines[last+1:] {
				if !strings.HasPrefix(l, "tar: ") && !strings.HasPrefix(l, "gzip: ") && !strings.HasPrefix(l, "make: ") && !strings.HasPrefix(l, "make[") {
					t.Errorf("make %s: %q after the fetch error; want it the last words:\n%s", target, l, &out)
					break
				}
			}
		})
	}
}

// TestMakeHelpListsEveryTarget: `make help` names every target the
// Makefile defines.
func TestMakeHelpListsEveryTarget(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("skipped: no make on PATH")
	}
	mk, err := os.ReadFile("../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("make", "--no-print-directory", "-s", "-C", "..", "help").Output()
	if err != nil {
		t.Fatalf("make help: %v", err)
	}
	target := regexp.MustCompile(`(?m)^([a-z0-9][a-z0-9-]*):`)
	for _, m := range target.FindAllStringSubmatch(string(mk), -1) {
		if !regexp.MustCompile(`(?m)^make ` + regexp.QuoteMeta(m[1]) + `\b`).Match(out) {
			t.Errorf("make help does not list %q:\n%s", m[1], out)
		}
	}
}
