// Command mutants runs mutation testing (gremlins) on each target, judges
// every surviving mutant against tools/mutants/survivors.txt, and writes
// docs/mutants.md (a run of some targets writes .cache/mutants/report.md).
//
// Usage (make mutants runs it; make mutants-diff runs it with -diff):
//
//	go run ./internal/cmd/mutants -gremlins .cache/bin/gremlins [-targets kit,table] [-diff REF] [-out docs/mutants.md]
//
// The kit targets mutate a copy of a package in a scratch module under
// .cache/mutants/kit, judged by compat.TestPort alone; the others are
// judged by the package's own tests. A survivor must be explained as
// equivalent or out of reach, or the command fails.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/ldbcompat/ldbcompat/internal/plural"
)

// target is one mutation-testing run: the mutated package and the tests
// that judge it.
type target struct {
	Name string
	Kit  bool // in the scratch module, judged by compat.TestPort
	Pkg  string
	Tags string
	Env  []string // added to the tests' environment
	// Run (go test -run) and Short (-short) bound a package's run.
	Run   string
	Short bool
	About string // what judges the package, for the report
	// Outside is code the target does not judge: its mutants are counted
	// apart, not as survivors.
	Outside []outside
}

// outside is code a target leaves out: a file, a function, or the lines of
// a function holding Text.
type outside struct {
	Func, Text string
	File       string
	Why        string
}

// contains tells whether o covers m.
func (o outside) contains(m *mutant) bool {
	if o.File != "" {
		return path.Base(m.File) == o.File
	}
	return m.Func == o.Func && (o.Text == "" || strings.Contains(m.Text, o.Text))
}

var targets = []target{
	{Name: "kit", Kit: true, Pkg: "bloom", Outside: kitOutside, About: "package `bloom` as a port, judged by `compat.TestPort` alone (every hook: Hash, NewPolicy, the filter block builder and reader, ReadDB and WriteDB through a minimal table reader and writer), golden vectors only"},
	{Name: "kit-live", Kit: true, Pkg: "bloom", Tags: "leveldb", Env: []string{"LDBCOMPAT_WIDE=1"}, Outside: kitOutside, About: "the same, live against upstream LevelDB through cgo and levigo (`-tags leveldb`), with the filter of 2^32 bits (`LDBCOMPAT_WIDE=1`)"},
	{Name: "kit-block", Kit: true, Pkg: "internal/filterblock", Outside: blockOutside, About: "`internal/filterblock`, the core of bloom's filter block builder and its arithmetic, judged the same way, through the copy of bloom that wraps it; golden vectors only"},
	{Name: "kit-block-live", Kit: true, Pkg: "internal/filterblock", Tags: "leveldb", Outside: blockOutside, About: "the same, live against upstream LevelDB"},
	{Name: "kit-log", Kit: true, Pkg: "internal/logfile", Outside: logOutside, About: "`internal/logfile`'s log writer and reader as a port, judged by the kit alone (`TestPort`'s end-to-end properties: WriteLog and ReadLog), golden vectors only"},
	{Name: "kit-log-live", Kit: true, Pkg: "internal/logfile", Tags: "leveldb", Outside: logOutside, About: "the same, live against upstream's `log::Writer` and `log::Reader` through cgo"},
	{Name: "kit-table", Kit: true, Pkg: "internal/table", Outside: tableOutside, About: "`internal/table`'s table writer and its reader of every entry as a port, judged by the kit alone (`TestPort`'s end-to-end properties: WriteTable and ReadTable), golden vectors only"},
	{Name: "kit-table-live", Kit: true, Pkg: "internal/table", Tags: "leveldb", Outside: tableOutside, About: "the same, live against upstream's `TableBuilder` and `Table` through cgo"},
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
	flag.Parse()
	o.out = defaultOut(o)
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "mutants:", err)
		os.Exit(1)
	}
}

// Where the report goes: a run of some targets must not replace the
// whole report.
const (
	fullReport   = "docs/mutants.md"
	subsetReport = ".cache/mutants/report.md"
)

// defaultOut returns o.out, or none for a diff run, or the default place.
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
