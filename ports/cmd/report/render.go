package main

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"

	"github.com/ldbcompat/ldbcompat/internal/kit"
	"github.com/ldbcompat/ldbcompat/internal/plural"
	"github.com/ldbcompat/ldbcompat/ports/internal/row"
	"github.com/ldbcompat/ldbcompat/ports/internal/users"
)

// columns are the table's headings, by property.
var columns = map[kit.Property]string{
	kit.PropName:        "filter name",
	kit.PropHash:        "hash",
	kit.PropFilterBytes: "filter bytes",
	kit.PropKeyMayMatch: "KeyMayMatch",
	kit.PropBlockBytes:  "filter block bytes",
	kit.PropReader:      "filter block reader",
	kit.PropReadDB:      "reads upstream's DBs",
	kit.PropWriteDB:     "upstream reads its DBs",
	// The properties of the second table (formatProps).
	kit.PropTableBytes:   "table bytes",
	kit.PropReadTable:    "reads upstream's tables",
	kit.PropLogBytes:     "log bytes",
	kit.PropReadLog:      "reads upstream's logs",
	kit.PropLogRecovered: "upstream recovers its log",
	kit.PropRecoversLog:  "recovers upstream's log",
}

// formatProps are the properties of tables, logs and recovery, which the
// report puts in a second table (implementation and version, then these),
// so that neither is too wide to read; the others are in the first.
var formatProps = map[kit.Property]bool{
	kit.PropTableBytes: true, kit.PropReadTable: true, kit.PropLogBytes: true,
	kit.PropReadLog: true, kit.PropLogRecovered: true, kit.PropRecoversLog: true,
}

// endToEnd are the properties measured on real databases: their findings
// are what users see, and come first among equally harmful ones.
var endToEnd = map[kit.Property]bool{kit.PropReadDB: true, kit.PropWriteDB: true, kit.PropLogRecovered: true, kit.PropRecoversLog: true}

// tableProps returns the properties of the first table (second false) or
// the second, in report order.
func tableProps(second bool) []kit.Property {
	var out []kit.Property
	for _, p := range kit.Properties() {
		if formatProps[p] == second {
			out = append(out, p)
		}
	}
	return out
}

// name is how the report names a row: the module whose code it checks,
// and the version.
func name(r row.Row) string { return r.Path() + " " + r.At() }

func anchor(s string) string {
	s = strings.ToLower(s)
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

// rowLink is a table's first cell of r: its module, linked to its section.
func rowLink(r row.Row) string { return fmt.Sprintf("[%s](#%s)", r.Path(), anchor(name(r))) }

// version is a table's version cell of r.
func version(r row.Row) string {
	v := "`" + r.At() + "`"
	if r.Fork != "" {
		v += fmt.Sprintf(" (replaces `%s`)", r.Module)
	}
	return v
}

// link is a markdown link to r's section.
func link(r row.Row) string {
	return fmt.Sprintf("[%s `%s`](#%s)", r.Path(), short(r.At()), anchor(name(r)))
}

// short shortens a pseudo-version to its commit (v1.0.1-0.20210819022825-2ae1ddf74ef7
// to 2ae1ddf), and leaves other versions as they are.
func short(v string) string {
	if m := pseudoRE.FindStringSubmatch(v); m != nil {
		return m[1][:7]
	}
	return v
}

var pseudoRE = regexp.MustCompile(`-(?:0\.)?\d{14}-([0-9a-f]{12})$`)

var (
	addrRE = regexp.MustCompile(`\(0x[0-9a-f?, .{}x]*\)|\{0x[^}]*\}|\+0x[0-9a-f]+`)
	gorRE  = regexp.MustCompile(` in goroutine \d+`)
)

// root is the directory of this repository, with a trailing slash, as the
// paths of its source files in stack frames begin ("" when they do not
// begin so, as with -trimpath): tidy makes them relative to it, so that
// the report is the same in every checkout.
var root = func() string {
	const self = "/ports/cmd/report/render.go"
	_, file, _, ok := runtime.Caller(0)
	if !ok || !strings.HasPrefix(file, "/") || !strings.HasSuffix(file, self) {
		return ""
	}
	return strings.TrimSuffix(file, self) + "/"
}()

// modCache is the go command's module cache (GOMODCACHE), where the
// ports' source files are: stack frames name them under it.
var modCache = func() string {
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		return ""
	}
	return filepath.Clean(strings.TrimSpace(string(out)))
}()

// tidy makes a failure's detail stable from run to run and short: a
// panic's stack keeps only its frames' function names and files, the
// files named within the module cache (wherever GOMODCACHE puts it) or
// this repository.
func tidy(d string) string {
	if !strings.HasPrefix(d, "port panics") {
		return d
	}
	lines := strings.Split(d, "\n")
	out := []string{lines[0]}
	for _, l := range lines[1:] {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "panic(") || strings.HasPrefix(l, "/usr/local/go/") || strings.HasPrefix(l, "runtime") || strings.HasSuffix(l, "...") {
			continue
		}
		l = addrRE.ReplaceAllString(l, "(…)")
		l = gorRE.ReplaceAllString(l, "")
		if modCache != "" && strings.HasPrefix(l, modCache+"/") {
			l = l[len(modCache)+1:]
		} else if i := strings.Index(l, "/pkg/mod/"); i >= 0 {
			l = l[i+len("/pkg/mod/"):]
		} else if root != "" && strings.HasPrefix(l, root) {
			l = l[len(root):]
		} else if i := strings.Index(l, "/ldbcompat/"); i >= 0 && strings.HasPrefix(l, "/") {
			l = l[i+1:]
		}
		out = append(out, "    "+l)
		if len(out) >= 9 {
			break
		}
	}
	return strings.Join(out, "\n")
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// sentence is s capitalized, without a final period (the caller adds one).
func sentence(s string) string { return strings.TrimSuffix(capitalize(s), ".") }

// cell is a table cell: the check's outcome and, for a failure, its most
// harmful effect.
func cell(c row.Result) string {
	not := ""
	if c.Uncompared > 0 {
		not = fmt.Sprintf("; %d not compared", c.Uncompared)
	}
	switch c.Outcome {
	case kit.Pass:
		return fmt.Sprintf("✅ pass (%d%s)", c.Cases, not)
	case kit.Fail:
		h := kit.HarmOther
		if len(c.Groups) > 0 {
			h = c.Groups[0].Harm
		}
		icon := "⚠️"
		if h <= kit.HarmFails {
			icon = "❌"
		}
		return fmt.Sprintf("%s **%s** (%d of %d%s)", icon, h, c.Failures, c.Cases, not)
	}
	return "— n/a"
}

// use is a user's fact that applies to a row, with what the row needs to
// say about it.
type use struct {
	f users.Fact
	// replacedBy is set on a require whose user replaces the module: its
	// own builds run that instead.
	replacedBy string
}

// usersOf returns the facts that say who runs r: a require of r's module
// at r's version, or a replace of a module by r's.
func usersOf(r row.Row, uf *users.File) []use {
	var out []use
	for _, f := range uf.Facts {
		switch f.Directive {
		case users.Require:
			if r.Fork == "" && f.Module == r.Module && f.Version == r.Version {
				out = append(out, use{f: f, replacedBy: replacement(uf, f)})
			}
		case users.Replace:
			if f.By == r.Path() && f.Version == r.At() {
				out = append(out, use{f: f})
			}
		}
	}
	return out
}

// replacement returns what f's user replaces f's module by, or "".
func replacement(uf *users.File, f users.Fact) string {
	for _, g := range uf.Facts {
		if g.User == f.User && g.Directive == users.Replace && g.Module == f.Module {
			return g.By + " " + g.Version
		}
	}
	return ""
}

// useText is one user in a cell or a list: module@version and how its
// go.mod names the row's module.
func (u use) text(withLine bool) string {
	s := "`" + u.f.User + "`"
	var how []string
	switch {
	case u.f.Directive == users.Replace:
		how = append(how, "replace")
	case u.replacedBy != "":
		how = append(how, "requires it, but its own builds run its replace: "+u.replacedBy)
	case u.f.Indirect:
		how = append(how, "indirect")
	}
	if withLine {
		how = append(how, fmt.Sprintf("go.mod line %d", u.f.Line))
	}
	if len(how) > 0 {
		s += " (" + strings.Join(how, "; ") + ")"
	}
	return s
}

// finding is one finding of the report: a check's failures with one
// effect on one or more rows (the same cases failing the same way), or a
// measurement.
type finding struct {
	harm     kit.Harm
	prop     kit.Property // "" for a measurement
	share    float64      // the share of the check's cases that fail
	effect   string
	rows     []int
	counts   []string // per row, "N of M cases"
	first    kit.Failure
	all      []kit.Failure
	measured *row.Measured
	key      string
}

func collect(rows []row.Row) []*finding {
	var fs []*finding
	byKey := map[string]*finding{}
	for i, r := range rows {
		for _, c := range r.Results {
			for _, g := range c.Groups {
				key := fmt.Sprintf("%s\x00%s\x00%d\x00%d\x00%s\x00%s\x00%s", c.Property, g.Effect, g.N, c.Cases, g.First.Case, sameAs(g.First.Detail), g.First.Repro)
				count := fmt.Sprintf("%d of %d %s", g.N, c.Cases, plural.Noun(c.Cases, "case"))
				if f := byKey[key]; f != nil {
					f.rows = append(f.rows, i)
					f.counts = append(f.counts, count)
					continue
				}
				f := &finding{harm: g.Harm, prop: c.Property, effect: g.Effect, rows: []int{i}, counts: []string{count}, first: g.First, all: g.All, key: key,
					share: float64(g.N) / float64(max(c.Cases, 1))}
				byKey[key] = f
				fs = append(fs, f)
			}
		}
		for j := range r.Measured {
			m := &r.Measured[j]
			if m.Harm == 0 {
				continue
			}
			fs = append(fs, &finding{harm: m.Harm, effect: m.What, rows: []int{i}, measured: m, share: 1})
		}
	}
	order := map[kit.Property]int{}
	for i, p := range kit.Properties() {
		order[p] = i
	}
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if a.harm != b.harm {
			return a.harm < b.harm
		}
		// Measured on real databases and tables first.
		ea, eb := a.prop == "" || endToEnd[a.prop], b.prop == "" || endToEnd[b.prop]
		if ea != eb {
			return ea
		}
		// The larger share of cases lost first.
		if a.share != b.share {
			return a.share > b.share
		}
		if a.rows[0] != b.rows[0] {
			return a.rows[0] < b.rows[0]
		}
		return order[a.prop] < order[b.prop]
	})
	return fs
}

func render(rows []row.Row, uf *users.File, others []otherDB) []byte {
	var b bytes.Buffer
	fs := collect(rows)
	findingsOf := make([][]int, len(rows))
	for n, f := range fs {
		for _, i := range f.rows {
			findingsOf[i] = append(findingsOf[i], n)
		}
	}

	b.WriteString("# Go implementations of LevelDB against upstream LevelDB 1.23\n\n")
	b.WriteString("<!-- Generated by `make ports` (ports/cmd/report); do not edit. -->\n\n")
	upstream := "nothing"
	if len(rows) > 0 {
		upstream = rows[0].Upstream
	}
	fmt.Fprintf(&b, "Each Go implementation of LevelDB's format below is checked, at each version people run, by the conformance kit (`internal/kit.Check`: the checks `compat.TestPort` runs in a port's own tests) against %s, built by %s for %s/%s. "+
		"Its adapter in [`ports/`](../ports) uses only the implementation's public API; where a property cannot be reached through it, the cell says n/a and the notes under the row say why. "+
		"A cell gives the cases compared with upstream or, when some differ, what the most harmful difference does to users and how many cases differ. "+
		"Go builds one version of a module per build: the other versions, and the forks that keep syndtr/goleveldb's module path (usable only through a `replace` directive), are checked by the modules under [`ports/versions`](../ports/versions). "+
		"The write check's cases are the live tables of the database an implementation writes, which each adapter makes explicitly (by compacting, or by opening the database again), so the report is the same from run to run.\n\n",
		upstream, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	b.WriteString("**Who runs it** lists the modules whose go.mod requires that module at that version, or replaces a module by it, as module@version of the user: facts from their go.mod files as the Go module proxy serves them, kept in [`ports/users.json`](../ports/users.json) with the line of each, and checked again by every `make ports`. " +
		"A list of who runs each is never complete: none listed means none recorded there.\n\n")
	if !kit.Live {
		b.WriteString("**This report was built without the `leveldb` tag**: upstream was not asked live and no database was written through it; run `make ports` for the full report.\n\n")
	}

	renderTable(&b, rows, tableProps(false), uf)
	b.WriteString("\nTables, logs and recovery: the tables and logs each implementation writes, against upstream's `TableBuilder` and `log::Writer` on the same input, and whether it reads upstream's; whether upstream recovers the writes an implementation synced and left in its log, and whether it recovers the writes upstream left in its log.\n\n")
	renderTable(&b, rows, tableProps(true), nil)
	b.WriteString("\nEffects, in short: a different filter *name* makes upstream ignore the implementation's filters (slower, never wrong); ")
	b.WriteString("a different *hash*, filter *bytes* or *reader* answer can make one side report present keys missing (false negatives: data that is there reads as absent); a *panic* is a crash. ")
	b.WriteString("A table or log laid out otherwise than upstream's is harmless when upstream still reads every entry and record right (and its Get, through the table's filter and index, finds every key), and harmful when it does not; a reader that returns less than upstream's from the same table or log, or a database whose synced writes upstream does not find, loses data. ")
	b.WriteString("The cells name the harm: **false negatives** (measured: present keys read as missing), **wrong answers**, **crash**, **errors** (cannot open, read or write), **bytes differ** (may lose keys, depending on the difference), **false negatives on damaged data** (only on data upstream never writes), **slower** (no wrong answers), **harmless layout** (bytes laid out otherwise than upstream's, which upstream reads and finds right).\n")

	renderRowless(&b, rows, uf)

	b.WriteString("\n## Findings, most harmful first\n\n")
	b.WriteString("Every difference found, grouped where several rows fail the same cases the same way, ordered by harm: false negatives (present keys read as missing) first, then other wrong answers, crashes, errors, differences that may lose keys, false negatives on damaged data only, and last what only makes reads slower; among equally harmful ones, those measured on real databases and tables first. Each keeps its first case and its reproducer; the sections per row below say how each property was reached.\n")
	for n, f := range fs {
		renderFinding(&b, n, f, rows)
	}

	for i, r := range rows {
		renderRow(&b, i, r, uf, fs, findingsOf[i])
	}
	renderOthers(&b, others)
	b.WriteString("\n## Checking your own port\n\nAdd a test that calls `compat.TestPort` with your port described as a `compat.Port` (see the adapters in [`ports/`](../ports) for ports whose filter block is reachable only through a table reader):\n\n")
	b.WriteString("```go\n" + exampleTest + "```\n\n")
	b.WriteString("`go test` checks it against the golden vectors embedded in ldbcompat; `go test -tags leveldb`, with the cgo flags for LevelDB 1.23 that ldbcompat's `docker/build-leveldb.sh --print-env` prints, also asks upstream live and writes and reads databases with it.\n")
	return b.Bytes()
}

// sameAs is what must agree for two failures' details to count as the
// same finding: all of it, but of a panic only its message (the stack
// renderTable writes a table of each row's cells for props, after the
// implementation and version columns and, when uf is set, who runs it.
func renderTable(b *bytes.Buffer, rows []row.Row, props []kit.Property, uf *users.File) {
	b.WriteString("| implementation | version |")
	sep := "|---|---|"
	if uf != nil {
		b.WriteString(" who runs it |")
		sep += "---|"
	}
	for _, p := range props {
		fmt.Fprintf(b, " %s |", columns[p])
	}
	b.WriteString("\n" + sep + strings.Repeat("---|", len(props)) + "\n")
	for _, r := range rows {
		fmt.Fprintf(b, "| %s | %s |", rowLink(r), version(r))
		if uf != nil {
			var who []string
			for _, u := range usersOf(r, uf) {
				who = append(who, u.text(false))
			}
			if len(who) == 0 {
				who = []string{"none recorded"}
			}
			fmt.Fprintf(b, " %s |", strings.Join(who, "<br>"))
		}
		for _, p := range props {
			c, _ := r.Result(p)
			fmt.Fprintf(b, " %s |", cell(c))
		}
		b.WriteString("\n")
	}
}

// names each version's own files and lines).
func sameAs(detail string) string {
	if strings.HasPrefix(detail, "port panics") {
		first, _, _ := strings.Cut(detail, "\n")
		return first
	}
	return detail
}

// renderRowless lists the go.mod facts about versions no row checks.
func renderRowless(b *bytes.Buffer, rows []row.Row, uf *users.File) {
	covered := map[string]bool{}
	for _, r := range rows {
		for _, u := range usersOf(r, uf) {
			covered[fmt.Sprintf("%+v", u.f)] = true
		}
	}
	byVersion := map[string][]string{}
	var versions []string
	for _, f := range uf.Facts {
		if f.Directive == users.NoReplace || covered[fmt.Sprintf("%+v", f)] {
			continue
		}
		mod, note := f.Module+" "+f.Version, ""
		if f.Directive == users.Replace {
			mod, note = f.By+" "+f.Version, "replaces "+f.Module
		} else if rep := replacement(uf, f); rep != "" {
			note = "requires it, but its own builds run its replace: " + rep
		} else if noReplace(uf, f) {
			note = "no replace of it"
		}
		if f.Indirect {
			note = strings.TrimPrefix(note+"; indirect", "; ")
		}
		if f.Declares != "" {
			note = strings.TrimPrefix(note+"; its go.mod declares module "+f.Declares, "; ")
		}
		note = strings.TrimPrefix(note+fmt.Sprintf("; go.mod line %d", f.Line), "; ")
		if byVersion[mod] == nil {
			versions = append(versions, mod)
		}
		byVersion[mod] = append(byVersion[mod], fmt.Sprintf("`%s` (%s)", f.User, note))
	}
	if len(versions) == 0 {
		return
	}
	b.WriteString("\nVersions that users.json records in use but no row checks (older or rarer ones; each shares its code with a row's family):\n\n")
	for _, v := range versions {
		mod, ver, _ := strings.Cut(v, " ")
		fmt.Fprintf(b, "- `%s` `%s`: %s\n", mod, ver, strings.Join(byVersion[v], ", "))
	}
}

func noReplace(uf *users.File, f users.Fact) bool {
	for _, g := range uf.Facts {
		if g.User == f.User && g.Directive == users.NoReplace && g.Module == f.Module {
			return true
		}
	}
	return false
}

func renderFinding(b *bytes.Buffer, n int, f *finding, rows []row.Row) {
	fmt.Fprintf(b, "\n### Finding %d\n\n", n+1)
	var where []string
	for k, i := range f.rows {
		if f.measured != nil {
			where = append(where, link(rows[i])+", measured")
			continue
		}
		where = append(where, fmt.Sprintf("%s, %s: %s", link(rows[i]), f.prop, f.counts[k]))
	}
	fmt.Fprintf(b, "**%s** · %s\n\n", capitalize(f.harm.String()), strings.Join(where, " · "))
	if m := f.measured; m != nil {
		fmt.Fprintf(b, "**%s.** %s.\n\nHow: %s.\n\nReproduce: `%s`\n", m.What, sentence(m.Outcome), m.How, m.Repro)
		return
	}
	fmt.Fprintf(b, "%s. First, case `%s`", capitalize(f.effect), f.first.Case)
	if len(f.rows) > 1 && strings.HasPrefix(f.first.Detail, "port panics") {
		b.WriteString(" (the stack is the first row's; the others panic alike in their own files)")
	}
	fmt.Fprintf(b, ":\n\n```text\n%s\n```\n", tidy(f.first.Detail))
	if f.first.Repro != "" {
		fmt.Fprintf(b, "\nReproduce: `%s`\n", f.first.Repro)
	}
	if len(f.all) > 1 {
		b.WriteString("\nEvery case:\n\n")
		for _, x := range f.all {
			d, _, _ := strings.Cut(x.Detail, "; first:")
			fmt.Fprintf(b, "- `%s`: %s\n", x.Case, d)
		}
	}
}

func renderRow(b *bytes.Buffer, i int, r row.Row, uf *users.File, fs []*finding, mine []int) {
	fmt.Fprintf(b, "\n## %s\n\n", name(r))
	if r.Fork != "" {
		fmt.Fprintf(b, "Module `%s` at `%s`, whose go.mod declares module `%s`: built here as `%s` through `replace %s => %s %s` (module [`%s`](../%s)). ",
			r.Fork, r.ForkVersion, r.Module, r.Module, r.Module, r.Fork, r.ForkVersion, r.Built, r.Built)
	} else {
		fmt.Fprintf(b, "Module `%s` at `%s`, built in [`%s`](../%s). ", r.Module, r.Version, r.Built, r.Built)
	}
	pass, fail, skip := 0, 0, 0
	for _, c := range r.Results {
		switch c.Outcome {
		case kit.Pass:
			pass++
		case kit.Fail:
			fail++
		default:
			skip++
		}
	}
	fmt.Fprintf(b, "%s %s, %d %s, %d cannot be reached.\n\n", plural.Count(pass, "check"), plural.Verb(pass, "passes", "pass"), fail, plural.Verb(fail, "fails", "fail"), skip)
	if r.LiveNotRun != "" {
		fmt.Fprintf(b, "- **Live part not run**: %s\n", r.LiveNotRun)
	}
	for _, e := range r.Errors {
		fmt.Fprintf(b, "- **Suite error** (not the implementation's fault; the checks are incomplete): %s\n", e)
	}
	us := usersOf(r, uf)
	if len(us) == 0 {
		b.WriteString("Who runs it: none recorded in users.json.\n\n")
	} else {
		b.WriteString("Who runs it:\n\n")
		for _, u := range us {
			fmt.Fprintf(b, "- %s\n", u.text(true))
		}
		b.WriteString("\n")
	}
	b.WriteString("How the adapter reaches each property:\n\n")
	for _, p := range kit.Properties() {
		if n := r.Notes[p]; n != "" {
			fmt.Fprintf(b, "- %s: %s\n", columns[p], n)
		}
	}
	if len(mine) > 0 {
		b.WriteString("\nFindings:\n\n")
		for _, n := range mine {
			f := fs[n]
			what := string(f.prop)
			if f.measured != nil {
				what = "measured: " + f.measured.What
			} else {
				for k, j := range f.rows {
					if j == i {
						what += ", " + f.counts[k]
					}
				}
			}
			fmt.Fprintf(b, "- [Finding %d](#finding-%d): **%s**, %s\n", n+1, n+1, f.harm, what)
		}
	}
	for _, m := range r.Measured {
		if m.Harm != 0 {
			continue // a finding: listed above
		}
		fmt.Fprintf(b, "\n### %s (measured)\n\n%s.\n\nHow: %s.\n\nReproduce: `%s`\n", m.What, sentence(m.Outcome), m.How, m.Repro)
	}
}

// exampleTest is the test file a port's author adds.
const exampleTest = `package myport_test

import (
	"testing"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/compat"
	"example.com/myport"
)

func TestLevelDBCompat(t *testing.T) {
	compat.TestPort(t, compat.Port{Name: "myport", Hash: myport.Hash,
		NewPolicy: func(bits int) bloom.FilterPolicy { return myport.NewBloomFilter(bits) }})
}
`
