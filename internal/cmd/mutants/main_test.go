package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

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
		"- timed out, INCREMENT_DECREMENT `++#1` at `bloom/a.go:6`",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
}
