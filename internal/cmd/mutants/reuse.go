package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// With -reuse, a target whose inputs (the files its tests build, its
// settings, the tools' versions) hash as at its last run keeps that run's
// gremlins results; the unmutated tests and this tool's mutants still run.

// reuseRecord is what .cache/mutants/NAME.key holds about the run that
// wrote NAME.json.
type reuseRecord struct {
	Key      string        `json:"key"`
	Timeout  time.Duration `json:"timeout"`
	Gremlins time.Duration `json:"gremlins"`
	When     string        `json:"when"`
}

// keyFile is where t's reuseRecord is kept.
func keyFile(root string, t target) string {
	return filepath.Join(root, ".cache", "mutants", t.Name+".key")
}

// listedPackage is the part of go list -json read here.
type listedPackage struct {
	ImportPath, Dir                               string
	Standard                                      bool
	GoFiles, CgoFiles, CFiles, CXXFiles, HFiles   []string
	SFiles, EmbedFiles, TestGoFiles, XTestGoFiles []string
	TestEmbedFiles, XTestEmbedFiles               []string
}

// inputsKey hashes what t's results depend on.
func inputsKey(root string, t target, o options) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "target %q pkg %q kit %v tags %q run %q short %v env %q\n", t.Name, t.Pkg, t.Kit, t.Tags, t.Run, t.Short, t.Env)
	fmt.Fprintf(h, "gremlins %s go %s coefficient %d min-timeout %s workers %d\n", gremlinsVersion, goVersion(), o.coefficient, o.minTimeout, o.workers)
	if t.Kit {
		fmt.Fprintf(h, "kit test %q\n", kitTest("bloom"))
	}
	for _, f := range []string{"go.mod", "go.sum"} {
		if err := hashFile(h, root, f); err != nil {
			return "", err
		}
	}
	files, err := inputFiles(root, t)
	if err != nil {
		return "", err
	}
	for _, f := range files {
		if err := hashFile(h, root, f); err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// inputFiles lists, relative to root and sorted, the files of this module
// that t's tests build and embed.
func inputFiles(root string, t target) ([]string, error) {
	pkgs := []string{"./" + t.Pkg}
	if t.Kit {
		pkgs = []string{"./bloom", "./compat"}
	}
	args := []string{"list", "-deps", "-test", "-json"}
	if t.Tags != "" {
		args = append(args, "-tags", t.Tags)
	}
	cmd := exec.Command("go", append(args, pkgs...)...)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go %s: %w", strings.Join(args, " "), err)
	}
	own := map[string]bool{}
	for _, p := range pkgs {
		own[modulePath+"/"+strings.TrimPrefix(p, "./")] = true
	}
	seen := map[string]bool{}
	var files []string
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p listedPackage
		if err := dec.Decode(&p); err != nil {
			return nil, fmt.Errorf("go list: %w", err)
		}
		if p.Standard || !strings.HasPrefix(p.ImportPath, modulePath) || strings.HasSuffix(p.ImportPath, ".test") {
			continue
		}
		path, _, _ := strings.Cut(p.ImportPath, " ") // "pkg [pkg.test]"
		lists := [][]string{p.GoFiles, p.CgoFiles, p.CFiles, p.CXXFiles, p.HFiles, p.SFiles, p.EmbedFiles}
		if own[path] && !t.Kit { // the kit's test is kitTest
			lists = append(lists, p.TestGoFiles, p.XTestGoFiles, p.TestEmbedFiles, p.XTestEmbedFiles)
		}
		for _, l := range lists {
			for _, f := range l {
				rel, err := filepath.Rel(root, filepath.Join(p.Dir, f))
				if err != nil {
					return nil, err
				}
				if !seen[rel] {
					seen[rel] = true
					files = append(files, rel)
				}
			}
		}
	}
	slices.Sort(files)
	return files, nil
}

// modulePath is this repository's module.
const modulePath = "github.com/ldbcompat/ldbcompat"

// hashFile writes rel's name and content hash to h.
func hashFile(h interface{ Write([]byte) (int, error) }, root, rel string) error {
	b, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		return err
	}
	sum := sha256.Sum256(b)
	fmt.Fprintf(h, "%s %x\n", filepath.ToSlash(rel), sum)
	return nil
}

// goVersion is the go command's version.
func goVersion() string {
	out, err := exec.Command("go", "env", "GOVERSION").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}

// readRecord returns the record of t's last run, or nil.
func readRecord(root string, t target) *reuseRecord {
	b, err := os.ReadFile(keyFile(root, t))
	if err != nil {
		return nil
	}
	var r reuseRecord
	if json.Unmarshal(b, &r) != nil || r.Key == "" {
		return nil
	}
	if _, err := os.Stat(filepath.Join(root, ".cache", "mutants", t.Name+".json")); err != nil {
		return nil
	}
	return &r
}

// writeRecord records t's run, after gremlins wrote its results.
func writeRecord(root string, t target, r reuseRecord) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(keyFile(root, t), append(b, '\n'), 0o644)
}
