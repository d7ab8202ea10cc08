package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Go's coverage has no block for a case expression (a clause's block
// starts after its colon) nor for package-level declarations, so gremlins
// calls their mutants not covered; this tool runs them itself, as gremlins
// would (blindMutants, runMutants).

// coverProfile holds the blocks of a coverage profile that ran, by file
// name within the package.
type coverProfile map[string][]coverBlock

// coverBlock is a block of a coverage profile: where it starts.
type coverBlock struct{ line, col int }

// readCoverProfile reads the blocks that ran of package pkg's files from
// the coverage profile at p.
func readCoverProfile(p, pkg string) (coverProfile, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	prof := coverProfile{}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "mode:") {
			continue
		}
		// name.go:L1.C1,L2.C2 statements count
		name, rest, ok := strings.Cut(l, ":")
		fields := strings.Fields(rest)
		if !ok || len(fields) != 3 || fields[2] == "0" || !strings.HasSuffix(path.Dir(name), "/"+pkg) {
			continue
		}
		start, _, _ := strings.Cut(fields[0], ",")
		ls, cs, _ := strings.Cut(start, ".")
		line, err1 := strconv.Atoi(ls)
		col, err2 := strconv.Atoi(cs)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("%s: cannot read %q", p, l)
		}
		base := path.Base(name)
		prof[base] = append(prof[base], coverBlock{line, col})
	}
	return prof, nil
}

// clauseRan tells whether a block that ran starts on line of file after
// column col.
func (p coverProfile) clauseRan(file string, line, col int) bool {
	for _, b := range p[file] {
		if b.line == line && b.col > col {
			return true
		}
	}
	return false
}

// mutated maps a mutant type and operator to its replacement (gremlins'
// internal/engine/mappings.go, default types).
var mutated = map[string]map[string]string{
	"ARITHMETIC_BASE":       {"+": "-", "*": "/", "/": "*", "%": "*", "-": "+"},
	"CONDITIONALS_BOUNDARY": {">=": ">", ">": ">=", "<=": "<", "<": "<="},
	"CONDITIONALS_NEGATION": {"==": "!=", ">=": "<", ">": "<=", "<=": ">", "<": ">=", "!=": "=="},
	"INCREMENT_DECREMENT":   {"--": "++", "++": "--"},
	"INVERT_NEGATIVES":      {"-": "+"},
}

// blindMutants returns the mutants of res that gremlins left not covered
// where coverage cannot see them: in case expressions evaluated, and in
// package-level declarations.
func blindMutants(res *result, prof coverProfile, root string) []*mutant {
	var todo []*mutant
	for _, m := range res.Mutants {
		if m.Status != "NOT COVERED" {
			continue
		}
		if m.Func == "" || strings.HasPrefix(m.Text, "case ") && caseEvaluated(prof, root, m) {
			todo = append(todo, m)
		}
	}
	return todo
}

// caseEvaluated tells whether m's case expression was evaluated: the body
// of its clause ran, or of a later clause or the default (cases are tried
// in order).
func caseEvaluated(prof coverProfile, root string, m *mutant) bool {
	file := path.Base(m.File)
	if prof.clauseRan(file, m.Line, m.Column) {
		return true
	}
	src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(m.File)))
	if err != nil {
		return false
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, m.File, src, 0)
	if err != nil {
		return false
	}
	evaluated := false
	ast.Inspect(f, func(n ast.Node) bool {
		var body *ast.BlockStmt
		switch s := n.(type) {
		case *ast.SwitchStmt:
			body = s.Body
		case *ast.TypeSwitchStmt:
			body = s.Body
		default:
			return !evaluated
		}
		mine := -1
		for i, st := range body.List {
			cc := st.(*ast.CaseClause)
			start, colon := fset.Position(cc.Case), fset.Position(cc.Colon)
			at := token.Position{Line: m.Line, Column: m.Column}
			if cc.List != nil && !before(at, start) && before(at, colon) {
				mine = i
			}
		}
		if mine < 0 {
			return true
		}
		for i, st := range body.List {
			cc := st.(*ast.CaseClause)
			if i <= mine && cc.List != nil {
				continue
			}
			colon := fset.Position(cc.Colon)
			if prof.clauseRan(file, colon.Line, colon.Column) {
				evaluated = true
			}
		}
		return false
	})
	return evaluated
}

// before tells whether a comes before b in a file.
func before(a, b token.Position) bool {
	return a.Line < b.Line || a.Line == b.Line && a.Column < b.Column
}

// runMutants runs each of ms as gremlins does, in workers copies of the
// module at dir, with go test args and env, and sets its status.
func runMutants(ms []*mutant, dir, pkgRel string, args, env []string, timeout time.Duration, workers int) error {
	if len(ms) == 0 {
		return nil
	}
	workers = max(1, min(workers, len(ms)))
	todo := make(chan *mutant)
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for range workers {
		tmp, err := os.MkdirTemp("", "mutants-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		if err := copyModule(dir, tmp); err != nil {
			return err
		}
		scratch, err := os.MkdirTemp("", "mutants-tmp-")
		if err != nil {
			return err
		}
		defer removeScratch(scratch)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for m := range todo {
				if err := runIn(tmp, scratch, pkgRel, m, args, env, timeout); err != nil {
					errs <- err
					for range todo {
					}
					return
				}
			}
		}()
	}
	for _, m := range ms {
		todo <- m
	}
	close(todo)
	wg.Wait()
	close(errs)
	return <-errs
}

// runIn applies m in the module copy at dir, runs the tests, sets m's
// status and undoes m.
func runIn(dir, scratch, pkgRel string, m *mutant, args, env []string, timeout time.Duration) error {
	file := filepath.Join(dir, filepath.FromSlash(pkgRel), path.Base(m.File))
	orig, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	src, err := mutate(orig, m)
	if err != nil {
		return err
	}
	if err := os.WriteFile(file, src, 0o644); err != nil {
		return err
	}
	m.Status = runMutant(dir, scratch, args, env, timeout)
	m.Rerun = true
	if err := emptyDir(scratch); err != nil {
		return err
	}
	return os.WriteFile(file, orig, 0o644)
}

// mutate returns src with m's operator replaced as gremlins replaces it.
func mutate(src []byte, m *mutant) ([]byte, error) {
	lines := bytes.SplitAfter(src, []byte("\n"))
	if m.Line < 1 || m.Line > len(lines) {
		return nil, fmt.Errorf("%s:%d: no such line", m.File, m.Line)
	}
	l := lines[m.Line-1]
	if m.Column < 1 || m.Column > len(l) {
		return nil, fmt.Errorf("%s:%d:%d: no such column", m.File, m.Line, m.Column)
	}
	op := leadingOperator(string(l[m.Column-1:]))
	to, ok := mutated[m.Type][op]
	if !ok {
		return nil, fmt.Errorf("%s:%d:%d: no %s mutant of %q", m.File, m.Line, m.Column, m.Type, op)
	}
	nl := append(append(append([]byte(nil), l[:m.Column-1]...), to...), l[m.Column-1+len(op):]...)
	lines[m.Line-1] = nl
	return bytes.Join(lines, nil), nil
}

// runMutant runs go test args in dir, stopped at timeout, and says what
// became of the mutant, as gremlins does. Temporary files go to scratch,
// which a stopped go test cannot clean; the timeout kills the whole process
// group, lest the test binary run on.
func runMutant(dir, scratch string, args, env []string, timeout time.Duration) string {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	full := append([]string{"test", "-failfast", "-timeout", (timeout + 2*time.Second).String()}, args...)
	cmd := exec.CommandContext(ctx, "go", full...)
	cmd.Dir = dir
	cmd.Env = withTempDir(env, scratch)
	killGroupOnCancel(cmd)
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return "TIMED OUT"
	case err == nil:
		return "LIVED"
	case bytes.Contains(out, []byte("[build failed]")) || bytes.Contains(out, []byte("[setup failed]")):
		return "NOT VIABLE"
	case errors.As(err, &exit):
		return "KILLED"
	default:
		return "NOT VIABLE"
	}
}

// emptyDir removes what dir holds, leaving dir; what a stopped test left
// unreadable is opened up and removed again.
func emptyDir(dir string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("emptying %s: %w", dir, err)
	}
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		if os.RemoveAll(p) == nil {
			continue
		}
		_ = filepath.WalkDir(p, func(q string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				_ = os.Chmod(q, 0o700)
			}
			return nil
		})
		if err := os.RemoveAll(p); err != nil {
			return fmt.Errorf("emptying %s: %w", dir, err)
		}
	}
	return nil
}

// withTempDir returns a copy of env sending temporary files to dir.
func withTempDir(env []string, dir string) []string {
	return append(env[:len(env):len(env)], "TMPDIR="+dir, "GOTMPDIR="+dir)
}

// removeScratch removes dir and whatever a stopped test left in it.
func removeScratch(dir string) {
	_ = emptyDir(dir)
	_ = os.Remove(dir)
}

// copyModule copies the module at src into dst but for .git, .cache and
// bin.
func copyModule(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		if d.IsDir() && (rel == ".git" || rel == ".cache" || rel == "bin") {
			return filepath.SkipDir
		}
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case d.Type().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			return os.WriteFile(target, b, info.Mode().Perm())
		}
		return nil
	})
}
