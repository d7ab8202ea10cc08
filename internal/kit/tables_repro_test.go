package kit

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// tableStub is a port's package with WriteTable and ReadTable, which the
// table reproducers call.
const tableStub = `package port

import "github.com/ldbcompat/ldbcompat/compat"

func WriteTable(entries []compat.Entry, o compat.TableOptions) ([]byte, error) { return nil, nil }

func ReadTable(contents []byte) ([]compat.Entry, error) { return nil, nil }
`

// TestTableReproducersPasteable: the reproducers of the table properties
// (a writer with other restart points, a reader that skips checksums)
// build and run in a port's own module, their inputs got through
// compat.CaseEntries and compat.CaseTable.
func TestTableReproducersPasteable(t *testing.T) {
	var repros []string
	r := checkTableHooks(tableOnly(func(es []Entry, o TableOptions) ([]byte, error) {
		o.RestartInterval++
		return refWriteTable(es, o)
	}, func([]byte) ([]Entry, error) { return []Entry{{Key: []byte("not written")}}, nil }))
	for _, prop := range []Property{PropTableBytes, PropReadTable} {
		res, _ := r.Result(prop)
		if len(res.Failures) == 0 {
			t.Fatalf("%s: no failure", prop)
		}
		for i, f := range res.Failures {
			if i < 3 || strings.Contains(f.Case, "damaged") && !strings.Contains(strings.Join(repros, ""), "damaged") {
				repros = append(repros, f.Repro)
			}
		}
	}
	for _, want := range []string{"compat.CaseEntries(", "compat.CaseTable(", "/damaged-"} {
		if !strings.Contains(strings.Join(repros, "\n"), want) {
			t.Errorf("no reproducer holds %s:\n%s", want, strings.Join(repros, "\n"))
		}
	}
	if testing.Short() {
		t.Skip("building a port's module: not with -short")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	var test strings.Builder
	test.WriteString("package port\n\nimport (\n\t\"testing\"\n\n\t\"github.com/ldbcompat/ldbcompat/compat\"\n)\n\nfunc TestRepro(t *testing.T) {\n")
	for _, r := range repros {
		fmt.Fprintf(&test, "\t{\n\t\t_, _ = %s\n\t}\n", r)
	}
	test.WriteString("}\n\nvar _ = compat.HexBytes\n")
	mod := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/port\n\ngo 1.22\n\nrequire github.com/ldbcompat/ldbcompat v0.0.0\n\n" +
			"replace github.com/ldbcompat/ldbcompat => " + root + "\n",
		"go.sum":       string(sum),
		"port.go":      tableStub,
		"port_test.go": test.String(),
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(mod, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(goBin, "test", "-count=1", "-run", "TestRepro", ".")
	cmd.Dir = mod
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off", "GOTOOLCHAIN=local")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the reproducers do not build and run in a port's module: %v\n%s\n%s", err, out, test.String())
	}
}
