// Command mutants measures how much the suite catches: it runs mutation
// testing (gremlins) on each target, judges every mutant that survives
// against the committed explanations, and writes docs/mutants.md (a run
// of some targets only writes its report to .cache/mutants/report.md,
// leaving the whole one as it is).
//
// Usage (make mutants runs it; make mutants-diff runs it with -diff):
//
//	go run ./internal/cmd/mutants -gremlins .cache/bin/gremlins [-targets kit,table] [-diff REF] [-out docs/mutants.md]
//
// Targets (see targets below): package bloom judged by the kit alone, as a
// port (a scratch module under .cache/mutants/kit holding a copy of bloom's
// files and one test, compat.TestPort with every hook bloom can serve),
// with the golden vectors only and live against upstream LevelDB
// (-tags leveldb, with the cgo flags of docker/build-leveldb.sh in the
// environment); and the readers behind verify (internal/table,
// internal/manifest, internal/filtercheck, internal/verify) judged by their
// own tests, with and without the leveldb tag.
//
// A mutant that lives, or that no test covers, must be explained in the
// reasons file (tools/mutants/survivors.txt): equivalent (no input can tell
// it from the original, and why, naming upstream's code), or out of reach
// (what it would take). The command fails on any survivor the file does
// not explain. Mutants that time out are reported apart, with the timeout.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"math"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ldbcompat/ldbcompat/internal/plural"
)

// target is one mutation-testing run: the mutated package and the tests
// that judge it.
type target struct {
	Name string
	// Kit runs in the scratch module (bloom judged by compat.TestPort);
	// otherwise Pkg is a package of this module, judged by its own tests.
	Kit bool
	Pkg string
	// Tags are the build tags (leveldb: the upstream differentials).
	Tags string
	// Env is added to the tests' environment.
	Env []string
	// Run selects the tests (go test -run), Short sets -short: what keeps
	// a package's run within the time a session allows. Empty: all.
	Run   string
	Short bool
	// About says what judges the package, for the report.
	About string
	// Outside is the code of the package that the target does not judge,
	// and why: its mutants are counted apart, not as survivors.
	Outside []outside
}

// outside names code a target leaves out of its count: a function, or
// the lines of a function whose text contains Text.
type outside struct {
	Func, Text string
	Why        string
}

// contains tells whether o covers m.
func (o outside) contains(m *mutant) bool {
	return m.Func == o.Func && (o.Text == "" || strings.Contains(m.Text, o.Text))
}

// kitOutside is the code of bloom that is not part of what a port
// implements (compat.Port's hooks), so the kit has nothing to judge it
// by: bloom's own tests do (go test ./bloom).
var kitOutside = func() []outside {
	const legacy = "the policy of LevelDB v1.4 to v1.17 (NewLegacyPolicy, its signed-char hash), which 1.23 ignores and the kit does not check: a port is checked for 1.23's filter"
	const inverse = "filtercheck's arithmetic on filters already written (the bits/key a stored filter implies, a filter's first bytes), which a port does not have"
	return []outside{
		{Func: "HashSignedTail", Why: legacy},
		{Func: "NewLegacyPolicy", Why: legacy},
		{Func: "(*bloomPolicy).KeyMayMatch", Text: "int32(int8(b))", Why: legacy},
		{Func: "BitsPerKeyForProbes", Why: inverse},
		{Func: "BitsPerKeyForLen", Why: inverse},
		{Func: "AppendFilterPrefix", Why: inverse},
	}
}()

var targets = []target{
	{Name: "kit", Kit: true, Pkg: "bloom", Outside: kitOutside, About: "package `bloom` as a port, judged by `compat.TestPort` alone (every hook: Hash, NewPolicy, the filter block builder and reader, ReadDB and WriteDB through a minimal table reader and writer), run three times, with the choices of AMD's family 25 (`KeyMayMatch` returning at the first clear bit with two probes divided, `CreateFilter`'s vector kernel), of its family 26 (the same without the division) and of Intel (all k bits, scalar probes); golden vectors only"},
	{Name: "kit-live", Kit: true, Pkg: "bloom", Tags: "leveldb", Env: []string{"LDBCOMPAT_WIDE=1"}, Outside: kitOutside, About: "the same, live against upstream LevelDB through cgo and levigo (`-tags leveldb`), with the filter of 2^32 bits (`LDBCOMPAT_WIDE=1`) in the run with family 26's choices"},
	{Name: "table", Pkg: "internal/table", Short: true, About: "`internal/table` by its own tests (`-short`: the bit-flip sweeps over the smallest fixtures)"},
	{Name: "table-live", Pkg: "internal/table", Tags: "leveldb", Short: true, About: "the same with `-tags leveldb`: the upstream differentials too"},
	{Name: "manifest", Pkg: "internal/manifest", About: "`internal/manifest` by its own tests"},
	{Name: "manifest-live", Pkg: "internal/manifest", Tags: "leveldb", About: "the same with `-tags leveldb`"},
	{Name: "filtercheck", Pkg: "internal/filtercheck", About: "`internal/filtercheck` by its own tests"},
	{Name: "filtercheck-live", Pkg: "internal/filtercheck", Tags: "leveldb", About: "the same with `-tags leveldb`"},
	{Name: "verify", Pkg: "internal/verify", About: "`internal/verify` by its own tests"},
	{Name: "verify-live", Pkg: "internal/verify", Tags: "leveldb", About: "the same with `-tags leveldb`"},
}

// options are the command's settings.
type options struct {
	gremlins, only, diff, out, reasons string
	adopt                              string
	reuse                              bool
	workers, coefficient, sample       int
	minTimeout                         time.Duration
}

func main() {
	var o options
	flag.StringVar(&o.gremlins, "gremlins", ".cache/bin/gremlins", "the gremlins binary")
	flag.StringVar(&o.only, "targets", "", "comma-separated targets to run (default: all)")
	flag.StringVar(&o.diff, "diff", "", "run only mutants on lines changed since this git reference")
	flag.StringVar(&o.out, "out", "", "write the report here (default: none with -diff, "+subsetReport+" with -targets naming some targets, else "+fullReport+")")
	flag.StringVar(&o.reasons, "reasons", "tools/mutants/survivors.txt", "the explanations of surviving mutants")
	flag.IntVar(&o.workers, "workers", runtime.NumCPU(), "gremlins workers")
	flag.IntVar(&o.coefficient, "timeout-coefficient", 5, "gremlins' timeout: the coverage run's time times this, at least")
	flag.DurationVar(&o.minTimeout, "min-timeout", 30*time.Second, "the least timeout of a mutant's tests (the coefficient is raised to reach it)")
	flag.IntVar(&o.sample, "sample", 0, "with -diff, run at most this many of a target's mutants, evenly spread over the changed lines (0: all)")
	flag.BoolVar(&o.reuse, "reuse", false, "keep a target's gremlins results when its inputs are as at its last run (see reuse.go)")
	flag.StringVar(&o.adopt, "adopt", "", "record the inputs, as they are now, of the targets this log (an earlier run's standard error) names, for -reuse; then exit")
	flag.Parse()
	o.out = defaultOut(o)
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "mutants:", err)
		os.Exit(1)
	}
}

// The report's default places: the whole report, committed, and the
// report of a run of some targets, which would otherwise replace the
// whole one with its few.
const (
	fullReport   = "docs/mutants.md"
	subsetReport = ".cache/mutants/report.md"
)

// defaultOut returns where o's report goes: o.out when given, else none
// for a diff run, subsetReport for a run of some targets, fullReport for
// one of every target.
func defaultOut(o options) string {
	switch {
	case o.out != "" || o.diff != "":
		return o.out
	case o.only != "" && len(selectTargets(o.only)) < len(targets):
		return subsetReport
	default:
		return fullReport
	}
}

// selectTargets returns the targets only names (comma-separated), or all
// of them when only is empty, in targets' order.
func selectTargets(only string) []target {
	var run []target
	for _, t := range targets {
		if only == "" || slices.Contains(strings.Split(only, ","), t.Name) {
			run = append(run, t)
		}
	}
	return run
}

func run(o options) error {
	root, err := os.Getwd()
	if err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		return errors.New("run it from the repository root")
	}
	if o.gremlins, err = filepath.Abs(o.gremlins); err != nil {
		return err
	}
	if o.adopt != "" {
		return adopt(root, o.adopt, o)
	}
	reasons, err := readReasons(o.reasons)
	if err != nil {
		return err
	}
	run := selectTargets(o.only)
	if len(run) == 0 {
		return fmt.Errorf("no target named in %q", o.only)
	}
	rep := report{Date: time.Now().UTC().Format("2006-01-02"), CPU: cpuName(), Go: runtime.Version(),
		Workers: o.workers, Coefficient: o.coefficient, MinTimeout: o.minTimeout, Diff: o.diff}
	start := time.Now()
	for _, t := range run {
		res, err := runTarget(root, t, o)
		if err != nil {
			return fmt.Errorf("%s: %w", t.Name, err)
		}
		res.judge(reasons)
		if res.NoChange {
			fmt.Fprintf(os.Stderr, "mutants: %s: no non-test Go file of %s changed since %s\n", t.Name, t.Pkg, o.diff)
		} else {
			sampled := ""
			if n := len(res.Unsampled); n > 0 {
				sampled = fmt.Sprintf(", %d more on the changed lines not run (a sample of %d)", n, o.sample)
			}
			fmt.Fprintf(os.Stderr, "mutants: %s: %s%s in %s (timeout %s)\n", t.Name, res.counts(), sampled, res.Elapsed.Round(time.Second), res.Timeout)
		}
		rep.Targets = append(rep.Targets, res)
	}
	rep.Elapsed = time.Since(start)
	rep.Stale = reasons.stale(rep.Targets, o.diff != "")
	if o.out != "" {
		if err := os.MkdirAll(filepath.Dir(o.out), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(o.out, []byte(rep.markdown()), 0o644); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "mutants: wrote %s\n", o.out)
	}
	var bad []string
	for _, r := range rep.Targets {
		for _, m := range r.Mutants {
			if m.survived() && m.Reason == nil {
				bad = append(bad, fmt.Sprintf("  %s at %s:%d:%d, its line there: %s | CLASS | WHY", m.Status, m.File, m.Line, m.Column, m.key(strings.TrimSuffix(r.Target.Name, "-live"))))
			}
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("%s %s neither killed nor explained in %s: kill each with a case whose expected answer comes from upstream, or explain it there\n%s",
			plural.Count(len(bad), "surviving mutant"), plural.Verb(len(bad), "is", "are"), o.reasons, strings.Join(bad, "\n"))
	}
	return nil
}

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
	dir := root // the module
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
		if dir, err = kitModule(root, o.diff); err != nil {
			return nil, err
		}
		if o.diff != "" {
			// The scratch module is a repository of its own, whose
			// last commit brings bloom from the merge base of o.diff
			// to now.
			gitRef = "HEAD~1"
		}
	}
	pkgDir := filepath.Join(dir, filepath.FromSlash(kitPkg(t)))
	outFile := filepath.Join(root, ".cache", "mutants", t.Name+".json")
	if err := os.MkdirAll(filepath.Dir(outFile), 0o755); err != nil {
		return nil, err
	}
	// Test selection reaches every go test gremlins runs through GOFLAGS,
	// which go test reads for its own flags too. -vet=off: vet checks
	// nothing a mutant changes, and costs each run. -count=1: a cached
	// result would make the coverage run, from which gremlins derives the
	// timeout, take no time.
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

	// The unmutated tests first: they must pass, and their time sets the
	// least coefficient that gives the timeout wanted.
	// Their coverage tells which case expressions ran (blindMutants).
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

	// --exclude-files /: the package's own files, not those of the
	// packages below it (test helpers such as internal/table/tabletest).
	args := []string{"unleash", "--workers", fmt.Sprint(o.workers), "--timeout-coefficient", fmt.Sprint(coefficient),
		"--exclude-files", "/", "-o", outFile}
	if t.Tags != "" {
		args = append(args, "--tags", t.Tags)
	}
	if gitRef != "" {
		// gremlins asks git diff for the changed lines in the directory
		// it starts in, and matches them with the package's files by
		// their names in that directory: diff.relative makes git name
		// them so. It only finds the mutants there and their coverage
		// (--dry-run): the tool runs them, as many as o.sample allows.
		args = append(args, "--diff", gitRef, "--dry-run")
	}
	args = append(args, pkgDir)
	cmd := exec.Command(o.gremlins, args...)
	cmd.Dir, cmd.Env = pkgDir, env
	if gitRef != "" {
		cmd.Env = append(env, "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=diff.relative", "GIT_CONFIG_VALUE_0=true")
	}
	// gremlins kills a mutant's go test at its timeout, which leaves the
	// go command's work directory behind (3 MB and more each): its
	// temporary files and those of the tests it runs go to a directory
	// removed after it.
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
		start = start.Add(-rec.Gremlins) // its time counts
	} else if key != "" {
		r := reuseRecord{Key: key, Timeout: res.Timeout, Gremlins: gremlinsTime.Round(time.Second), When: time.Now().UTC().Format(time.RFC3339)}
		if err := writeRecord(root, t, r); err != nil {
			return nil, err
		}
	}
	todo := blindMutants(res, prof, root)
	if gitRef != "" {
		// Only the changed lines' mutants, those covered run here.
		var changed []*mutant
		for _, m := range res.Mutants {
			if m.Status != "SKIPPED" {
				changed = append(changed, m)
			}
		}
		res.Mutants = changed
		for _, m := range changed {
			if m.Status == "RUNNABLE" {
				todo = append(todo, m)
			}
		}
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
	sort.Slice(ms, func(i, j int) bool {
		a, b := ms[i], ms[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Column != b.Column {
			return a.Column < b.Column
		}
		return a.Type < b.Type
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
		return "bloom"
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

// changedGoFiles lists the package's non-test Go files (not those of the
// packages below it) that differ between the merge base of ref and the
// working tree, as gremlins' diff sees them.
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

// coverageTime finds, in gremlins' log, how long its coverage run took:
// the timeout of every mutant's tests is that times the coefficient.
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

// source is a Go file, for naming a mutant's line and function.
type source struct {
	lines []string
	fset  *token.FileSet
	file  *ast.File
}

func newSource(path string) (*source, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, b, 0)
	if err != nil {
		return nil, err
	}
	return &source{lines: strings.Split(string(b), "\n"), fset: fset, file: f}, nil
}

// operator returns the trimmed text of line, and the operator the mutant
// changes there, numbered among the same operators of the line ("<#1"),
// so that a mutant is known by what it changes, wherever the line moves.
func (s *source) operator(line, col int) (text, op string) {
	if line < 1 || line > len(s.lines) {
		return "", ""
	}
	l := s.lines[line-1]
	text = strings.TrimSpace(l)
	if col < 1 || col > len(l) {
		return text, ""
	}
	tok := leadingOperator(l[col-1:])
	n := strings.Count(l[:col-1], tok) + 1
	return text, fmt.Sprintf("%s#%d", tok, n)
}

// leadingOperator returns the Go operator s starts with.
func leadingOperator(s string) string {
	for _, op := range []string{"<<=", ">>=", "&^=", "&&", "||", "<=", ">=", "==", "!=", "++", "--", "+=", "-=", "*=", "/=", "%=", "<<", ">>", "&^", "<", ">", "+", "-", "*", "/", "%", "!", "&", "|", "^"} {
		if strings.HasPrefix(s, op) {
			return op
		}
	}
	if s != "" {
		return s[:1]
	}
	return ""
}

// funcAt names the function declaration holding line: "Name" or
// "(*Type).Name", or "" outside any.
func (s *source) funcAt(line int) string {
	for _, d := range s.file.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok {
			continue
		}
		if s.fset.Position(fd.Pos()).Line <= line && line <= s.fset.Position(fd.End()).Line {
			if fd.Recv == nil || len(fd.Recv.List) == 0 {
				return fd.Name.Name
			}
			var b strings.Builder
			recv := fd.Recv.List[0].Type
			if st, ok := recv.(*ast.StarExpr); ok {
				b.WriteString("(*")
				writeType(&b, st.X)
				b.WriteString(")")
			} else {
				writeType(&b, recv)
			}
			return b.String() + "." + fd.Name.Name
		}
	}
	return ""
}

// writeType writes a receiver's type name, without type parameters.
func writeType(b *strings.Builder, e ast.Expr) {
	switch t := e.(type) {
	case *ast.Ident:
		b.WriteString(t.Name)
	case *ast.IndexExpr:
		writeType(b, t.X)
	case *ast.IndexListExpr:
		writeType(b, t.X)
	}
}

// kitModule writes the scratch module the kit targets mutate: a copy of
// bloom's files (line for line, so that a mutant's position is bloom's)
// and one test, compat.TestPort with every hook. It returns its directory.
//
// With diff, the module is a git repository of two commits, bloom as at
// the merge base of diff and HEAD, then as now, so that gremlins' diff
// against HEAD~1 there finds the lines changed in bloom.
func kitModule(root, diff string) (string, error) {
	dir := filepath.Join(root, ".cache", "mutants", "kit")
	if err := os.RemoveAll(dir); err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Join(dir, "bloom"), 0o755); err != nil {
		return "", err
	}
	gomod := fmt.Sprintf("module %s\n\ngo 1.22\n\nrequire github.com/ldbcompat/ldbcompat v0.0.0\n\nreplace github.com/ldbcompat/ldbcompat => %s\n", kitModulePath, root)
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		return "", err
	}
	for name, b := range map[string][]byte{"go.mod": []byte(gomod), "go.sum": sum, "bloom/kit_test.go": []byte(kitTest), "bloom/export_test.go": []byte(kitExport)} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return "", err
		}
	}
	if diff != "" {
		base, err := git(root, "merge-base", diff, "HEAD")
		if err != nil {
			return "", err
		}
		base = strings.TrimSpace(base)
		names, err := git(root, "ls-tree", "--name-only", base, "bloom/")
		if err != nil {
			return "", err
		}
		var copied []string
		for _, n := range strings.Fields(names) {
			if !bloomSource(path.Base(n)) {
				continue
			}
			b, err := git(root, "show", base+":"+n)
			if err != nil {
				return "", err
			}
			if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(n)), []byte(b), 0o644); err != nil {
				return "", err
			}
			copied = append(copied, n)
		}
		if err := kitCommit(dir, "bloom at "+base, true); err != nil {
			return "", err
		}
		for _, n := range copied {
			if err := os.Remove(filepath.Join(dir, filepath.FromSlash(n))); err != nil {
				return "", err
			}
		}
	}
	ents, err := os.ReadDir(filepath.Join(root, "bloom"))
	if err != nil {
		return "", err
	}
	for _, e := range ents {
		if e.IsDir() || !bloomSource(e.Name()) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(root, "bloom", e.Name()))
		if err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(dir, "bloom", e.Name()), b, 0o644); err != nil {
			return "", err
		}
	}
	if diff != "" {
		if err := kitCommit(dir, "bloom now", false); err != nil {
			return "", err
		}
	}
	return dir, nil
}

// bloomSource tells whether name is one of bloom's files the kit mutates
// or builds: its Go files and assembly, not its tests.
func bloomSource(name string) bool {
	return !strings.HasSuffix(name, "_test.go") && (strings.HasSuffix(name, ".go") || strings.HasSuffix(name, ".s"))
}

// kitCommit commits everything in the scratch module's directory, making
// it a repository first if init.
func kitCommit(dir, msg string, init bool) error {
	if init {
		if _, err := git(dir, "init", "-q"); err != nil {
			return err
		}
	}
	if _, err := git(dir, "add", "-A"); err != nil {
		return err
	}
	_, err := git(dir, "-c", "user.name=make mutants", "-c", "user.email=mutants@localhost", "commit", "-q", "--allow-empty", "--no-verify", "-m", msg)
	return err
}

// git runs git with args in dir and returns its output.
func git(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s (in %s): %w: %s", strings.Join(args, " "), dir, err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}

// kitModulePath is the scratch module's path: under this module's, so
// that its test may use this module's internal packages (the table reader
// and writer of its ReadDB and WriteDB).
const kitModulePath = "github.com/ldbcompat/ldbcompat/mutants/kit"

// kitTest is the scratch module's one test: the kit on the copy of bloom,
// with every hook it can serve. ReadDB and WriteDB put the copy's policy
// and filter block builder and reader around a minimal table reader and
// writer (internal/tabledb), since bloom has no database of its own.
//
// bloom's KeyMayMatch has two probe loops with the same answers, one
// returning at the first clear bit and one reading all k bits, and
// CreateFilter two ways of setting the probes, scalar and the vector
// kernel (vector_*.go, where the processor has AVX2); which ones run
// depends on the processor (cpu_*.go, vector_*.go). The kit runs three
// times, as on three machines, the choices of AMD's families 25 and 26
// and Intel's, so that a mutant in any of them is judged wherever make
// mutants runs (kitExport sets the choices). The filter of 2^32 bits (kit-live's LDBCOMPAT_WIDE=1) is
// built and read in one of the runs, one with the vector kernel: the wide
// paths are the same code whatever the choices, but for addHashes's
// choice of the kernel, and each build of it is 512 MiB of fresh memory
// on both sides, which took most of a mutant's time (a virtual machine
// where that costs 50 s of system time a mutant, three runs of it).
const kitTest = `package bloom_test

import (
	"testing"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/compat"
	"github.com/ldbcompat/ldbcompat/internal/table/tabletest"
	"github.com/ldbcompat/ldbcompat/internal/tabledb"
	port "` + kitModulePath + `/bloom"
)

func TestKit(t *testing.T) {
	// As on AMD's family 25, on its family 26 and on Intel.
	for _, c := range []struct {
		name                         string
		earlyExit, divProbes, vector bool
		wide                         bool // the filter of 2^32 bits, when LDBCOMPAT_WIDE=1
	}{
		{"first-clear-bit,divided,vector", true, true, true, false},
		{"first-clear-bit,vector", true, false, true, true},
		{"all-k-bits,scalar", false, false, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if !c.wide {
				t.Setenv("LDBCOMPAT_WIDE", "")
			}
			defer port.SetPaths(c.earlyExit, c.divProbes, c.vector)()
			testKit(t)
		})
	}
}

func testKit(t *testing.T) {
	compat.TestPort(t, compat.Port{
		Name:      "bloom (mutated)",
		Hash:      port.Hash,
		NewPolicy: func(b int) bloom.FilterPolicy { return port.NewPolicy(b) },
		NewFilterBlockBuilder: func(p bloom.FilterPolicy) compat.FilterBlockBuilder {
			return port.NewFilterBlockBuilder(p)
		},
		NewFilterBlockReader: func(p bloom.FilterPolicy, c []byte) compat.FilterBlockReader {
			return port.NewFilterBlockReader(p, c)
		},
		ReadDB: func(dir string, bits int, keys [][]byte) ([]bool, error) {
			return tabledb.Read(dir, port.NewPolicy(bits), func(p bloom.FilterPolicy, c []byte) tabledb.FilterBlockReader {
				return port.NewFilterBlockReader(p, c)
			}, keys)
		},
		WriteDB: func(dir string, kvs [][2][]byte, bits int) error {
			return tabledb.Write(dir, kvs, port.NewPolicy(bits), func(p bloom.FilterPolicy) tabletest.FilterBlockBuilder {
				return port.NewFilterBlockBuilder(p)
			})
		},
	})
}
`

// kitExport is a test file of the copied package: it lets the kit's test
// choose the probe loop and the way probes are set (bloom's
// earlyExitFaster, divProbesFaster and vectorCreateFaster, cpu_*.go and
// vector_*.go). A rename of any of them in bloom fails the kit targets'
// build, loudly.
const kitExport = `package bloom

// SetPaths makes the policies made from now on return at the first clear
// bit (earlyExit), with two probes by division (divProbes), or read all k
// bits, and set probes in the vector kernel where there is one (vector) or
// in scalar code; it returns what restores the processor's choices.
func SetPaths(earlyExit, divProbes, vector bool) (restore func()) {
	oldEarly, oldDiv, oldVector := earlyExitFaster, divProbesFaster, vectorCreateFaster
	earlyExitFaster, divProbesFaster, vectorCreateFaster = earlyExit, divProbes, vector
	return func() { earlyExitFaster, divProbesFaster, vectorCreateFaster = oldEarly, oldDiv, oldVector }
}
`
