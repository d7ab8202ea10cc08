// Command versionsdoc writes docs/versions.md from the status files and
// facts tools/versions.sh (`make versions`) collected (internal/versions).
// It fails only when it cannot write the page, not when versions failed.
//
//	versionsdoc -results .cache/versions -versions '1.4 1.17 main-78a352f' \
//	    -command 'make versions' -seconds 1234 -packages ./... -out docs/versions.md
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/ldbcompat/ldbcompat/internal/plural"
	"github.com/ldbcompat/ldbcompat/internal/versions"
)

func main() {
	table := flag.String("table", "docker/leveldb-versions.tsv", "the pinned versions")
	results := flag.String("results", ".cache/versions", "where tools/versions.sh keeps <version>/status and <version>/facts.json")
	only := flag.String("versions", "", "the versions run, as the table names them, space-separated (default: all)")
	command := flag.String("command", "make versions", "the command that made the page, for its header")
	secs := flag.Int("seconds", 0, "the run's wall time in seconds")
	pkgs := flag.String("packages", "./...", "the packages the suite ran")
	compiler := flag.String("compiler", "", "the C++ compiler that built upstream (its --version line)")
	out := flag.String("out", "docs/versions.md", "the page to write")
	flag.Parse()
	if err := run(*table, *results, *only, *out, versions.Header{
		Date: time.Now().UTC().Format("2006-01-02"), CPU: cpu(), Platform: runtime.GOOS + "/" + runtime.GOARCH,
		Go: runtime.Version(), Compiler: *compiler, Command: *command, Packages: *pkgs, Seconds: *secs,
	}); err != nil {
		fmt.Fprintln(os.Stderr, "versionsdoc:", err)
		os.Exit(1)
	}
}

func run(table, results, only, out string, h versions.Header) error {
	pinned, err := versions.ReadPinned(table)
	if err != nil {
		return err
	}
	if only != "" {
		var sel []versions.Pinned
		for _, name := range strings.Fields(only) {
			i := slices.IndexFunc(pinned, func(p versions.Pinned) bool { return p.Version == name })
			if i < 0 {
				return fmt.Errorf("%s has no version %q", table, name)
			}
			sel = append(sel, pinned[i])
		}
		pinned = sel
	}
	if h.Compiler == "" {
		h.Compiler = "C++ compiler unknown"
	}
	rs := versions.Load(results, pinned)
	var b bytes.Buffer
	if err := versions.Render(&b, h, rs); err != nil {
		return err
	}
	if err := os.WriteFile(out, b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write the page: %w", err)
	}
	passed := 0
	for _, r := range rs {
		if r.Passed() {
			passed++
		}
	}
	fmt.Fprintf(os.Stderr, "versionsdoc: wrote %s: %d of %s %s\n", out, passed, plural.Count(len(rs), "version"), plural.Verb(passed, "passes", "pass"))
	return nil
}

// cpu names the machine's processors: "2 × AMD EPYC 7B13" from
// /proc/cpuinfo, or just their count.
func cpu() string {
	n := runtime.NumCPU()
	model := ""
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
		f.Close()
	}
	if model == "" {
		return plural.Count(n, "CPU")
	}
	return fmt.Sprintf("%d × %s", n, model)
}
