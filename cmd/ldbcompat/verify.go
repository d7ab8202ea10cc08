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
	var js verify.VerifyJSON
	var sum verify.Summary
	text := verify.TextWriter{Out: stdout, Err: stderr}
	each(paths, "verified", options(false, *paranoid), &sum, *asJSON, stderr, func(it verify.Item, rep *verify.TableReport) {
		if *asJSON {
			js.Add(it, rep)
		} else {
			text.Item(it, rep)
		}
	})
	code = sum.ExitCode()
	if !*asJSON {
		text.Line(stdout, sum.String())
	}
	return report(stderr, *asJSON, &text, code, func() error { return js.Write(stdout, buildInfo(), sum, code) })
}

// each resolves paths and passes each item to emit, counting it in sum,
// with progress on stderr ("verb 3/10 tables") cleared before text output.
func each(paths []string, verb string, o verify.Options, sum *verify.Summary, asJSON bool, stderr io.Writer, emit func(verify.Item, *verify.TableReport)) {
	items := resolve(paths, stderr)
	prog := newProgress(stderr, verb, countTables(items))
	verify.Each(items, o, func(it verify.Item, rep *verify.TableReport) {
		sum.Add(it, rep)
		if rep != nil {
			prog.tick()
		}
		if !asJSON {
			prog.clear()
		}
		emit(it, rep)
	})
	prog.finish()
}

// report writes the JSON document (writeJSON) or the text's errors, and
// returns code, or verify.ExitPath when that fails.
func report(stderr io.Writer, asJSON bool, text *verify.TextWriter, code int, writeJSON func() error) int {
	if asJSON {
		return written(stderr, "the JSON", writeJSON(), code)
	}
	return written(stderr, "the report", text.WriteErr(), code)
}

// written returns code, or verify.ExitPath when writing what to stdout failed
// with err: a report that did not reach its reader is no verdict.
func written(stderr io.Writer, what string, err error, code int) int {
	if err != nil {
		fmt.Fprintf(stderr, "ldbcompat: writing %s: %v\n", what, err)
		return max(code, verify.ExitPath)
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
