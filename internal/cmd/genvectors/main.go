//go:build leveldb

// Command genvectors writes the golden vectors from upstream LevelDB
// (`make vectors`); with -check it fails when upstream's records differ from
// the committed ones (provenance lines may differ).
//
//	genvectors -build-info .cache/leveldb-1.23/linux-amd64/build-info [-out DIR] [-check]
//
// Without -out the directory follows the linked release: testdata/vectors
// for v1.18 and later (1.23 writes them), testdata/vectors-v1.17 for v1.4 to
// v1.17 where plain char is signed (v1.17 writes them); where it is unsigned
// those answer as 1.23 does.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/ldbcompat/ldbcompat/cgo/upstream"
	"github.com/ldbcompat/ldbcompat/internal/cases"
	"github.com/ldbcompat/ldbcompat/internal/fixtures"
	"github.com/ldbcompat/ldbcompat/internal/plural"
)

func main() {
	out := flag.String("out", "", "directory to write the vectors to (default: the linked release's, see the command's doc)")
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
	if rel := upstream.Release(); rel != "" && rel != prov.LevelDB {
		return fmt.Errorf("the linked LevelDB is %s, but %s describes %s: use the build-info of the build whose --print-env flags are in effect", rel, buildInfo, prov.LevelDB)
	}
	dir, why, err := vectorDir(check)
	switch {
	case out == "" && err != nil:
		return err
	case out == "":
		out = dir
		fmt.Printf("genvectors: %s: %s\n", out, why)
	case upstream.LegacyBloom() && why != "":
		fmt.Printf("genvectors: %s\n", why)
	}
	if !check {
		if err := write(out, prov); err != nil {
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
	if err := write(tmp, prov); err != nil {
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
		return fmt.Errorf("%s %s from what upstream produces now; run `make vectors` and review the diff", plural.Count(drift, "vector file"), plural.Verb(drift, "differs", "differ"))
	}
	fmt.Printf("genvectors: %s %s upstream (LevelDB %s, %s)\n", plural.Count(len(entries), "vector file"), plural.Verb(len(entries), "matches", "match"), prov.LevelDB, prov.GOARCH)
	return nil
}

// write writes the vectors into dir: the cases' (cases.WriteVectors) and
// the log cases', whose logs upstream's log::Writer writes and its
// log::Reader reads back, damaged or not.
func write(dir string, prov cases.Provenance) error {
	if prov.GOARCH == "" {
		prov.GOARCH = runtime.GOARCH
	}
	if err := cases.WriteVectors(dir, prov); err != nil {
		return err
	}
	data, err := cases.RecordLogVectors(upstream.WriteLog, func(data []byte) ([][]byte, error) {
		r, err := upstream.ReadLog(data)
		if err != nil {
			return nil, err
		}
		var out [][]byte
		for _, e := range r.Events {
			if !e.Drop {
				out = append(out, e.Record)
			}
		}
		return out, nil
	}, prov)
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, cases.LogVectorFile), data, 0o644)
	}
	if err != nil {
		return fmt.Errorf("log vectors: %w", err)
	}
	return nil
}

// vectorDir returns the directory of the linked release's golden vectors,
// with why, or an error when it may not write them.
func vectorDir(check bool) (dir, why string, err error) {
	major, minor := upstream.Version()
	rel := upstream.Release()
	if rel == "" {
		rel = fmt.Sprintf("%d.%d", major, minor)
	}
	switch {
	case !upstream.LegacyBloom():
		return cases.VectorDir, fmt.Sprintf("LevelDB %s (v1.18 or later) answers as 1.23 does", rel), nil
	case !upstream.CharIsSigned():
		if !check {
			return "", "", fmt.Errorf("LevelDB %s on %s, where plain char is unsigned, answers as 1.23 does: it writes no vectors of its own (check it with -check against %s)", rel, runtime.GOARCH, cases.VectorDir)
		}
		return cases.VectorDir, fmt.Sprintf("LevelDB %s hashes tail bytes as plain char, unsigned on %s: it answers as 1.23 does", rel, runtime.GOARCH), nil
	case !check && rel != "1.17":
		return "", "", fmt.Errorf("%s holds genuine v1.17's answers: write it with LEVELDB_VERSION=v1.17 (LevelDB %s is checked against it with -check, make vectors-check)", cases.LegacyVectorDir, rel)
	default:
		return cases.LegacyVectorDir, fmt.Sprintf("LevelDB %s hashes tail bytes as plain char, signed on %s: v1.17's vectors", rel, runtime.GOARCH), nil
	}
}

// firstBodyDiff compares the records of two vector files, ignoring the
// '#' lines before them (provenance: release, tarball, goarch, compiler),
// and describes the first difference.
func firstBodyDiff(a, b []byte) string {
	la, lb := bodyLines(a), bodyLines(b)
	for i := 0; i < max(len(la), len(lb)); i++ {
		if x, y := at(la, i), at(lb, i); x != y {
			return fmt.Sprintf("line %d:\n  committed: %.200s\n  upstream:  %.200s", i+1, x, y)
		}
	}
	return ""
}

func at(lines []string, i int) string {
	if i < len(lines) {
		return lines[i]
	}
	return ""
}

func bodyLines(data []byte) []string {
	var out []string
	for _, t := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		if !strings.HasPrefix(t, "#") {
			out = append(out, t)
		}
	}
	return out
}

// provenance reads docker/build-leveldb.sh's build-info file.
func provenance(path string) (cases.Provenance, error) {
	if path == "" {
		return cases.Provenance{}, fmt.Errorf("-build-info is required")
	}
	kv, err := fixtures.ReadBuildInfo(path)
	if err != nil {
		return cases.Provenance{}, err
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
