// Command mutants measures how much the suite catches: it runs mutation
// testing (gremlins) on each target, judges every mutant that survives
// against the committed explanations, and writes docs/mutants.md.
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
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"
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
	// Run selects the tests (go test -run), Short sets -short: what keeps
	// a package's run within the time a session allows. Empty: all.
	Run   string
	Short bool
	// About says what judges the package, for the report.
	About string
}

var targets = []target{
	{Name: "kit", Kit: true, Pkg: "bloom", About: "package `bloom` as a port, judged by `compat.TestPort` alone (every hook: Hash, NewPolicy, the filter block builder and reader, ReadDB and WriteDB through a minimal table reader and writer); golden vectors only"},
	{Name: "kit-live", Kit: true, Pkg: "bloom", Tags: "leveldb", About: "the same, live against upstream LevelDB through cgo and levigo (`-tags leveldb`)"},
	{Name: "table", Pkg: "internal/table", Short: true, About: "`internal/table` by its own tests (`-short`: the bit-flip sweeps over the smallest fixtures)"},
	{Name: "table-live", Pkg: "internal/table", Tags: "leveldb", Short: true, About: "the same with `-tags leveldb`: the upstream differentials too"},
	{Name: "manifest", Pkg: "internal/manifest", About: "`internal/manifest` by its own tests"},
	{Name: "manifest-live", Pkg: "internal/manifest", Tags: "leveldb", About: "the same with `-tags leveldb`"},
	{Name: "filtercheck", Pkg: "internal/filtercheck", About: "`internal/filtercheck` by its own tests"},
	{Name: "filtercheck-live", Pkg: "internal/filtercheck", Tags: "leveldb", About: "the same with `-tags leveldb`"},
	{Name: "verify", Pkg: "internal/verify", About: "`internal/verify` by its own tests"},
	{Name: "verify-live", Pkg: "internal/verify", Tags: "leveldb", About: "the same with `-tags leveldb`"},
}

func main() {
	gremlins := flag.String("gremlins", ".cache/bin/gremlins", "the gremlins binary")
	only := flag.String("targets", "", "comma-separated targets to run (default: all)")
	diff := flag.String("diff", "", "run only mutants on lines changed since this git reference")
	out := flag.String("out", "", "write the report here (default: none with -diff, else docs/mutants.md)")
	reasons := flag.String("reasons", "tools/mutants/survivors.txt", "the explanations of surviving mutants")
	workers := flag.Int("workers", runtime.NumCPU(), "gremlins workers")
	coefficient := flag.Int("timeout-coefficient", 10, "gremlins' timeout: the coverage run's time times this")
	flag.Parse()
	if *out == "" && *diff == "" {
		*out = "docs/mutants.md"
	}
	if err := run(*gremlins, *only, *diff, *out, *reasons, *workers, *coefficient); err != nil {
		fmt.Fprintln(os.Stderr, "mutants:", err)
		os.Exit(1)
	}
}

func run(gremlins, only, diff, out, reasonsFile string, workers, coefficient int) error {
	root, err := os.Getwd()
	if err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		return errors.New("run it from the repository root")
	}
	gremlins, err = filepath.Abs(gremlins)
	if err != nil {
		return err
	}
	reasons, err := readReasons(reasonsFile)
	if err != nil {
		return err
	}
	var run []target
	for _, t := range targets {
		if only == "" || slices.Contains(strings.Split(only, ","), t.Name) {
			run = append(run, t)
		}
	}
	if len(run) == 0 {
		return fmt.Errorf("no target named in %q", only)
	}
	rep := report{Date: time.Now().UTC().Format("2006-01-02"), CPU: cpuName(), Go: runtime.Version(),
		Workers: workers, Coefficient: coefficient, Diff: diff}
	start := time.Now()
	for _, t := range run {
		res, err := runTarget(root, gremlins, t, diff, workers, coefficient)
		if err != nil {
			return fmt.Errorf("%s: %w", t.Name, err)
		}
		res.judge(reasons)
		fmt.Fprintf(os.Stderr, "mutants: %s: %s in %s\n", t.Name, res.counts(), res.Elapsed.Round(time.Second))
		rep.Targets = append(rep.Targets, res)
	}
	rep.Elapsed = time.Since(start)
	rep.Stale = reasons.stale(rep.Targets, diff != "")
	if out != "" {
		if err := os.WriteFile(out, []byte(rep.markdown()), 0o644); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "mutants: wrote %s\n", out)
	}
	var bad []string
	for _, r := range rep.Targets {
		for _, m := range r.Mutants {
			if m.survived() && m.Reason == nil {
				bad = append(bad, fmt.Sprintf("  %s: %s %s at %s:%d:%d (%s) `%s`", r.Target.Name, m.Status, m.Type, m.File, m.Line, m.Column, m.Func, m.Text))
			}
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("%d surviving mutants are neither killed nor explained in %s: kill each with a case whose expected answer comes from upstream, or explain it there\n%s",
			len(bad), reasonsFile, strings.Join(bad, "\n"))
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
func runTarget(root, gremlins string, t target, diff string, workers, coefficient int) (*result, error) {
	dir, pkg := root, "./"+t.Pkg
	if t.Kit {
		var err error
		if dir, err = kitModule(root); err != nil {
			return nil, err
		}
		pkg = "./bloom"
	}
	outFile := filepath.Join(root, ".cache", "mutants", t.Name+".json")
	if err := os.MkdirAll(filepath.Dir(outFile), 0o755); err != nil {
		return nil, err
	}
	args := []string{"unleash", "--workers", fmt.Sprint(workers), "--timeout-coefficient", fmt.Sprint(coefficient), "-o", outFile}
	if t.Tags != "" {
		args = append(args, "--tags", t.Tags)
	}
	if diff != "" {
		args = append(args, "--diff", diff)
	}
	args = append(args, pkg)
	cmd := exec.Command(gremlins, args...)
	cmd.Dir = dir
	// Test selection reaches every go test gremlins runs through GOFLAGS,
	// which go test reads for its own flags too.
	// -vet=off: vet checks nothing a mutant changes, and costs each run.
	goflags := []string{"-vet=off"}
	if t.Run != "" {
		goflags = append(goflags, "-run="+t.Run)
	}
	if t.Short {
		goflags = append(goflags, "-short")
	}
	if t.Kit {
		goflags = append(goflags, "-mod=mod")
	}
	cmd.Env = append(os.Environ(), "GOFLAGS="+strings.Join(goflags, " "))
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	start := time.Now()
	err := cmd.Run()
	elapsed := time.Since(start)
	if err != nil {
		return nil, fmt.Errorf("gremlins %s (in %s): %w\n%s", strings.Join(args, " "), dir, err, tail(log.String(), 30))
	}
	b, err := os.ReadFile(outFile)
	if err != nil {
		return nil, err
	}
	var g gremlinsOut
	if err := json.Unmarshal(b, &g); err != nil {
		return nil, fmt.Errorf("%s: %w", outFile, err)
	}
	res := &result{Target: t, Elapsed: elapsed}
	srcDir := filepath.Join(dir, pkg)
	for _, f := range g.Files {
		src, err := newSource(filepath.Join(srcDir, f.FileName))
		if err != nil {
			return nil, err
		}
		for _, m := range f.Mutations {
			mu := &mutant{File: filepath.ToSlash(filepath.Join(t.Pkg, f.FileName)), Line: m.Line, Column: m.Column, Type: m.Type, Status: m.Status}
			mu.Text, mu.Op = src.operator(m.Line, m.Column)
			mu.Func = src.funcAt(m.Line)
			res.Mutants = append(res.Mutants, mu)
		}
	}
	sort.Slice(res.Mutants, func(i, j int) bool {
		a, b := res.Mutants[i], res.Mutants[j]
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
	res.Timeout = timeoutOf(log.String())
	return res, nil
}

// timeoutOf finds, in gremlins' log, the timeout each test run had ("" if
// it does not say).
func timeoutOf(log string) string {
	for _, l := range strings.Split(log, "\n") {
		if i := strings.Index(l, "timeout"); i >= 0 && strings.Contains(strings.ToLower(l), "coverage") {
			return strings.TrimSpace(l)
		}
	}
	return ""
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
func kitModule(root string) (string, error) {
	dir := filepath.Join(root, ".cache", "mutants", "kit")
	if err := os.RemoveAll(dir); err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Join(dir, "bloom"), 0o755); err != nil {
		return "", err
	}
	ents, err := os.ReadDir(filepath.Join(root, "bloom"))
	if err != nil {
		return "", err
	}
	for _, e := range ents {
		n := e.Name()
		if e.IsDir() || strings.HasSuffix(n, "_test.go") || !(strings.HasSuffix(n, ".go") || strings.HasSuffix(n, ".s")) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(root, "bloom", n))
		if err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(dir, "bloom", n), b, 0o644); err != nil {
			return "", err
		}
	}
	gomod := fmt.Sprintf("module %s\n\ngo 1.22\n\nrequire github.com/ldbcompat/ldbcompat v0.0.0\n\nreplace github.com/ldbcompat/ldbcompat => %s\n", kitModulePath, root)
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		return "", err
	}
	for name, b := range map[string][]byte{"go.mod": []byte(gomod), "go.sum": sum, "bloom/kit_test.go": []byte(kitTest)} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return "", err
		}
	}
	return dir, nil
}

// kitModulePath is the scratch module's path: under this module's, so
// that its test may use this module's internal packages (the table reader
// and writer of its ReadDB and WriteDB).
const kitModulePath = "github.com/ldbcompat/ldbcompat/mutants/kit"

// kitTest is the scratch module's one test: the kit on the copy of bloom,
// with every hook it can serve. ReadDB and WriteDB put the copy's policy
// and filter block builder and reader around a minimal table reader and
// writer (internal/tabledb), since bloom has no database of its own.
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
