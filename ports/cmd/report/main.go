// Command report runs the ldbcompat conformance kit (internal/kit.Check) on every
// Go implementation of LevelDB that package ports lists, each at the
// versions people run, and writes the results as markdown: a table of
// implementations and versions by checks, with who runs each (from their
// go.mod files: ports/users.json), the findings across all of them, most
// harmful first (false negatives first), each with its reproducer, and a
// section per row. `make ports` runs it with -tags leveldb, so that the
// checks also ask upstream LevelDB live and read and write real databases
// with it, and writes docs/ports.md.
//
// Usage, from ports/:
//
//	go run -tags leveldb ./cmd/report [-out ../docs/ports.md] [-other ../testdata/other]
//
// The rows of the adapters in the ports module are checked in this
// process; each other version of a module is checked by its own module
// under ports/versions, which this command runs (`go run [-tags leveldb]
// .` in its directory) and whose row it reads as JSON.
//
// A last section reports on the databases other implementations wrote
// (testdata/other): what upstream LevelDB 1.23 does with each, asked
// through cgo/upstream, and `ldbcompat verify`'s verdicts on it.
//
// Nothing in the output is written by hand, and nothing in it depends on
// when or where it runs: rerunning the command with the same ports,
// LevelDB and ldbcompat reproduces it byte for byte (the byte diffs are
// ldbcompat's own, each adapter's WriteDB leaves the same tables on every
// run, and the go.mod facts are those of fixed versions).
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/ldbcompat/ldbcompat/internal/kit"
	"github.com/ldbcompat/ldbcompat/internal/plural"
	"github.com/ldbcompat/ldbcompat/ports"
	"github.com/ldbcompat/ldbcompat/ports/internal/row"
)

func main() {
	out := flag.String("out", "../docs/ports.md", "write the markdown report to `file` (- for stdout)")
	otherDir := flag.String("other", "../testdata/other", "the databases other implementations wrote (`dir`)")
	portsDir := flag.String("ports", ".", "the ports module's `dir`, whose versions/ modules are run")
	flag.Parse()
	if flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "usage: report [-out file] [-other dir] [-ports dir]")
		os.Exit(2)
	}
	if err := run(*out, *otherDir, *portsDir); err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		os.Exit(1)
	}
}

func run(out, otherDir, portsDir string) error {
	uf, err := ports.Users()
	if err != nil {
		return err
	}
	var rows []row.Row
	for _, s := range ports.Sources() {
		start := time.Now()
		var r row.Row
		if s.Adapter != nil {
			fmt.Fprintf(os.Stderr, "report: checking %s ...", s.Adapter.Module)
			r = row.Run(*s.Adapter, "ports")
		} else {
			fmt.Fprintf(os.Stderr, "report: checking the module in %s ...", s.Dir)
			if r, err = runModule(filepath.Join(portsDir, s.Dir)); err != nil {
				fmt.Fprintln(os.Stderr)
				return fmt.Errorf("%s: %w", s.Dir, err)
			}
		}
		fmt.Fprintf(os.Stderr, " %s@%s: %s in %.1fs\n", r.Path(), r.At(), verdict(r), time.Since(start).Seconds())
		rows = append(rows, r)
	}
	others, err := loadOthers(otherDir, "testdata/other")
	if err != nil {
		return err
	}
	md := render(rows, uf, others)
	if out == "-" {
		_, err := os.Stdout.Write(md)
		return err
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(out, md, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "report: wrote %s\n", out)
	return nil
}

// runModule runs the module in dir, which checks one adapter with another
// version of its module and prints the row as JSON, built with the
// leveldb tag when this command was.
func runModule(dir string) (row.Row, error) {
	args := []string{"run"}
	if kit.Live {
		args = append(args, "-tags", "leveldb")
	}
	cmd := exec.Command("go", append(args, ".")...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	cmd.Stderr = os.Stderr
	outb, err := cmd.Output()
	if err != nil {
		return row.Row{}, fmt.Errorf("go %v: %w", args, err)
	}
	var r row.Row
	dec := json.NewDecoder(bytes.NewReader(outb))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return row.Row{}, fmt.Errorf("its row: %w", err)
	}
	return r, nil
}

func verdict(r row.Row) string {
	fails := 0
	for _, c := range r.Results {
		if c.Outcome == kit.Fail {
			fails++
		}
	}
	if len(r.Errors) > 0 {
		return fmt.Sprintf("%s %s, %s", plural.Count(fails, "check"), plural.Verb(fails, "fails", "fail"), plural.Count(len(r.Errors), "suite error"))
	}
	return fmt.Sprintf("%d of %s %s", fails, plural.Count(len(r.Results), "check"), plural.Verb(fails, "fails", "fail"))
}
