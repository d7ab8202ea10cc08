package main

import (
	"cmp"
	"fmt"
	"os"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/ldbcompat/ldbcompat/internal/bench"
	"github.com/ldbcompat/ldbcompat/internal/plural"
)

// mutant is one mutation gremlins made, named by what it changes: the
// package's file, the function, the line's text and the operator there.
type mutant struct {
	File         string // path in the repository (bloom/x.go for the kit)
	Line, Column int
	Type, Status string
	Func, Text   string
	Op           string  // "<#1": the first < of the line
	Reason       *reason // why it may survive, when it did
	Rerun        bool    // run by this tool, not gremlins
}

// survived tells whether m lived or no test covers it.
func (m *mutant) survived() bool { return m.Status == "LIVED" || m.Status == "NOT COVERED" }

// key names m in the reasons file.
func (m *mutant) key(target string) string {
	return strings.Join([]string{target, m.File, m.Func, m.Type, m.Op, m.Text}, " | ")
}

// result is one target's run.
type result struct {
	Target      target
	Mutants     []*mutant
	Outside     []*mutant // in code Target.Outside names
	Elapsed     time.Duration
	Coefficient int           // gremlins' timeout coefficient
	Timeout     time.Duration // the timeout it gave
	NoChange    bool          // a diff run found no change in the package
	Unsampled   []*mutant     // a diff run's mutants left out of its sample
	Reused      string        // when the gremlins run -reuse kept was made
}

// count counts r's mutants of status s, and of those explained as class
// when class is given.
func (r *result) count(s string, class ...string) int {
	n := 0
	for _, m := range r.Mutants {
		if m.Status == s && (class == nil || m.Reason != nil && m.Reason.Class == class[0]) {
			n++
		}
	}
	return n
}

// counts formats the counts of each status.
func (r *result) counts() string {
	return fmt.Sprintf("%d killed, %d lived, %d not covered, %d timed out, %d not viable",
		r.count("KILLED"), r.count("LIVED"), r.count("NOT COVERED"), r.count("TIMED OUT"), r.count("NOT VIABLE"))
}

// judge attaches to each survivor its reason from rs.
func (r *result) judge(rs *reasons) {
	for _, m := range r.Mutants {
		if m.survived() {
			m.Reason = rs.find(r.Target.Name, m)
		}
	}
}

// reason explains why a mutant may survive.
type reason struct {
	Class string // "equivalent" or "out of reach"
	Why   string
	key   string
	used  bool
}

// reasons is the reasons file: lines of
//
//	TARGET | FILE | FUNC | TYPE | OP | LINE TEXT | CLASS | WHY
//
// where a TARGET without "-live" covers both modes; # starts a comment.
type reasons struct {
	byKey map[string]*reason
	path  string
}

func readReasons(path string) (*reasons, error) {
	rs := &reasons{byKey: map[string]*reason{}, path: path}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	for i, l := range strings.Split(string(b), "\n") {
		n, l := i+1, strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		parts := strings.Split(l, " | ")
		if len(parts) != 8 {
			return nil, fmt.Errorf("%s:%d: want 8 fields separated by \" | \", got %d", path, n, len(parts))
		}
		class := parts[6]
		if class != "equivalent" && class != "out of reach" {
			return nil, fmt.Errorf("%s:%d: class %q, want equivalent or out of reach", path, n, class)
		}
		key := strings.Join(parts[:6], " | ")
		if _, dup := rs.byKey[key]; dup {
			return nil, fmt.Errorf("%s:%d: %s explained twice", path, n, key)
		}
		rs.byKey[key] = &reason{Class: class, Why: parts[7], key: key}
	}
	return rs, nil
}

// find returns m's reason under target, or under target's mode-less name.
func (rs *reasons) find(target string, m *mutant) *reason {
	for _, t := range []string{target, strings.TrimSuffix(target, "-live")} {
		if r := rs.byKey[m.key(t)]; r != nil {
			r.used = true
			return r
		}
	}
	return nil
}

// stale lists the reasons of the targets run that no survivor used; none
// for a diff run, which sees only some mutants.
func (rs *reasons) stale(res []*result, diff bool) []string {
	if diff {
		return nil
	}
	ran := map[string]bool{}
	for _, r := range res {
		ran[r.Target.Name] = true
		ran[strings.TrimSuffix(r.Target.Name, "-live")] = true
	}
	var out []string
	for k, r := range rs.byKey {
		if !r.used && ran[strings.SplitN(k, " | ", 2)[0]] {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// report is docs/mutants.md.
type report struct {
	Date, CPU, Go, Diff  string
	Workers, Coefficient int
	MinTimeout           time.Duration
	Targets              []*result
	Elapsed              time.Duration
	Stale                []string
}

// totalTime says how long the measurement took: with reused results, the
// targets' times summed beside this run's.
func (r *report) totalTime() string {
	var sum time.Duration
	reused := 0
	for _, t := range r.Targets {
		sum += t.Elapsed
		if t.Reused != "" {
			reused++
		}
	}
	if reused == 0 {
		return fmt.Sprintf("%s in all", r.Elapsed.Round(time.Second))
	}
	return fmt.Sprintf("%s in all, the targets' times summed (this run, which reused the gremlins results of %d of them, took %s)",
		sum.Round(time.Second), reused, r.Elapsed.Round(time.Second))
}

// markdown renders the report.
func (r *report) markdown() string {
	var b strings.Builder
	b.WriteString("# Mutation testing: how much the suite catches\n\n")
	b.WriteString("<!-- Generated by `make mutants` (internal/cmd/mutants); do not edit. -->\n\n")
	fmt.Fprintf(&b, "Measured %s on %s, %s, gremlins %s (its default mutators: arithmetic, conditional boundaries and negations, increments, negatives) with %s: %s", r.Date, r.CPU, r.Go, gremlinsVersion, plural.Count(r.Workers, "worker"), r.totalTime())
	if r.Diff != "" {
		fmt.Fprintf(&b, ", only the mutants on lines changed since `%s`", r.Diff)
	}
	b.WriteString(".\n\n")
	b.WriteString("A mutant is a small wrong version of the code (a `<` made `<=`, a `+` made `-`, ...). ")
	b.WriteString("**Killed**: a test fails on it. **Lived**: every test passes. **Not covered**: no test runs its line. ")
	b.WriteString("**Timed out**: the tests ran past the timeout (an endless loop, in practice caught). ")
	b.WriteString("**Not viable**: it does not compile. Efficacy is killed / (killed + lived); the column beside it leaves out the lived mutants explained as equivalent, which no test can kill (the usual mutation score). ")
	fmt.Fprintf(&b, "A target's timeout is its coverage run's time times %d, raised to at least %s; each mutant's `go test` is stopped at it. ", r.Coefficient, r.MinTimeout)
	b.WriteString("Every mutant that lives or is not covered is explained below from `tools/mutants/survivors.txt`: ")
	b.WriteString("equivalent (no input tells it from the original) or out of reach (what it would take); `make mutants` fails on any other.\n\n")
	b.WriteString("| target | judged by | killed | lived | not covered | timed out | not viable | efficacy | efficacy, equivalent left out | time | timeout |\n")
	b.WriteString("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
	for _, t := range r.Targets {
		if t.NoChange {
			fmt.Fprintf(&b, "| `%s` | %s | no change | | | | | | | | |\n", t.Target.Name, t.Target.About)
			continue
		}
		k, l := t.count("KILLED"), t.count("LIVED")
		eff, effNonEq := "—", "—"
		if k+l > 0 {
			eff = fmt.Sprintf("%.1f%%", 100*float64(k)/float64(k+l))
		}
		if d := k + l - t.count("LIVED", "equivalent"); d > 0 {
			effNonEq = fmt.Sprintf("%.1f%%", 100*float64(k)/float64(d))
		}
		timeout := "—"
		if t.Timeout > 0 {
			timeout = t.Timeout.String()
		}
		about := t.Target.About
		if t.Reused != "" {
			about += fmt.Sprintf(" (gremlins' results of %s reused: the target's inputs unchanged since; its time includes that run's)", t.Reused)
		}
		if n := len(t.Unsampled); n > 0 {
			about += fmt.Sprintf(" (a sample: %s on the changed lines not run)", plural.Count(n, "more mutant"))
		}
		fmt.Fprintf(&b, "| `%s` | %s | %d | %d | %d | %d | %d | %s | %s | %s | %s |\n", t.Target.Name, about, k, l,
			t.count("NOT COVERED"), t.count("TIMED OUT"), t.count("NOT VIABLE"), eff, effNonEq, t.Elapsed.Round(time.Second), timeout)
	}
	for _, t := range r.Targets {
		var surv, timed []*mutant
		rerun := map[string]int{}
		nrerun := 0
		for _, m := range t.Mutants {
			switch {
			case m.survived():
				surv = append(surv, m)
			case m.Status == "TIMED OUT":
				timed = append(timed, m)
			}
			if m.Rerun {
				rerun[strings.ToLower(m.Status)]++
				nrerun++
			}
		}
		if len(surv)+len(timed)+len(t.Outside)+nrerun == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n## `%s`\n\n", t.Target.Name)
		if nrerun > 0 {
			var parts []string
			for _, s := range []string{"killed", "lived", "timed out", "not viable"} {
				if rerun[s] > 0 {
					parts = append(parts, fmt.Sprintf("%d %s", rerun[s], s))
				}
			}
			fmt.Fprintf(&b, "%s that gremlins takes for not covered (in case expressions whose clause ran, and in package-level declarations), or that a diff run samples, %s run by `internal/cmd/mutants` in the same way: %s.\n\n", plural.Count(nrerun, "mutant"), plural.Verb(nrerun, "was", "were"), strings.Join(parts, ", "))
		}
		for _, m := range surv {
			why := "**not explained**"
			if m.Reason != nil {
				why = m.Reason.Class + ": " + m.Reason.Why
			}
			fmt.Fprintf(&b, "- %s, %s `%s` at `%s:%d` (`%s`, in %s): %s\n", strings.ToLower(m.Status), m.Type, m.Op, m.File, m.Line, m.Text, funcName(m.Func), why)
		}
		if len(timed) > 0 {
			fmt.Fprintf(&b, "\nTimed out (timeout %s), not counted as killed or lived:\n\n", t.Timeout)
			for _, m := range timed {
				fmt.Fprintf(&b, "- %s `%s` at `%s:%d` (`%s`, in %s)\n", m.Type, m.Op, m.File, m.Line, m.Text, funcName(m.Func))
			}
		}
		if len(t.Outside) > 0 {
			b.WriteString("\nNot judged by this target, and left out of its counts:\n\n")
			for _, o := range t.Target.Outside {
				n := 0
				for _, m := range t.Outside {
					if o.contains(m) {
						n++
					}
				}
				if n == 0 {
					continue
				}
				what := funcName(o.Func)
				switch {
				case o.File != "":
					what = "`" + o.File + "`"
				case o.Text != "":
					what = fmt.Sprintf("the lines of %s holding `%s`", what, o.Text)
				}
				fmt.Fprintf(&b, "- %s in %s: %s\n", plural.Count(n, "mutant"), what, o.Why)
			}
		}
	}
	if len(r.Stale) > 0 {
		b.WriteString("\n## Explanations no mutant needed\n\nThese lines of `tools/mutants/survivors.txt` explained no survivor of this run (the code or the tests changed):\n\n")
		for _, s := range r.Stale {
			fmt.Fprintf(&b, "- `%s`\n", s)
		}
	}
	return b.String()
}

// funcName formats a function name, or says the mutant is outside any.
func funcName(f string) string {
	if f == "" {
		return "no function"
	}
	return "`" + f + "`"
}

// gremlinsVersion is the version make mutants installs.
const gremlinsVersion = "v0.6.0"

// cpuName names this machine's CPU by vendor, family and model (the model
// name may be masked).
func cpuName() string {
	f := bench.CPUInfo()
	if len(f) == 0 {
		return runtime.GOARCH
	}
	vendor := cmp.Or(map[string]string{"AuthenticAMD": "AMD", "GenuineIntel": "Intel"}[f["vendor_id"]], f["vendor_id"])
	return fmt.Sprintf("%s family %s model %s (%s)", vendor, f["cpu family"], f["model"], plural.Count(runtime.NumCPU(), "core"))
}
