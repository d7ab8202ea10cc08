// Command testsummary reads `go test -json` output on standard input,
// prints the output of failed tests and a summary per package, and ends with
// one line "<label>: N passed, N failed, N skipped". It exits 1 when a test
// or a package failed.
//
//	go test -json ./... | go run ./internal/cmd/testsummary -label compat
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"
)

type event struct {
	Action  string
	Package string
	Test    string
	Output  string
	Elapsed float64
}

type pkgStat struct {
	pass, fail, skip int
	failed           bool
	elapsed          float64
	nothing          bool
}

func main() {
	label := flag.String("label", "tests", "name of the run in the closing line")
	flag.Parse()
	stats := map[string]*pkgStat{}
	output := map[string][]string{} // package/test -> output lines
	running := map[string]bool{}    // package/test started and not finished
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if err := json.Unmarshal(line, &e); err != nil || e.Action == "" {
			fmt.Println(string(line)) // build errors and the like
			continue
		}
		st := stats[e.Package]
		if st == nil {
			st = &pkgStat{}
			stats[e.Package] = st
		}
		key := e.Package + "\x00" + e.Test
		switch e.Action {
		case "run":
			running[key] = true
		case "output":
			output[key] = append(output[key], e.Output)
			if e.Test == "" && strings.Contains(e.Output, "[no test files]") {
				st.nothing = true
			}
		case "pass", "fail", "skip":
			delete(running, key)
			if e.Test == "" {
				st.failed = e.Action == "fail"
				st.elapsed = e.Elapsed
				if st.failed {
					// A test binary that died (a crash, a timeout) leaves
					// tests that never finished: show what they printed,
					// then the package's own output.
					for k := range running {
						if strings.HasPrefix(k, e.Package+"\x00") {
							fmt.Printf("--- %s did not finish:\n%s", strings.TrimPrefix(k, e.Package+"\x00"), strings.Join(output[k], ""))
							delete(running, k)
						}
					}
					fmt.Print(strings.Join(output[key], ""))
				}
				continue
			}
			if strings.Contains(e.Test, "/") {
				continue // count top-level tests only
			}
			switch e.Action {
			case "pass":
				st.pass++
			case "fail":
				st.fail++
				fmt.Print(strings.Join(output[key], ""))
			case "skip":
				st.skip++
			}
		}
	}
	pkgs := make([]string, 0, len(stats))
	for p := range stats {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	var pass, fail, skip int
	bad := false
	fmt.Printf("\n%s summary:\n", *label)
	for _, p := range pkgs {
		st := stats[p]
		if st.nothing && st.pass+st.fail+st.skip == 0 {
			continue
		}
		status := "ok"
		if st.failed || st.fail > 0 {
			status = "FAIL"
			bad = true
		}
		fmt.Printf("  %-4s %-60s %4d passed %3d failed %3d skipped %7.1fs\n", status, p, st.pass, st.fail, st.skip, st.elapsed)
		pass += st.pass
		fail += st.fail
		skip += st.skip
	}
	fmt.Printf("%s: %d passed, %d failed, %d skipped\n", *label, pass, fail, skip)
	if bad || fail > 0 {
		os.Exit(1)
	}
}
