package docker_test

// Tests of fetch-leveldb.sh: it accepts any archive of a pinned source tree
// and refuses every other tree, naming both content digests. They need a
// real LevelDB tarball, from the cache (.cache/leveldb-<version>.tar.gz, which
// build-leveldb.sh leaves there) or from $LEVELDB_SOURCES; without one they
// skip, except with -tags leveldb, where the cache must hold the tarball of
// the version under test. The content digests the tests expect are computed
// here, in Go, from the definition in leveldb-versions.tsv, not by the
// script.

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"
)

// pin is one line of leveldb-versions.tsv.
type pin struct {
	version, tag, commit, date, digest string
}

func readPins(t *testing.T) []pin {
	t.Helper()
	f, err := os.Open("leveldb-versions.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var pins []pin
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 5 {
			t.Fatalf("leveldb-versions.tsv: %q has %d fields, want 5", line, len(f))
		}
		pins = append(pins, pin{f[0], f[1], f[2], f[3], f[4]})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return pins
}

// The table: every release with a filter policy, v1.4 to 1.23, and main.
func TestVersionsTable(t *testing.T) {
	pins := readPins(t)
	var names []string
	seen := map[string]bool{}
	for _, p := range pins {
		names = append(names, p.version)
		if seen[p.version] {
			t.Errorf("version %s listed twice", p.version)
		}
		seen[p.version] = true
		if len(p.commit) != 40 || !isHex(p.commit) {
			t.Errorf("%s: commit %q is not 40 hex digits", p.version, p.commit)
		}
		if len(p.digest) != 64 || !isHex(p.digest) {
			t.Errorf("%s: content digest %q is not 64 hex digits", p.version, p.digest)
		}
		if _, err := time.Parse("2006-01-02", p.date); err != nil {
			t.Errorf("%s: commit date: %v", p.version, err)
		}
		switch {
		case strings.HasPrefix(p.version, "main-"):
			if p.tag != "main" || !strings.HasPrefix(p.commit, strings.TrimPrefix(p.version, "main-")) {
				t.Errorf("main: version %s, tag %s, commit %s", p.version, p.tag, p.commit)
			}
		case p.version >= "1.21" && len(p.version) == 4:
			if p.tag != p.version {
				t.Errorf("%s: tag %s, want %s (upstream's tags lose the v at 1.21)", p.version, p.tag, p.version)
			}
		default:
			if p.tag != "v"+p.version {
				t.Errorf("%s: tag %s, want v%s", p.version, p.tag, p.version)
			}
		}
	}
	var want []string
	for minor := 4; minor <= 23; minor++ {
		want = append(want, fmt.Sprintf("1.%d", minor))
	}
	if len(names) != len(want)+1 || strings.Join(names[:len(want)], " ") != strings.Join(want, " ") ||
		!strings.HasPrefix(names[len(names)-1], "main-") {
		t.Errorf("versions %v, want 1.4 ... 1.23 and main-<commit>, in order", names)
	}
}

func isHex(s string) bool {
	_, err := hex.DecodeString(s)
	return err == nil && strings.ToLower(s) == s
}

// entry is one member of a tarball, as these tests rewrite it.
type entry struct {
	hdr  tar.Header
	data []byte
}

func readTarball(t *testing.T, path string) []entry {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	tr := tar.NewReader(zr)
	var out []entry
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if h.Typeflag == tar.TypeXGlobalHeader {
			continue
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatalf("%s: %s: %v", path, h.Name, err)
		}
		out = append(out, entry{*h, data})
	}
}

// writeTarball writes entries as a gzip-compressed tarball at compression
// level 1, so that even an unchanged tree gives other bytes than upstream's.
func writeTarball(t *testing.T, path string, entries []entry) {
	t.Helper()
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	if err != nil {
		t.Fatal(err)
	}
	tw := tar.NewWriter(zw)
	for _, e := range entries {
		h := e.hdr
		h.Size = int64(len(e.data))
		if h.Typeflag != tar.TypeReg {
			h.Size = 0
		}
		h.Format = tar.FormatPAX
		if err := tw.WriteHeader(&h); err != nil {
			t.Fatal(err)
		}
		if h.Size > 0 {
			if _, err := tw.Write(e.data); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// contentDigest computes the content digest of the tree in entries, from its
// definition: sha256 of the `sha256sum` listing ("<hex>  ./<path>\n") of
// every regular file, sorted by path, paths relative to the top directory.
func contentDigest(t *testing.T, entries []entry) string {
	t.Helper()
	var lines []string
	for _, e := range entries {
		if e.hdr.Typeflag != tar.TypeReg {
			continue
		}
		_, rel, ok := strings.Cut(strings.TrimPrefix(e.hdr.Name, "./"), "/")
		if !ok || rel == "" {
			t.Fatalf("member %q is not inside a top directory", e.hdr.Name)
		}
		sum := sha256.Sum256(e.data)
		lines = append(lines, "./"+rel+"\x00"+hex.EncodeToString(sum[:]))
	}
	sort.Strings(lines)
	h := sha256.New()
	for _, l := range lines {
		path, sum, _ := strings.Cut(l, "\x00")
		fmt.Fprintf(h, "%s  %s\n", sum, path)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// source finds a real tarball of a pinned version: 1.23 first, then any.
func source(t *testing.T) (pin, string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("fetch-leveldb.sh is a bash script")
	}
	for _, tool := range []string{"bash", "tar", "gzip", "find", "sort", "xargs"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s: %v", tool, err)
		}
	}
	pins := readPins(t)
	sort.SliceStable(pins, func(i, j int) bool { return pins[i].version == "1.23" && pins[j].version != "1.23" })
	want := os.Getenv("LEVELDB_VERSION")
	var dirs []string
	dirs = append(dirs, filepath.Join("..", ".cache"))
	if d := os.Getenv("LEVELDB_SOURCES"); d != "" {
		dirs = append(dirs, d)
	}
	for _, p := range pins {
		for _, d := range dirs {
			path := filepath.Join(d, "leveldb-"+p.version+".tar.gz")
			if _, err := os.Stat(path); err == nil {
				return p, path
			}
		}
	}
	if requireTarball {
		t.Fatalf("no leveldb-<version>.tar.gz in ../.cache or $LEVELDB_SOURCES, though -tags leveldb means build-leveldb.sh ran (LEVELDB_VERSION=%q)", want)
	}
	t.Skip("no LevelDB tarball in ../.cache or $LEVELDB_SOURCES (build-leveldb.sh puts one in the cache)")
	return pin{}, ""
}

// fetch runs fetch-leveldb.sh with only the LEVELDB_* variables given (and
// none of the caller's), and returns its stdout, stderr and error.
func fetch(t *testing.T, env map[string]string, args ...string) (string, string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", append([]string{"./fetch-leveldb.sh"}, args...)...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "LEVELDB_") && !strings.HasPrefix(kv, "SNAPPY_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	// No download, whatever happens: upstream is never reached in these
	// tests, but a mistake must not fetch anything.
	cmd.Env = append(cmd.Env, "LEVELDB_FETCH_TIMEOUT=1", "http_proxy=http://127.0.0.1:9", "https_proxy=http://127.0.0.1:9")
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return stdout.String(), stderr.String(), err
}

// The definition computed here agrees with the pinned digest of a real
// tarball, and the script accepts another archive of the same tree (other
// gzip bytes): it checks the tree, not the file.
func TestFetchAcceptsPinnedTree(t *testing.T) {
	p, path := source(t)
	entries := readTarball(t, path)
	if got := contentDigest(t, entries); got != p.digest {
		t.Fatalf("%s: content digest %s, leveldb-versions.tsv pins %s for %s", path, got, p.digest, p.version)
	}
	dir := t.TempDir()
	repacked := filepath.Join(dir, "repacked.tar.gz")
	writeTarball(t, repacked, entries)
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	again, err := os.ReadFile(repacked)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(orig, again) {
		t.Fatal("the repacked tarball has the same bytes: the test would not show that the file's sum is not checked")
	}
	cache := filepath.Join(dir, "cache")
	stdout, stderr, err := fetch(t, map[string]string{
		"LEVELDB_VERSION": p.tag, "LEVELDB_TARBALL": repacked, "LEVELDB_CACHE": cache,
	})
	if err != nil {
		t.Fatalf("fetch-leveldb.sh refused a repacked %s: %v\n%s%s", p.version, err, stdout, stderr)
	}
	if !strings.Contains(stdout, p.digest) {
		t.Errorf("stdout does not name the content digest %s:\n%s", p.digest, stdout)
	}
	cached, err := os.ReadFile(filepath.Join(cache, "leveldb-"+p.version+".tar.gz"))
	if err != nil || !bytes.Equal(cached, again) {
		t.Errorf("the cache does not hold the accepted tarball (%v)", err)
	}

	// --extract leaves the checked tree, with the pinned digest.
	tree := filepath.Join(dir, "tree")
	if stdout, stderr, err := fetch(t, map[string]string{"LEVELDB_VERSION": p.version, "LEVELDB_CACHE": cache}, "--extract", tree); err != nil {
		t.Fatalf("--extract: %v\n%s%s", err, stdout, stderr)
	}
	if got := treeDigest(t, tree); got != p.digest {
		t.Errorf("--extract left a tree with digest %s, want %s", got, p.digest)
	}
}

// treeDigest computes the content digest of a directory, in Go.
func treeDigest(t *testing.T, dir string) string {
	t.Helper()
	var entries []entry
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		entries = append(entries, entry{tar.Header{Name: "top/" + filepath.ToSlash(rel), Typeflag: tar.TypeReg}, data})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return contentDigest(t, entries)
}

// Every change to the tree is refused, from every kind of source, with both
// digests named, and nothing reaches the cache.
func TestFetchRefusesOtherTrees(t *testing.T) {
	p, path := source(t)
	orig := readTarball(t, path)
	top := strings.SplitN(strings.TrimPrefix(orig[0].hdr.Name, "./"), "/", 2)[0]

	clone := func() []entry {
		out := make([]entry, len(orig))
		for i, e := range orig {
			out[i] = entry{e.hdr, append([]byte(nil), e.data...)}
		}
		return out
	}
	find := func(es []entry, name string) int {
		for i, e := range es {
			if e.hdr.Name == top+"/"+name {
				return i
			}
		}
		t.Fatalf("%s has no %s/%s", path, top, name)
		return -1
	}
	tests := []struct {
		name   string
		change func([]entry) []entry
		// want is what stderr must say; "" means: both digests.
		want string
	}{
		{"one byte of util/hash.cc", func(es []entry) []entry {
			i := find(es, "util/hash.cc")
			es[i].data[len(es[i].data)/2] ^= 0x01
			return es
		}, ""},
		{"a file added", func(es []entry) []entry {
			return append(es, entry{tar.Header{Name: top + "/util/extra.cc", Typeflag: tar.TypeReg, Mode: 0o644}, []byte("int x;\n")})
		}, ""},
		{"a file removed", func(es []entry) []entry {
			i := find(es, "util/bloom.cc")
			return append(es[:i], es[i+1:]...)
		}, ""},
		{"a file renamed", func(es []entry) []entry {
			i := find(es, "util/bloom.cc")
			es[i].hdr.Name = top + "/util/bloom2.cc"
			return es
		}, ""},
		{"a symlink added", func(es []entry) []entry {
			return append(es, entry{tar.Header{Name: top + "/util/link.cc", Typeflag: tar.TypeSymlink, Linkname: "bloom.cc", Mode: 0o777}, nil})
		}, "neither a regular file nor a directory"},
		{"a member outside the top directory", func(es []entry) []entry {
			return append(es, entry{tar.Header{Name: top + "/../evil.cc", Typeflag: tar.TypeReg, Mode: 0o644}, []byte("x")})
		}, "outside its top directory"},
		{"two top directories", func(es []entry) []entry {
			return append(es, entry{tar.Header{Name: "other/README", Typeflag: tar.TypeReg, Mode: 0o644}, []byte("x")})
		}, "exactly one top directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			es := tt.change(clone())
			bad := filepath.Join(dir, "leveldb-"+p.version+".tar.gz")
			writeTarball(t, bad, es)
			want := []string{tt.want}
			if tt.want == "" {
				got := contentDigest(t, es)
				if got == p.digest {
					t.Fatalf("the change left the digest %s as it was", got)
				}
				want = []string{"content digest mismatch", "expected: content digest " + p.digest, "got:      content digest " + got}
			}
			// The same tree from each kind of source.
			cacheWithBad := filepath.Join(dir, "cache-bad")
			if err := os.MkdirAll(cacheWithBad, 0o755); err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(bad)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(cacheWithBad, filepath.Base(bad)), data, 0o644); err != nil {
				t.Fatal(err)
			}
			for _, src := range []struct {
				name  string
				env   map[string]string
				cache string
			}{
				{"LEVELDB_TARBALL", map[string]string{"LEVELDB_TARBALL": bad}, filepath.Join(dir, "cache1")},
				{"LEVELDB_SOURCES", map[string]string{"LEVELDB_SOURCES": dir}, filepath.Join(dir, "cache2")},
				{"the cache", nil, cacheWithBad},
			} {
				env := map[string]string{"LEVELDB_VERSION": p.tag, "LEVELDB_CACHE": src.cache}
				for k, v := range src.env {
					env[k] = v
				}
				stdout, stderr, err := fetch(t, env)
				if err == nil {
					t.Errorf("from %s: accepted:\n%s%s", src.name, stdout, stderr)
					continue
				}
				if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
					t.Errorf("from %s: %v, want exit status 1", src.name, err)
				}
				for _, w := range want {
					if !strings.Contains(stderr, w) {
						t.Errorf("from %s: stderr does not say %q:\n%s", src.name, w, stderr)
					}
				}
				if !strings.Contains(stderr, src.name) {
					t.Errorf("from %s: stderr does not name the source:\n%s", src.name, stderr)
				}
				if src.cache != cacheWithBad {
					if _, err := os.Stat(filepath.Join(src.cache, filepath.Base(bad))); err == nil {
						t.Errorf("from %s: the refused tarball reached the cache", src.name)
					}
				}
			}
		})
	}
}

// A tarball of another pinned version is refused too.
func TestFetchRefusesOtherVersion(t *testing.T) {
	p, path := source(t)
	var other pin
	for _, q := range readPins(t) {
		if q.version != p.version {
			other = q
			break
		}
	}
	stdout, stderr, err := fetch(t, map[string]string{
		"LEVELDB_VERSION": other.tag, "LEVELDB_TARBALL": path, "LEVELDB_CACHE": t.TempDir(),
	})
	if err == nil {
		t.Fatalf("the %s tarball was accepted as %s:\n%s%s", p.version, other.version, stdout, stderr)
	}
	for _, w := range []string{"expected: content digest " + other.digest, "got:      content digest " + p.digest} {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr does not say %q:\n%s", w, stderr)
		}
	}
}

// Versions resolve by tag, by the table's name, and by v plus the name;
// nothing else, and 1.2 is not 1.20.
func TestFetchResolve(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil || runtime.GOOS == "windows" {
		t.Skip("needs bash")
	}
	pins := readPins(t)
	last := pins[len(pins)-1]
	for in, want := range map[string]string{
		"": "1.23", "1.23": "1.23", "v1.23": "1.23", "v1.4": "1.4", "1.4": "1.4", "v1.20": "1.20",
		"1.21": "1.21", "main": last.version, last.version: last.version,
	} {
		env := map[string]string{}
		if in != "" {
			env["LEVELDB_VERSION"] = in
		}
		stdout, stderr, err := fetch(t, env, "--resolve")
		if err != nil {
			t.Errorf("LEVELDB_VERSION=%q: %v\n%s", in, err, stderr)
			continue
		}
		if got := strings.SplitN(stdout, "\t", 2)[0]; got != want {
			t.Errorf("LEVELDB_VERSION=%q resolves to %q, want %q", in, got, want)
		}
	}
	for _, in := range []string{"1.2", "1", "v1.3", "1.24", "main-0000000", "78a352f", "latest"} {
		if stdout, _, err := fetch(t, map[string]string{"LEVELDB_VERSION": in}, "--resolve"); err == nil {
			t.Errorf("LEVELDB_VERSION=%q resolves to %q, want an error", in, stdout)
		}
	}
}

// When upstream's archive cannot be reached, the script says so in one
// line that sums up the downloader's error, not with the downloader's own
// output. A stand-in curl fails as curl does without DNS; 1.22 has no
// Debian source package, so nothing else is tried.
func TestFetchSaysUpstreamUnreachableOnce(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil || runtime.GOOS == "windows" {
		t.Skip("needs bash")
	}
	bin := t.TempDir()
	fake := "#!/bin/sh\necho 'curl: (6) Could not resolve host: github.com' >&2\nexit 6\n"
	if err := os.WriteFile(filepath.Join(bin, "curl"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	_, stderr, err := fetch(t, map[string]string{
		"LEVELDB_VERSION": "1.22", "LEVELDB_CACHE": t.TempDir(), "PATH": bin + string(os.PathListSeparator) + os.Getenv("PATH"),
	})
	if err == nil {
		t.Fatalf("fetch-leveldb.sh succeeded with upstream unreachable and no other source:\n%s", stderr)
	}
	want := "fetch-leveldb: leveldb 1.22: upstream's archive (https://github.com/google/leveldb/archive/refs/tags/1.22.tar.gz) cannot be reached (curl: could not resolve host: github.com)\n"
	if strings.Count(stderr, want) != 1 {
		t.Errorf("stderr does not say once %q:\n%s", want, stderr)
	}
	if strings.Contains(stderr, "curl: (") || strings.Contains(stderr, "trying") || strings.Count(stderr, "github.com/google/leveldb/archive") != 2 {
		t.Errorf("stderr holds curl's own line, a 'trying' line, or names upstream's archive other than in its summary and the hint:\n%s", stderr)
	}
}
