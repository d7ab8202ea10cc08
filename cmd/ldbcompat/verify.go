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
	paths, ok := parseFlags(fs, args, stdout, stderr)
	if !ok {
		return exitUsage
	}
	if paths == nil {
		return exitOK // --help
	}
	items := resolve(paths, stderr)
	var doc document[tableJSON]
	var sum verify.Summary
	prog := newProgress(stderr, "verified", countTables(items))
	first := true
	verify.Each(items, options(false), func(it verify.Item, rep *verify.Report) {
		sum.Add(it, rep)
		if rep != nil {
			prog.tick()
		}
		if *asJSON {
			doc.add(it, func() tableJSON { return tableOf(rep) })
			return
		}
		prog.clear()
		printItem(stdout, stderr, it, rep, &first)
	})
	prog.finish()
	code := sum.ExitCode()
	if *asJSON {
		doc.init()
		out := verifyOutput{Schema: jsonSchema, Tool: buildInfo(), Databases: doc.Databases, Tables: doc.Tables,
			PathErrors: doc.PathErrors, Notes: doc.Notes, Summary: summaryOf(sum), ExitCode: code}
		return encodeJSON(stdout, stderr, out, code)
	}
	fmt.Fprintln(stdout, sum)
	return code
}

// encodeJSON prints v, indented, and returns code, or exitPath when
// stdout fails.
func encodeJSON(stdout, stderr io.Writer, v any, code int) int {
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		fmt.Fprintf(stderr, "ldbcompat: writing the JSON: %v\n", err)
		return max(code, exitPath)
	}
	return code
}

// resolve is verify.ResolveWith, with progress on stderr while a large
// tree is searched.
func resolve(paths []string, stderr io.Writer) []verify.Item {
	p := newProgress(stderr, "searched", 0)
	items := verify.ResolveWith(paths, func(dirs, dbs int) {
		p.search(dirs, dbs)
	})
	p.finish()
	return items
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

// printItem prints one item as text: a line on stdout for a database (a
// blank line before all but the first) or a table, a line on stderr for a
// path that could not be examined or a note.
func printItem(stdout, stderr io.Writer, it verify.Item, rep *verify.Report, first *bool) {
	switch {
	case it.Database != nil:
		if !*first {
			fmt.Fprintln(stdout)
		}
		*first = false
		fmt.Fprintf(stdout, "%s: database: %s\n", it.Database.Dir, it.Database.Detail())
	case it.PathErr != nil:
		fmt.Fprintf(stderr, "ldbcompat: %v\n", it.PathErr)
	case it.Note != "":
		fmt.Fprintf(stderr, "ldbcompat: %s: %s\n", it.Path, it.Note)
	case rep != nil:
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
