package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/ldbcompat/ldbcompat/internal/verify"
)

func runDump(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("dump", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print JSON")
	paranoid := fs.Bool("paranoid", false, "follow upstream opened with paranoid checks (default: LevelDB's default options)")
	samples := fs.Int("samples", 10000, "absent keys to query per table")
	seed := fs.Uint64("seed", 1, "seed for the absent keys")
	perFilter := fs.Bool("filters", false, "print a row for every filter (the JSON always has them)")
	paths, ok := parseFlags(fs, args, stdout, stderr)
	if !ok {
		return exitUsage
	}
	if paths == nil {
		return exitOK // --help
	}
	if *samples < 0 {
		fmt.Fprintf(stderr, "ldbcompat dump: --samples must not be negative\nRun 'ldbcompat help dump' for usage.\n")
		return exitUsage
	}
	items := resolve(paths, stderr)
	var js verify.DumpJSON
	var sum verify.Summary
	prog := newProgress(stderr, "dumped", countTables(items))
	text := verify.TextWriter{Out: stdout, Err: stderr}
	verify.Each(items, options(true, *paranoid), func(it verify.Item, rep *verify.TableReport) {
		sum.Add(it, rep)
		var d *verify.Dump
		if rep != nil {
			prog.tick()
			d = verify.NewDump(rep, *samples, *seed)
			d.PerFilter = *perFilter
		}
		if *asJSON {
			js.Add(it, d)
			return
		}
		prog.clear()
		text.Dump(it, d)
	})
	prog.finish()
	code := sum.ExitCode()
	if *asJSON {
		return writeJSON(stderr, js.Write(stdout, buildInfo(), sum, code), code)
	}
	return writeText(stderr, text.WriteErr(), code)
}
