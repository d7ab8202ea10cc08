//go:build leveldb

// Command genvectors writes the golden vectors under testdata/vectors from
// upstream LevelDB: it runs the cases of internal/cases on the C++ library
// through cgo/upstream (cases.WriteVectors). `make vectors` runs it; with
// -check it instead regenerates them in memory and fails when they differ
// from the committed ones.
//
//	genvectors -build-info .cache/leveldb-1.23/linux-amd64/build-info [-out testdata/vectors] [-check]
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ldbcompat/ldbcompat/internal/cases"
)

func main() {
	out := flag.String("out", cases.VectorDir, "directory to write the vectors to")
	buildInfo := flag.String("build-info", "", "the build-info file docker/build-leveldb.sh wrote (provenance)")
	check := flag.Bool("check", false, "compare freshly generated vectors with those in -out instead of writing")
	flag.Parse()
	if err := run(*out, *buildInfo, *check); err != nil {
		fmt.Fprintln(os.Stderr, "genvectors:", err)
		os.Exit(1)
	}
}

func run(out, buildInfo string, check bool) error {
	prov, err := provenance(buildInfo)
	if err != nil {
		return err
	}
	if !check {
		if err := cases.WriteVectors(out, prov); err != nil {
			return err
		}
		fmt.Printf("genvectors: wrote %s (LevelDB %s, %s, %s)\n", out, prov.LevelDB, prov.GOARCH, prov.Compiler)
		return nil
	}
	tmp, err := os.MkdirTemp("", "vectors")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := cases.WriteVectors(tmp, prov); err != nil {
		return err
	}
	entries, err := os.ReadDir(tmp)
	if err != nil {
		return err
	}
	drift := 0
	for _, e := range entries {
		fresh, err := os.ReadFile(filepath.Join(tmp, e.Name()))
		if err != nil {
			return err
		}
		committed, err := os.ReadFile(filepath.Join(out, e.Name()))
		if err != nil {
			return fmt.Errorf("committed vectors: %w", err)
		}
		if d := firstBodyDiff(committed, fresh); d != "" {
			fmt.Fprintf(os.Stderr, "genvectors: %s drifted from upstream: %s\n", filepath.Join(out, e.Name()), d)
			drift++
		}
	}
	if drift > 0 {
		return fmt.Errorf("%d vector files differ from what upstream produces now; run `make vectors` and review the diff", drift)
	}
	fmt.Printf("genvectors: %d vector files match upstream (LevelDB %s, %s)\n", len(entries), prov.LevelDB, prov.GOARCH)
	return nil
}

// firstBodyDiff compares two vector files, ignoring the provenance lines
// that name the machine (goarch, compiler), and describes the first
// difference.
func firstBodyDiff(a, b []byte) string {
	la, lb := bodyLines(a), bodyLines(b)
	for i := 0; i < len(la) || i < len(lb); i++ {
		var x, y string
		if i < len(la) {
			x = la[i]
		}
		if i < len(lb) {
			y = lb[i]
		}
		if x != y {
			return fmt.Sprintf("line %d:\n  committed: %.200s\n  upstream:  %.200s", i+1, x, y)
		}
	}
	return ""
}

func bodyLines(data []byte) []string {
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		t := sc.Text()
		if strings.HasPrefix(t, "# goarch:") || strings.HasPrefix(t, "# compiler:") {
			continue
		}
		out = append(out, t)
	}
	return out
}

// provenance reads docker/build-leveldb.sh's build-info file.
func provenance(path string) (cases.Provenance, error) {
	if path == "" {
		return cases.Provenance{}, fmt.Errorf("-build-info is required")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return cases.Provenance{}, fmt.Errorf("build info: %w", err)
	}
	kv := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok {
			kv[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	p := cases.Provenance{LevelDB: kv["leveldb_version"], TarballSHA256: kv["tarball_sha256"], Compiler: kv["cxx"]}
	if t := kv["target"]; strings.HasPrefix(t, "linux-") {
		p.GOARCH = strings.TrimPrefix(t, "linux-")
	}
	if p.LevelDB == "" || p.TarballSHA256 == "" {
		return p, fmt.Errorf("build info %s lacks leveldb_version or tarball_sha256", path)
	}
	return p, nil
}
