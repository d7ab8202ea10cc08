package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"github.com/ldbcompat/ldbcompat/internal/verify"
)

func runVerify(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("verify", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print JSON")
	paths, ok := parseFlags(fs, args, stderr)
	if !ok {
		return exitError
	}
	items := verify.Resolve(paths)
	out := verifyOutput{Databases: []databaseJSON{}, Tables: []tableJSON{}}
	var sum verify.Summary
	prog := newProgress(stderr, "verified", countTables(items))
	verify.Each(items, options(false), func(it verify.Item, rep *verify.Report) {
		sum.Add(it, rep)
		if rep != nil {
			prog.tick()
		}
		if *asJSON {
			out.add(it, rep)
			return
		}
		prog.clear()
		printItem(stdout, stderr, it, rep)
	})
	prog.finish()
	code := sum.ExitCode()
	if *asJSON {
		out.Summary, out.ExitCode = summaryOf(sum), code
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			fmt.Fprintf(stderr, "ldbcompat: %v\n", err)
			return exitError
		}
		return code
	}
	fmt.Fprintln(stdout, sum)
	return code
}

// countTables counts the table files among items.
func countTables(items []verify.Item) int {
	n := 0
	for _, it := range items {
		if it.Table != nil {
			n++
		}
	}
	return n
}

// printItem prints one item as text: a line on stdout for a database or a
// table, an error on stderr for a path that is neither.
func printItem(stdout, stderr io.Writer, it verify.Item, rep *verify.Report) {
	switch {
	case it.Database != nil:
		fmt.Fprintf(stdout, "%s: database: %s\n", it.Database.Dir, it.Database.Detail())
	case it.PathErr != nil:
		fmt.Fprintf(stderr, "ldbcompat: %v\n", it.PathErr)
	default:
		fmt.Fprintln(stdout, tableLine(rep))
	}
}

// tableLine is a table's line: its path, verdict and details.
func tableLine(rep *verify.Report) string {
	verdict := string(rep.Verdict)
	if rep.Verdict == "" {
		verdict = "skipped"
	}
	return fmt.Sprintf("%s: %s: %s", rep.Path, verdict, rep.Detail())
}
