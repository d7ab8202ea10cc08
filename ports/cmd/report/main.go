// Command report runs the ldbcompat conformance kit (compat.Check) on every
// port adapter of package ports and writes the results as markdown: a table
// of ports by checks, and under it each failed check's first failure, its
// reproducer and its effect on the port's users. `make ports` runs it with
// -tags leveldb, so that the checks also ask upstream LevelDB live and read
// and write real databases with it, and writes docs/ports.md.
//
// Usage:
//
//	go run -tags leveldb ./cmd/report [-out ../docs/ports.md] [-other ../testdata/other]
//
// A last section reports on the databases other implementations wrote
// (testdata/other): what upstream LevelDB 1.23 does with each, asked
// through cgo/upstream, and `ldbcompat verify`'s verdicts on it.
//
// Nothing in the output is written by hand. Rerunning the command with the
// same ports, LevelDB and ldbcompat reproduces it byte for byte: the byte
// diffs are ldbcompat's own, and each adapter's WriteDB leaves the same
// tables on every run. Only the module proxy's answer about the ports
// without an adapter may change, and says so.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"time"

	"github.com/ldbcompat/ldbcompat/compat"
	"github.com/ldbcompat/ldbcompat/ports"
)

// columns are the table's headings, by property.
var columns = map[compat.Property]string{
	compat.PropName:        "filter name",
	compat.PropHash:        "hash",
	compat.PropFilterBytes: "filter bytes",
	compat.PropKeyMayMatch: "KeyMayMatch",
	compat.PropBlockBytes:  "filter block bytes",
	compat.PropReader:      "filter block reader",
	compat.PropReadDB:      "reads upstream's DBs",
	compat.PropWriteDB:     "upstream reads its DBs",
}

type checked struct {
	a       ports.Adapter
	version string
	r       compat.Report
}

type unchecked struct {
	m     ports.Missing
	probe string
}

func main() {
	out := flag.String("out", "../docs/ports.md", "write the markdown report to `file` (- for stdout)")
	otherDir := flag.String("other", "../testdata/other", "the databases other implementations wrote (`dir`)")
	flag.Parse()
	if flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "usage: report [-out file]")
		os.Exit(2)
	}
	var done []checked
	for _, a := range ports.Adapters() {
		start := time.Now()
		fmt.Fprintf(os.Stderr, "report: checking %s ...", a.Module)
		r := compat.Check(a.Port())
		fmt.Fprintf(os.Stderr, " %s in %.1fs\n", verdict(r), time.Since(start).Seconds())
		done = append(done, checked{a, moduleVersion(a.Module), r})
	}
	var missing []unchecked
	for _, m := range ports.Unadapted() {
		missing = append(missing, unchecked{m, probe(m.Module)})
	}
	others, err := loadOthers(*otherDir, "testdata/other")
	if err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		os.Exit(1)
	}
	md := render(done, missing, others)
	if *out == "-" {
		os.Stdout.Write(md)
		return
	}
	if err := os.MkdirAll(filepath.Dir(*out), 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		os.Exit(1)
	}
	if err := os.WriteFile(*out, md, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "report: wrote %s\n", *out)
}

func verdict(r compat.Report) string {
	fails := 0
	for _, c := range r.Checks {
		if c.Status == compat.StatusFail {
			fails++
		}
	}
	if len(r.Errors) > 0 {
		return fmt.Sprintf("%d checks fail, %d suite errors", fails, len(r.Errors))
	}
	return fmt.Sprintf("%d of %d checks fail", fails, len(r.Checks))
}

// moduleVersion is the version of module path this binary was built with.
func moduleVersion(path string) string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == path {
				if d.Replace != nil {
					return d.Replace.Version
				}
				return d.Version
			}
		}
	}
	return "unknown"
}

var urlRE = regexp.MustCompile(`reading https?://\S+: `)

// probe asks the module proxy for module's latest version and returns what
// it answers, without naming the proxy's host.
func probe(module string) string {
	tmp, err := os.MkdirTemp("", "ldbcompat-report-")
	if err != nil {
		return "probe failed: " + err.Error()
	}
	defer os.RemoveAll(tmp)
	cmd := exec.Command("go", "mod", "download", "-json", module+"@latest")
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	outb, _ := cmd.Output()
	var res struct{ Version, Error string }
	if err := json.Unmarshal(outb, &res); err != nil {
		return fmt.Sprintf("`go mod download %s@latest` gave no answer (%v)", module, err)
	}
	if res.Error == "" {
		return fmt.Sprintf("`go mod download %s@latest` now finds %s: an adapter can be written", module, res.Version)
	}
	e := urlRE.ReplaceAllString(res.Error, "the module proxy answers ")
	e = strings.Join(strings.Fields(e), " ")
	return fmt.Sprintf("`go mod download %s@latest`: %s", module, e)
}

func cell(c compat.CheckResult) string {
	not := ""
	if c.Uncompared > 0 {
		not = fmt.Sprintf("; %d not compared", c.Uncompared)
	}
	switch c.Status {
	case compat.StatusPass:
		return fmt.Sprintf("✅ pass (%d%s)", c.Cases, not)
	case compat.StatusFail:
		return fmt.Sprintf("❌ **fail** (%d of %d%s)", len(c.Failures), c.Cases, not)
	}
	return "— n/a"
}

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

var (
	addrRE = regexp.MustCompile(`\(0x[0-9a-f?, .{}x]*\)|\{0x[^}]*\}|\+0x[0-9a-f]+`)
	gorRE  = regexp.MustCompile(` in goroutine \d+`)
)

// root is the directory of this repository, with a trailing slash, as the
// paths of its source files in stack frames begin ("" when they do not
// begin so, as with -trimpath): tidy makes them relative to it, so that
// the report is the same in every checkout.
var root = func() string {
	const self = "/ports/cmd/report/main.go"
	_, file, _, ok := runtime.Caller(0)
	if !ok || !strings.HasPrefix(file, "/") || !strings.HasSuffix(file, self) {
		return ""
	}
	return strings.TrimSuffix(file, self) + "/"
}()

// tidy makes a failure's detail stable from run to run and short: a
// panic's stack keeps only its frames' function names and files, the
// files named within the module cache or this repository.
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
		if i := strings.Index(l, "/pkg/mod/"); i >= 0 {
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

// effectGroup is the failures of a check with one effect.
type effectGroup struct {
	effect string
	n      int // how many failures have it
	first  int // the index of the first
}

// byEffect groups c's failures by effect, the most harmful first (the
// order of c.Effect).
func byEffect(c compat.CheckResult) []effectGroup {
	var gs []effectGroup
	at := map[string]int{}
	for i, f := range c.Failures {
		if j, ok := at[f.Effect]; ok {
			gs[j].n++
			continue
		}
		at[f.Effect] = len(gs)
		gs = append(gs, effectGroup{f.Effect, 1, i})
	}
	sort.SliceStable(gs, func(i, j int) bool {
		return strings.Index(c.Effect, gs[i].effect) < strings.Index(c.Effect, gs[j].effect)
	})
	return gs
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func render(done []checked, missing []unchecked, others []otherDB) []byte {
	var b bytes.Buffer
	props := compat.Properties()
	b.WriteString("# Go ports of LevelDB against upstream LevelDB 1.23\n\n")
	b.WriteString("<!-- Generated by `make ports` (ports/cmd/report); do not edit. -->\n\n")
	upstream := "nothing"
	if len(done) > 0 {
		upstream = done[0].r.Upstream
	}
	fmt.Fprintf(&b, "Each port below is checked by `compat.Check` (the checks `compat.TestPort` runs in a port's own tests) against %s, built by %s for %s/%s. Its adapter in [`ports/`](../ports) uses only the port's public API; where a property cannot be reached through it, the cell says n/a and the notes under the port say why. A cell gives the cases compared with upstream, or how many of them differ. The write check's cases are the live tables of the database a port writes: where they depended on when the port's background compactions run, so would the counts, so each adapter makes its tables explicitly (by compacting, or by opening the database again) and the report is the same from run to run.\n\n",
		upstream, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	if !compat.Live {
		b.WriteString("**This report was built without the `leveldb` tag**: upstream was not asked live and no database was written through it; run `make ports` for the full report.\n\n")
	}
	b.WriteString("| port | version |")
	for _, p := range props {
		fmt.Fprintf(&b, " %s |", columns[p])
	}
	b.WriteString("\n|---|---|")
	for range props {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for _, d := range done {
		fmt.Fprintf(&b, "| [%s](#%s) | `%s` |", d.a.Module, anchor(d.a.Module), d.version)
		for _, p := range props {
			c, _ := d.r.Result(p)
			fmt.Fprintf(&b, " %s |", cell(c))
		}
		b.WriteString("\n")
	}
	for _, m := range missing {
		fmt.Fprintf(&b, "| [%s](#%s) | — |", m.m.Module, anchor(m.m.Module))
		for range props {
			b.WriteString(" not checked |")
		}
		b.WriteString("\n")
	}
	b.WriteString("\nEffects, in short: a different filter *name* makes upstream ignore the port's filters (slower, never wrong); ")
	b.WriteString("a different *hash*, filter *bytes* or *reader* answer can make one side report present keys missing (false negatives: data that is there reads as absent); a *panic* is a crash.\n")

	for _, d := range done {
		fmt.Fprintf(&b, "\n## %s\n\n", d.a.Module)
		fmt.Fprintf(&b, "Version `%s`. ", d.version)
		pass, fail, skip := 0, 0, 0
		for _, c := range d.r.Checks {
			switch c.Status {
			case compat.StatusPass:
				pass++
			case compat.StatusFail:
				fail++
			default:
				skip++
			}
		}
		fmt.Fprintf(&b, "%d checks pass, %d fail, %d cannot be reached.\n\n", pass, fail, skip)
		for _, e := range d.r.Errors {
			fmt.Fprintf(&b, "- **Suite error** (not the port's fault; the checks are incomplete): %s\n", e)
		}
		b.WriteString("How the adapter reaches each property:\n\n")
		for _, p := range props {
			if n := d.a.Notes[p]; n != "" {
				fmt.Fprintf(&b, "- %s: %s\n", columns[p], n)
			}
		}
		for _, p := range props {
			c, _ := d.r.Result(p)
			if c.Status != compat.StatusFail {
				continue
			}
			fmt.Fprintf(&b, "\n### %s: %d of %d cases differ\n", c.Property, len(c.Failures), c.Cases)
			for _, g := range byEffect(c) {
				f := c.Failures[g.first]
				fmt.Fprintf(&b, "\n**%s** (%d %s). First, case `%s`:\n\n```text\n%s\n```\n", capitalize(g.effect), g.n, plural(g.n, "case", "cases"), f.Case, tidy(f.Detail))
				if f.Repro != "" {
					fmt.Fprintf(&b, "\nReproduce: `%s`\n", f.Repro)
				}
			}
		}
	}
	for _, m := range missing {
		fmt.Fprintf(&b, "\n## %s\n\nNot checked: %s.\n\n", m.m.Module, m.m.Why)
		fmt.Fprintf(&b, "- Module proxy, at this run: %s\n", m.probe)
		fmt.Fprintf(&b, "- What an adapter would use (from the port's documentation, not measured): %s.\n", m.m.API)
	}
	renderOthers(&b, others)
	b.WriteString("\n## Checking your own port\n\nAdd a test that calls `compat.TestPort` with your port described as a `compat.Port` (see the adapters in [`ports/`](../ports) for ports whose filter block is reachable only through a table reader):\n\n")
	b.WriteString("```go\n" + exampleTest + "```\n\n")
	b.WriteString("`go test` checks it against the golden vectors embedded in ldbcompat; `go test -tags leveldb`, with the cgo flags for LevelDB 1.23 that ldbcompat's `docker/build-leveldb.sh --print-env` prints, also asks upstream live and writes and reads databases with it.\n")
	return b.Bytes()
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
