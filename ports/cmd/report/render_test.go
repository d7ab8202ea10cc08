package main

import (
	"strings"
	"testing"

	"github.com/ldbcompat/ldbcompat/internal/kit"
	"github.com/ldbcompat/ldbcompat/ports/internal/row"
	"github.com/ldbcompat/ldbcompat/ports/internal/users"
)

func group(h kit.Harm, effect, c string, n int) row.Group {
	return row.Group{Effect: effect, Harm: h, N: n, First: kit.Failure{Case: c, Detail: "d " + c, Repro: "r " + c}}
}

// TestFindingsOrder: findings sort by harm, false negatives first; among
// equally harmful ones those measured on databases first, then the larger
// share of failing cases; the same failure on two rows is one finding.
func TestFindingsOrder(t *testing.T) {
	rows := []row.Row{
		{Module: "a", Version: "v1", Results: []row.Result{
			{Property: kit.PropName, Outcome: kit.Fail, Cases: 1, Failures: 1, Groups: []row.Group{group(kit.HarmSlower, "slow", "name", 1)}},
			{Property: kit.PropKeyMayMatch, Outcome: kit.Fail, Cases: 10, Failures: 5, Groups: []row.Group{group(kit.HarmFalseNegatives, "fn", "kmm", 5)}},
		}},
		{Module: "b", Version: "v1", Results: []row.Result{
			{Property: kit.PropName, Outcome: kit.Fail, Cases: 1, Failures: 1, Groups: []row.Group{group(kit.HarmSlower, "slow", "name", 1)}},
			{Property: kit.PropReadDB, Outcome: kit.Fail, Cases: 8, Failures: 2, Groups: []row.Group{group(kit.HarmFalseNegatives, "fn", "db1", 2)}},
			{Property: kit.PropWriteDB, Outcome: kit.Fail, Cases: 2, Failures: 2, Groups: []row.Group{group(kit.HarmFalseNegatives, "fn", "db2", 2)}},
			{Property: kit.PropHash, Outcome: kit.Fail, Cases: 3, Failures: 3, Groups: []row.Group{group(kit.HarmCrash, "crash", "h", 3)}},
		}},
	}
	fs := collect(rows)
	var got []string
	for _, f := range fs {
		got = append(got, f.first.Case)
	}
	want := []string{"db2", "db1", "kmm", "h", "name"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("findings in order %v, want %v", got, want)
	}
	if last := fs[len(fs)-1]; len(last.rows) != 2 {
		t.Errorf("the filter name finding of both rows is on rows %v, want both", last.rows)
	}
}

// TestCountsAgree: the counts a report prints agree with their nouns and
// verbs when one thing is counted.
func TestCountsAgree(t *testing.T) {
	one := row.Row{Results: []row.Result{{Property: kit.PropName, Outcome: kit.Fail, Cases: 1, Failures: 1,
		Groups: []row.Group{group(kit.HarmSlower, "slow", "name", 1)}}, {Property: kit.PropHash, Outcome: kit.Pass, Cases: 3}}}
	if got, want := verdict(one), "1 of 2 checks fails"; got != want {
		t.Errorf("verdict = %q, want %q", got, want)
	}
	one.Errors = []string{"e"}
	if got, want := verdict(one), "1 check fails, 1 suite error"; got != want {
		t.Errorf("verdict with a suite error = %q, want %q", got, want)
	}
	if got := collect([]row.Row{one})[0].counts[0]; got != "1 of 1 case" {
		t.Errorf("a finding's count is %q, want %q", got, "1 of 1 case")
	}
}

// TestUsersOf: a row's users are the requires of its module at its
// version (noting a user that replaces it in its own builds) and the
// replaces by the row's module and version; nothing else.
func TestUsersOf(t *testing.T) {
	const m, v1, v2, fork = "example.com/db", "v1.0.0", "v2.0.0", "example.com/fork"
	uf := &users.File{Facts: []users.Fact{
		{User: "example.com/a@v1.0.0", Directive: users.Require, Module: m, Version: v1, Line: 5},
		{User: "example.com/b@v1.0.0", Directive: users.Require, Module: m, Version: v2, Line: 6},
		{User: "example.com/b@v1.0.0", Directive: users.Replace, Module: m, By: m, Version: v1, Line: 9},
		{User: "example.com/c@v1.0.0", Directive: users.Replace, Module: m, By: fork, Version: v1, Line: 7},
		{User: "example.com/d@v1.0.0", Directive: users.NoReplace, Module: m},
	}}
	texts := func(r row.Row) string {
		var out []string
		for _, u := range usersOf(r, uf) {
			out = append(out, u.text(false))
		}
		return strings.Join(out, ", ")
	}
	if got, want := texts(row.Row{Module: m, Version: v1}), "`example.com/a@v1.0.0`, `example.com/b@v1.0.0` (replace)"; got != want {
		t.Errorf("users of %s %s: %s, want %s", m, v1, got, want)
	}
	if got := texts(row.Row{Module: m, Version: v2}); !strings.HasPrefix(got, "`example.com/b@v1.0.0` (requires it, but its own builds run its replace: example.com/db v1.0.0") {
		t.Errorf("users of %s %s: %s, want b, noting its replace", m, v2, got)
	}
	if got, want := texts(row.Row{Module: m, Version: "v0.1.0", Fork: fork, ForkVersion: v1}), "`example.com/c@v1.0.0` (replace)"; got != want {
		t.Errorf("users of the fork: %s, want %s", got, want)
	}
}

// TestTidyModCache: a panic's frames name files in the module cache by
// module path and version, wherever GOMODCACHE is, and files of this
// repository by their path in it: the report is the same in every
// checkout and with every module cache.
func TestTidyModCache(t *testing.T) {
	old := modCache
	defer func() { modCache = old }()
	modCache = "/tmp/elsewhere/mods"
	// The kit's panic details: frames without their offsets.
	d := "port panics: boom\n" +
		"    example.com/x.F(...)\n    /tmp/elsewhere/mods/example.com/x@v1.0.0/x.go:37\n" +
		"    example.com/y.G(...)\n    /root/go/pkg/mod/example.com/y@v1.2.0/y.go:5\n"
	if root != "" {
		d += "    github.com/ldbcompat/ldbcompat/ports/x.Policy.KeyMayMatch(...)\n    " + root + "ports/x/x.go:91\n"
	}
	got := tidy(d)
	for _, want := range []string{"    example.com/x@v1.0.0/x.go:37", "    example.com/y@v1.2.0/y.go:5"} {
		if !strings.Contains(got, want+"\n") && !strings.HasSuffix(got, want) {
			t.Errorf("tidy gives\n%s\nwant a line %q", got, want)
		}
	}
	if root != "" && !strings.HasSuffix(got, "    ports/x/x.go:91") {
		t.Errorf("tidy gives\n%s\nwant the repository's file as ports/x/x.go:91", got)
	}
	if strings.Contains(got, "/tmp/") || strings.Contains(got, "/root/") {
		t.Errorf("tidy keeps a path that varies:\n%s", got)
	}
}

// TestTables: every property has a heading, in one of the two tables of
// the report, and each row of a table has as many cells as its heading.
func TestTables(t *testing.T) {
	r := row.Row{Module: "example.com/db", Version: "v1.0.0"}
	for _, p := range kit.Properties() {
		if columns[p] == "" {
			t.Errorf("property %q has no column heading", p)
		}
		r.Results = append(r.Results, row.Result{Property: p, Outcome: kit.Pass, Cases: 1})
	}
	out := string(render([]row.Row{r, r}, &users.File{}, nil))
	headings := 0
	cells := 0
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(line, "| implementation |"):
			headings++
			cells = strings.Count(line, "|")
			for _, p := range tableProps(headings == 2) {
				if !strings.Contains(line, "| "+columns[p]+" |") {
					t.Errorf("heading %d lacks %q: %s", headings, columns[p], line)
				}
			}
		case strings.HasPrefix(line, "| [example.com/db]"):
			if n := strings.Count(line, "|"); n != cells {
				t.Errorf("a row of table %d has %d bars, its heading %d: %s", headings, n, cells, line)
			}
		}
	}
	if headings != 2 {
		t.Errorf("the report has %d tables, want 2", headings)
	}
	if n := len(tableProps(false)) + len(tableProps(true)); n != len(kit.Properties()) {
		t.Errorf("the tables have %d properties, the kit %d", n, len(kit.Properties()))
	}
}
