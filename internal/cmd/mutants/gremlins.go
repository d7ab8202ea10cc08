package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// gremlinsOut is the part of gremlins' JSON output read here.
type gremlinsOut struct {
	Files []struct {
		FileName  string `json:"file_name"`
		Mutations []struct {
			Type   string `json:"type"`
			Status string `json:"status"`
			Line   int    `json:"line"`
			Column int    `json:"column"`
		} `json:"mutations"`
	} `json:"files"`
}

// runTarget runs gremlins on t and reads its results.
func runTarget(root string, t target, o options) (*result, error) {
	res := &result{Target: t}
	dir := root
	gitRef := o.diff
	if o.diff != "" {
		changed, err := changedGoFiles(root, o.diff, t.Pkg)
		if err != nil {
			return nil, err
		}
		if len(changed) == 0 {
			res.NoChange = true
			return res, nil
		}
	}
	if t.Kit {
		var err error
		if dir, err = kitModule(root, o.diff, t); err != nil {
			return nil, err
		}
		if o.diff != "" {
			gitRef = "HEAD~1" // the scratch module's last commit
		}
	}
	pkgDir := filepath.Join(dir, filepath.FromSlash(kitPkg(t)))
	outFile := filepath.Join(root, ".cache", "mutants", t.Name+".json")
	if err := os.MkdirAll(filepath.Dir(outFile), 0o755); err != nil {
		return nil, err
	}
	// GOFLAGS reaches every go test gremlins runs. -count=1: a cached
	// coverage run would give gremlins no time to derive the timeout from.
	goflags := []string{"-vet=off", "-count=1"}
	if t.Run != "" {
		goflags = append(goflags, "-run="+t.Run)
	}
	if t.Short {
		goflags = append(goflags, "-short")
	}
	if t.Kit {
		goflags = append(goflags, "-mod=mod")
	}
	env := append(append(os.Environ(), t.Env...), "GOFLAGS="+strings.Join(goflags, " "))

	// The unmutated tests must pass; their time sets the least coefficient
	// that gives the timeout wanted, their coverage serves blindMutants.
	var testArgs []string
	if t.Tags != "" {
		testArgs = append(testArgs, "-tags", t.Tags)
	}
	testArgs = append(testArgs, "./"+kitPkg(t))
	profile := filepath.Join(root, ".cache", "mutants", t.Name+".cover")
	baseArgs := append([]string{"test", "-coverprofile", profile}, testArgs...)
	base := exec.Command("go", baseArgs...)
	base.Dir, base.Env = dir, env
	began := time.Now()
	if out, err := base.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("the tests fail before any mutation (go %s in %s): %w\n%s", strings.Join(baseArgs, " "), dir, err, tail(string(out), 30))
	}
	coefficient := max(o.coefficient, int(math.Ceil(float64(o.minTimeout)/float64(time.Since(began)))))
	res.Coefficient = coefficient
	prof, err := readCoverProfile(profile, kitPkg(t))
	if err != nil {
		return nil, err
	}

	// --exclude-files /: not the packages below (such as tabletest).
	args := []string{"unleash", "--workers", fmt.Sprint(o.workers), "--timeout-coefficient", fmt.Sprint(coefficient),
		"--exclude-files", "/", "-o", outFile}
	if t.Tags != "" {
		args = append(args, "--tags", t.Tags)
	}
	if gitRef != "" {
		// gremlins only finds the changed lines' mutants (--dry-run);
		// this tool runs them, as many as o.sample allows.
		args = append(args, "--diff", gitRef, "--dry-run")
	}
	args = append(args, pkgDir)
	cmd := exec.Command(o.gremlins, args...)
	cmd.Dir, cmd.Env = pkgDir, env
	if gitRef != "" {
		// gremlins matches git's names with those in its directory.
		cmd.Env = append(env, "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=diff.relative", "GIT_CONFIG_VALUE_0=true")
	}
	// A go test killed at its timeout leaves its work directory behind.
	scratch, err := os.MkdirTemp("", "mutants-gremlins-")
	if err != nil {
		return nil, err
	}
	defer removeScratch(scratch)
	cmd.Env = withTempDir(cmd.Env, scratch)
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	start := time.Now()
	var key string
	var rec *reuseRecord
	if gitRef == "" {
		if key, err = inputsKey(root, t, o); err != nil {
			return nil, err
		}
		if r := readRecord(root, t); o.reuse && r != nil && r.Key == key {
			rec = r
		}
	}
	if rec != nil {
		res.Reused = rec.When
		fmt.Fprintf(os.Stderr, "mutants: %s: its inputs are as at its run of %s: gremlins' results reused\n", t.Name, rec.When)
	} else if err = runGrouped(cmd); err != nil {
		return nil, fmt.Errorf("gremlins %s (in %s): %w\n%s", strings.Join(args, " "), pkgDir, err, tail(log.String(), 30))
	}
	gremlinsTime := time.Since(start)
	b, err := os.ReadFile(outFile)
	if err != nil {
		return nil, err
	}
	var g gremlinsOut
	if err := json.Unmarshal(b, &g); err != nil {
		return nil, fmt.Errorf("%s: %w", outFile, err)
	}
	for _, f := range g.Files {
		src, err := newSource(filepath.Join(pkgDir, f.FileName))
		if err != nil {
			return nil, err
		}
		for _, gm := range f.Mutations {
			m := &mutant{File: filepath.ToSlash(filepath.Join(t.Pkg, f.FileName)), Line: gm.Line, Column: gm.Column, Type: gm.Type, Status: gm.Status}
			m.Text, m.Op = src.operator(gm.Line, gm.Column)
			m.Func = src.funcAt(gm.Line)
			if o := t.outside(m); o != nil {
				res.Outside = append(res.Outside, m)
				continue
			}
			res.Mutants = append(res.Mutants, m)
		}
	}
	sortMutants(res.Mutants)
	sortMutants(res.Outside)
	res.Timeout = o.minTimeout
	if d, ok := coverageTime(log.String()); ok {
		res.Timeout = max(res.Timeout, (d * time.Duration(coefficient)).Round(time.Second))
	}
	if rec != nil {
		res.Timeout = rec.Timeout
		start = start.Add(-rec.Gremlins)
	} else if key != "" {
		r := reuseRecord{Key: key, Timeout: res.Timeout, Gremlins: gremlinsTime.Round(time.Second), When: time.Now().UTC().Format(time.RFC3339)}
		if err := writeRecord(root, t, r); err != nil {
			return nil, err
		}
	}
	todo := blindMutants(res, prof, root)
	if gitRef != "" {
		var changed []*mutant
		for _, m := range res.Mutants {
			if m.Status != "SKIPPED" {
				changed = append(changed, m)
			}
			if m.Status == "RUNNABLE" {
				todo = append(todo, m)
			}
		}
		res.Mutants = changed
		sortMutants(todo)
		if o.sample > 0 && len(todo) > o.sample {
			todo, res.Unsampled = sample(todo, o.sample)
		}
	}
	if err := runMutants(todo, dir, kitPkg(t), testArgs, env, res.Timeout, o.workers); err != nil {
		return nil, err
	}
	res.Elapsed = time.Since(start)
	return res, nil
}

// sortMutants sorts ms by file, line, column and type.
func sortMutants(ms []*mutant) {
	slices.SortFunc(ms, func(a, b *mutant) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column), cmp.Compare(a.Type, b.Type))
	})
}

// sample returns n of ms, evenly spread, and the others, whose status
// becomes "NOT RUN".
func sample(ms []*mutant, n int) (picked, others []*mutant) {
	take := map[int]bool{}
	for i := 0; i < n; i++ {
		take[i*len(ms)/n] = true
	}
	for i, m := range ms {
		if take[i] {
			picked = append(picked, m)
		} else {
			m.Status = "NOT RUN"
			others = append(others, m)
		}
	}
	return picked, others
}

// kitPkg is the directory of t's package in the module gremlins runs in.
func kitPkg(t target) string {
	if t.Kit {
		return path.Base(t.Pkg)
	}
	return t.Pkg
}

// outside returns the rule of t.Outside that covers m, or nil.
func (t target) outside(m *mutant) *outside {
	for i := range t.Outside {
		if t.Outside[i].contains(m) {
			return &t.Outside[i]
		}
	}
	return nil
}

// changedGoFiles lists pkg's own non-test Go files changed since the merge
// base of ref, as gremlins' diff sees them.
func changedGoFiles(root, ref, pkg string) ([]string, error) {
	out, err := git(root, "diff", "--merge-base", "--name-only", ref, "--", pkg)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, f := range strings.Fields(string(out)) {
		if path.Dir(f) == pkg && strings.HasSuffix(f, ".go") && !strings.HasSuffix(f, "_test.go") {
			files = append(files, f)
		}
	}
	return files, nil
}

// coverageTime finds in gremlins' log how long its coverage run took.
func coverageTime(log string) (time.Duration, bool) {
	for _, l := range strings.Split(log, "\n") {
		if _, after, ok := strings.Cut(l, "Gathering coverage... done in "); ok {
			d, err := time.ParseDuration(strings.TrimSpace(after))
			return d, err == nil
		}
	}
	return 0, false
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
