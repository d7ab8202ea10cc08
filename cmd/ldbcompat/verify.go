package main

import (
	"fmt"
	"io"

	"github.com/ldbcompat/ldbcompat/internal/verify"
)

func runVerify(args []string, stdout, stderr io.Writer) int {
	fs, asJSON, paranoid := commandFlags("verify")
	paths, code := parseFlags(fs, args, stdout, stderr)
	if paths == nil {
		return code // a usage error, or --help
	}
	items := resolve(paths, stderr)
	var js verify.VerifyJSON
	var sum verify.Summary
	prog := newProgress(stderr, "verified", countTables(items))
	text := verify.TextWriter{Out: stdout, Err: stderr}
	verify.Each(items, options(false, *paranoid), func(it verify.Item, rep *verify.TableReport) {
		sum.Add(it, rep)
		if rep != nil {
			prog.tick()
		}
		if *asJSON {
			js.Add(it, rep)
			return
		}
		prog.clear()
		text.Item(it, rep)
	})
	prog.finish()
	code = sum.ExitCode()
	if *asJSON {
		return written(stderr, "the JSON", js.Write(stdout, buildInfo(), sum, code), code)
	}
	text.Line(stdout, sum.String())
	return written(stderr, "the report", text.WriteErr(), code)
}

// written returns code, or exitPath when err, from writing what (the report
// or the JSON) to stdout (a full disk, a closed pipe), is not nil: a report
// that did not reach its reader is no verdict.
func written(stderr io.Writer, what string, err error, code int) int {
	if err != nil {
		fmt.Fprintf(stderr, "ldbcompat: writing %s: %v\n", what, err)
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
