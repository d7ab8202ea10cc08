package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestOperatorAndFunc(t *testing.T) {
	src := `package p

type T struct{}

func (t *T) M(a, b, c, d int) bool {
	if a < b && c < d {
		return a <= b
	}
	return false
}

func F(x int) int { return x - -1 }
`
	p := filepath.Join(t.TempDir(), "p.go")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := newSource(p)
	if err != nil {
		t.Fatal(err)
	}
	line6 := "\tif a < b && c < d {"
	for _, c := range []struct {
		line, col    int
		text, op, fn string
	}{
		{6, strings.Index(line6, "<") + 1, "if a < b && c < d {", "<#1", "(*T).M"},
		{6, strings.LastIndex(line6, "<") + 1, "if a < b && c < d {", "<#2", "(*T).M"},
		{7, strings.Index("\t\treturn a <= b", "<=") + 1, "return a <= b", "<=#1", "(*T).M"},
		{12, strings.LastIndex("func F(x int) int { return x - -1 }", "-") + 1, "func F(x int) int { return x - -1 }", "-#2", "F"},
		{3, 1, "type T struct{}", "t#1", ""},
	} {
		text, op := s.operator(c.line, c.col)
		if text != c.text || op != c.op || s.funcAt(c.line) != c.fn {
			t.Errorf("line %d col %d: %q %q %q; want %q %q %q", c.line, c.col, text, op, s.funcAt(c.line), c.text, c.op, c.fn)
		}
	}
}

func TestReasons(t *testing.T) {
	dir := t.TempDir()
	write := func(s string) string {
		p := filepath.Join(dir, "r.txt")
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const line = "kit | bloom/bloom.go | probesFor | CONDITIONALS_BOUNDARY | <#1 | if k < 1 { | equivalent | k is 1 either way"
	rs, err := readReasons(write("# comment\n\n" + line + "\n" +
		"table | internal/table/x.go | f | ARITHMETIC_BASE | +#1 | a + b | out of reach | needs a 4 GiB file\n"))
	if err != nil {
		t.Fatal(err)
	}
	m := &mutant{File: "bloom/bloom.go", Func: "probesFor", Type: "CONDITIONALS_BOUNDARY", Op: "<#1", Text: "if k < 1 {", Status: "LIVED"}
	// A mode-less target explains both modes.
	for _, target := range []string{"kit", "kit-live"} {
		if r := rs.find(target, m); r == nil || r.Class != "equivalent" || r.Why != "k is 1 either way" {
			t.Errorf("%s: %+v", target, r)
		}
	}
	other := *m
	other.Op = "<#2"
	if r := rs.find("kit", &other); r != nil {
		t.Errorf("another operator of the line is explained: %+v", r)
	}
	res := []*result{{Target: target{Name: "table"}}, {Target: target{Name: "kit"}}}
	if diff := cmp.Diff([]string{"table | internal/table/x.go | f | ARITHMETIC_BASE | +#1 | a + b"}, rs.stale(res, false)); diff != "" {
		t.Errorf("stale (-want +got):\n%s", diff)
	}
	if got := rs.stale(res, true); got != nil {
		t.Errorf("stale in a diff run: %v", got)
	}
	for _, bad := range []string{
		line + "\n" + line + "\n",
		strings.Replace(line, "equivalent", "harmless", 1) + "\n",
		"kit | a | b\n",
	} {
		if _, err := readReasons(write(bad)); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}

func TestReportListsSurvivors(t *testing.T) {
	r := &result{Target: target{Name: "kit", About: "the kit"}, Mutants: []*mutant{
		{File: "bloom/a.go", Line: 3, Type: "ARITHMETIC_BASE", Op: "+#1", Text: "a + b", Status: "KILLED"},
		{File: "bloom/a.go", Line: 4, Type: "ARITHMETIC_BASE", Op: "-#1", Text: "a - b", Status: "LIVED"},
		{File: "bloom/a.go", Line: 5, Type: "CONDITIONALS_BOUNDARY", Op: "<#1", Text: "a < b", Status: "NOT COVERED",
			Reason: &reason{Class: "out of reach", Why: "needs 512 MiB"}},
		{File: "bloom/a.go", Line: 6, Type: "INCREMENT_DECREMENT", Op: "++#1", Text: "i++", Status: "TIMED OUT"},
	}}
	md := (&report{Targets: []*result{r}}).markdown()
	for _, want := range []string{
		"| `kit` | the kit | 1 | 1 | 1 | 1 | 0 | 50.0% |",
		"- lived, ARITHMETIC_BASE `-#1` at `bloom/a.go:4` (`a - b`, in no function): **not explained**",
		"- not covered, CONDITIONALS_BOUNDARY `<#1` at `bloom/a.go:5` (`a < b`, in no function): out of reach: needs 512 MiB",
		"- INCREMENT_DECREMENT `++#1` at `bloom/a.go:6` (`i++`, in no function)",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
}

// TestReportTime checks the report's total time: the run's own when it ran
// every target, the targets' times summed when some reused the results of
// earlier gremlins runs (each target's time then includes its run's).
func TestReportTime(t *testing.T) {
	fresh := &result{Target: target{Name: "kit"}, Elapsed: 90 * time.Second}
	reused := &result{Target: target{Name: "table"}, Elapsed: 20 * time.Minute, Reused: "2026-11-24T10:00:00Z"}
	r := &report{Targets: []*result{fresh}, Elapsed: 95 * time.Second}
	if got, want := r.totalTime(), "1m35s in all"; got != want {
		t.Errorf("no target reused: %q, want %q", got, want)
	}
	r = &report{Targets: []*result{fresh, reused}, Elapsed: 100 * time.Second}
	if got, want := r.totalTime(), "21m30s in all, the targets' times summed (this run, which reused the gremlins results of 1 of them, took 1m40s)"; got != want {
		t.Errorf("one target reused: %q, want %q", got, want)
	}
}

func TestMutate(t *testing.T) {
	src := []byte("package p\n\nfunc f(a, b int) bool {\n\tswitch {\n\tcase a <= b-1:\n\t\treturn true\n\t}\n\treturn a == b\n}\n")
	for _, c := range []struct {
		line, col int
		typ, want string
	}{
		{5, strings.Index("\tcase a <= b-1:", "<=") + 1, "CONDITIONALS_BOUNDARY", "\tcase a < b-1:\n"},
		{5, strings.Index("\tcase a <= b-1:", "<=") + 1, "CONDITIONALS_NEGATION", "\tcase a > b-1:\n"},
		{5, strings.Index("\tcase a <= b-1:", "-") + 1, "ARITHMETIC_BASE", "\tcase a <= b+1:\n"},
		{8, strings.Index("\treturn a == b", "==") + 1, "CONDITIONALS_NEGATION", "\treturn a != b\n"},
	} {
		got, err := mutate(src, &mutant{File: "p/p.go", Line: c.line, Column: c.col, Type: c.typ})
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.SplitAfter(string(got), "\n")
		if lines[c.line-1] != c.want {
			t.Errorf("%s at %d:%d: line %q, want %q", c.typ, c.line, c.col, lines[c.line-1], c.want)
		}
		if len(lines) != len(strings.SplitAfter(string(src), "\n")) {
			t.Errorf("%s at %d:%d: the other lines changed:\n%s", c.typ, c.line, c.col, got)
		}
	}
	if _, err := mutate(src, &mutant{File: "p/p.go", Line: 8, Column: 2, Type: "CONDITIONALS_NEGATION"}); err == nil {
		t.Error("mutated a position holding no operator of the type")
	}
}

func TestCoverProfile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "c.out")
	prof := "mode: set\n" +
		"example.com/m/internal/p/p.go:4.10,5.15 1 1\n" +
		"example.com/m/internal/p/p.go:5.16,6.14 1 1\n" +
		"example.com/m/internal/p/p.go:7.16,8.14 1 0\n" +
		"example.com/m/internal/p/sub/q.go:5.16,6.14 1 1\n"
	if err := os.WriteFile(p, []byte(prof), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := readCoverProfile(p, "internal/p")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		file      string
		line, col int
		want      bool
	}{
		{"p.go", 5, 8, true},   // the clause starting at 5.16 ran
		{"p.go", 5, 16, false}, // nothing starts after
		{"p.go", 7, 8, false},  // its clause did not run
		{"q.go", 5, 8, false},  // another package's file
	} {
		if got := c.clauseRan(tc.file, tc.line, tc.col); got != tc.want {
			t.Errorf("clauseRan(%s, %d, %d) = %v, want %v", tc.file, tc.line, tc.col, got, tc.want)
		}
	}
}

// TestCaseEvaluated checks which case expressions count as evaluated from
// a coverage profile: a case is tried when its own clause ran, a later
// clause of its switch ran, or its default ran; not when only an earlier
// clause ran, or the clauses of another switch.
func TestCaseEvaluated(t *testing.T) {
	src := "package p\n" + // 1
		"\n" + // 2
		"func f(a int) int {\n" + // 3
		"\tswitch {\n" + // 4
		"\tcase a < 1:\n" + // 5
		"\t\treturn 1\n" + // 6
		"\tcase a < 2:\n" + // 7
		"\t\treturn 2\n" + // 8
		"\tcase a < 3:\n" + // 9
		"\t\treturn 3\n" + // 10
		"\t}\n" + // 11
		"\tswitch {\n" + // 12
		"\tcase a > 9:\n" + // 13
		"\t\treturn 9\n" + // 14
		"\tdefault:\n" + // 15
		"\t\treturn 0\n" + // 16
		"\t}\n" + // 17
		"}\n"
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "p"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "p", "p.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	col := strings.Index("\tcase a < 1:", "<") + 1
	for _, c := range []struct {
		name string
		ran  []coverBlock // clause bodies that ran: the block after a colon
		line int
		want bool
	}{
		{"own clause", []coverBlock{{7, 13}}, 7, true},
		{"a later clause", []coverBlock{{9, 13}}, 5, true},
		{"only an earlier clause", []coverBlock{{5, 13}}, 7, false},
		{"nothing", nil, 9, false},
		{"its default", []coverBlock{{15, 10}}, 13, true},
		{"another switch's clause", []coverBlock{{15, 10}}, 9, false},
	} {
		prof := coverProfile{"p.go": c.ran}
		m := &mutant{File: "p/p.go", Line: c.line, Column: col, Text: "case a"}
		if got := caseEvaluated(prof, root, m); got != c.want {
			t.Errorf("%s: the case at line %d evaluated = %v, want %v", c.name, c.line, got, c.want)
		}
	}
}

func TestCoverageTime(t *testing.T) {
	d, ok := coverageTime("Starting...\nGathering coverage... done in 12.5s\nExecuting mutation testing on covered mutants...\n")
	if !ok || d != 12500*time.Millisecond {
		t.Errorf("coverageTime = %v, %v", d, ok)
	}
	if _, ok := coverageTime("Starting...\n"); ok {
		t.Error("found a time in a log without one")
	}
}

func TestOutside(t *testing.T) {
	tg := target{Outside: []outside{{Func: "F", Why: "all of F"}, {Func: "G", Text: "legacy", Why: "G's legacy lines"}}}
	for _, c := range []struct {
		m    mutant
		want string
	}{
		{mutant{Func: "F", Text: "a < b"}, "all of F"},
		{mutant{Func: "G", Text: "x = legacy(y) + 1"}, "G's legacy lines"},
		{mutant{Func: "G", Text: "a < b"}, ""},
		{mutant{Func: "H", Text: "legacy"}, ""},
	} {
		got := ""
		if o := tg.outside(&c.m); o != nil {
			got = o.Why
		}
		if got != c.want {
			t.Errorf("%+v: outside %q, want %q", c.m, got, c.want)
		}
	}
}

// TestCommittedReasons: the committed reasons file reads, names only
// targets (or their mode-less names) that exist, and gives every reason.
func TestCommittedReasons(t *testing.T) {
	rs, err := readReasons("../../../tools/mutants/survivors.txt")
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, tg := range targets {
		names[tg.Name] = true
		names[strings.TrimSuffix(tg.Name, "-live")] = true
	}
	for k, r := range rs.byKey {
		if target := strings.SplitN(k, " | ", 2)[0]; !names[target] {
			t.Errorf("%s: no target %q", k, target)
		}
		if strings.TrimSpace(r.Why) == "" {
			t.Errorf("%s: no reason given", k)
		}
	}
}

func TestSample(t *testing.T) {
	var ms []*mutant
	for i := 0; i < 10; i++ {
		ms = append(ms, &mutant{Line: i, Status: "RUNNABLE"})
	}
	picked, others := sample(ms, 4)
	var lines []int
	for _, m := range picked {
		lines = append(lines, m.Line)
	}
	if fmt.Sprint(lines) != "[0 2 5 7]" || len(others) != 6 {
		t.Errorf("picked lines %v, %d others; want [0 2 5 7] and 6", lines, len(others))
	}
	for _, m := range others {
		if m.Status != "NOT RUN" {
			t.Errorf("line %d left out as %q", m.Line, m.Status)
		}
	}
}

// TestRunMutants runs mutants of a small module's package as the tool
// runs those gremlins leaves: killed when its test fails, lived when it
// passes, timed out when it loops, each in a copy of the module (the
// module itself is left as it was), and leaves nothing behind: no file in
// the temporary directory (the go command's work directory of the run it
// stopped, above all) and no test binary running.
func TestRunMutants(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module's tests with go test")
	}
	dir := t.TempDir()
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	src := "package p\n\n// Count counts up to n.\nfunc Count(n int) int {\n\ti := 0\n\tfor i < n {\n\t\ti++\n\t}\n\treturn i + 0\n}\n"
	test := "package p\n\nimport \"testing\"\n\nfunc TestCount(t *testing.T) {\n\tif Count(3) != 3 {\n\t\tt.Fatal(Count(3))\n\t}\n}\n"
	for name, data := range map[string]string{"go.mod": "module example.com/m\n\ngo 1.22\n", "p/p.go": src, "p/p_test.go": test} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	col := func(line, op string) int { return strings.Index(line, op) + 1 }
	ms := []*mutant{
		{File: "p/p.go", Line: 6, Column: col("\tfor i < n {", "<"), Type: "CONDITIONALS_BOUNDARY"}, // i <= n: 4
		{File: "p/p.go", Line: 7, Column: col("\t\ti++", "++"), Type: "INCREMENT_DECREMENT"},        // i--: loops
		{File: "p/p.go", Line: 9, Column: col("\treturn i + 0", "+"), Type: "ARITHMETIC_BASE"},      // i - 0: the same
		{File: "p/p.go", Line: 6, Column: col("\tfor i < n {", "<"), Type: "CONDITIONALS_NEGATION"}, // i >= n: 0
	}
	env := append(os.Environ(), "GOFLAGS=-count=1")
	if err := runMutants(ms, dir, "p", []string{"./p"}, env, 10*time.Second, 2); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range ms {
		got = append(got, m.Status)
	}
	if diff := cmp.Diff([]string{"KILLED", "TIMED OUT", "LIVED", "KILLED"}, got); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "p/p.go")); string(b) != src {
		t.Errorf("the module's file changed:\n%s", b)
	}
	if ents, err := os.ReadDir(tmp); err != nil || len(ents) != 0 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("left in the temporary directory: %v (%v)", names, err)
	}
	if pids := running("p.test"); len(pids) != 0 {
		t.Errorf("test binaries still running after runMutants: %v", pids)
	}
}

// TestInputFiles: a target's inputs are its package's files and tests and
// the non-test files of what they import, not other packages' tests (a
// change to internal/table's tests must not make verify's results stale,
// and a change to verify's own tests must).
func TestInputFiles(t *testing.T) {
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(targets, func(t target) bool { return t.Name == "verify" })
	files, err := inputFiles(root, targets[i])
	if err != nil {
		t.Fatal(err)
	}
	has := func(f string) bool { return slices.Contains(files, f) }
	for _, f := range []string{"internal/verify/check.go", "internal/verify/render_test.go", "internal/table/block.go", "bloom/bloom.go"} {
		if !has(f) {
			t.Errorf("verify's inputs leave out %s", f)
		}
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") && !strings.HasPrefix(f, "internal/verify/") {
			t.Errorf("verify's inputs hold another package's test file %s", f)
		}
	}
	o := options{workers: 2, coefficient: 5, minTimeout: 30 * time.Second}
	k1, err := inputsKey(root, targets[i], o)
	if err != nil {
		t.Fatal(err)
	}
	k2, _ := inputsKey(root, targets[i], o)
	live, _ := inputsKey(root, targets[i+1], o)
	if k1 != k2 || k1 == live {
		t.Errorf("keys: verify %s then %s, verify-live %s: want the same twice, another with the tag", k1, k2, live)
	}
}

// TestDefaultOut: the committed report is written only by a run of every
// target; a run of some writes its own, so as not to replace the whole
// report with a few of its rows; a diff run writes none unless told.
func TestDefaultOut(t *testing.T) {
	var all []string
	for _, tg := range targets {
		all = append(all, tg.Name)
	}
	for _, c := range []struct {
		o    options
		want string
	}{
		{options{}, "docs/mutants.md"},
		{options{only: strings.Join(all, ",")}, "docs/mutants.md"},
		{options{only: "kit,manifest"}, ".cache/mutants/report.md"},
		{options{only: "manifest"}, ".cache/mutants/report.md"},
		{options{only: "manifest", out: "x.md"}, "x.md"},
		{options{diff: "HEAD~1"}, ""},
		{options{diff: "HEAD~1", out: "y.md"}, "y.md"},
	} {
		if got := defaultOut(c.o); got != c.want {
			t.Errorf("defaultOut(%+v) = %q, want %q", c.o, got, c.want)
		}
	}
}

// TestEmptyDirUnreadable: a directory a stopped test left unreadable and
// unwritable (as the tests of unreadable files make them) is removed all
// the same, and the emptied directory stays.
func TestEmptyDirUnreadable(t *testing.T) {
	dir := t.TempDir()
	deep := filepath.Join(dir, "a", "b")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(deep, "f"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		p    string
		mode os.FileMode
	}{{deep, 0}, {filepath.Join(dir, "a"), 0o500}} {
		if err := os.Chmod(c.p, c.mode); err != nil {
			t.Fatal(err)
		}
	}
	if err := emptyDir(dir); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(dir)
	if err != nil || len(ents) != 0 {
		t.Errorf("after emptyDir: %d entries, %v; want the directory, empty", len(ents), err)
	}
}
