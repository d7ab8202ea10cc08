package main

import (
	"fmt"
	"io"
	"os"

	"github.com/ldbcompat/ldbcompat/internal/verify"
)

func runDump(args []string, stdout, stderr io.Writer) int {
	fs, asJSON, paranoid := commandFlags("dump")
	samples := fs.Int("samples", 10000, "absent keys to query per table")
	seed := fs.Uint64("seed", 1, "seed for the absent keys")
	perFilter := fs.Bool("filters", false, "print a row for every filter (the JSON always has them)")
	paths, code := parseFlags(fs, args, stdout, stderr)
	if paths == nil {
		return code // a usage error, or --help
	}
	if *samples < 0 {
		fmt.Fprintf(stderr, "ldbcompat dump: --samples must not be negative\nRun 'ldbcompat help dump' for usage.\n")
		return verify.ExitUsage
	}
	var js verify.DumpJSON
	var sum verify.Summary
	text := verify.TextWriter{Out: stdout, Err: stderr}
	// Logs and MANIFESTs named directly are printed record by record.
	logCode, rest := verify.ExitOK, paths[:0:0]
	for _, p := range paths {
		if fi, err := os.Stat(p); err != nil || fi.IsDir() || !verify.IsLogName(p) {
			rest = append(rest, p)
			continue
		}
		w := text.Stdout()
		if *asJSON {
			w = nil
		}
		l, code := verify.DumpLog(p, w)
		js.AddLog(l)
		logCode = max(logCode, code)
	}
	if len(rest) == 0 {
		return report(stderr, *asJSON, &text, logCode, func() error { return js.Write(stdout, buildInfo(), sum, logCode) })
	}
	each(rest, "dumped", options(true, *paranoid), &sum, *asJSON, stderr, func(it verify.Item, rep *verify.TableReport) {
		var d *verify.Dump
		if rep != nil {
			d = verify.NewDump(rep, *samples, *seed)
			d.PerFilter = *perFilter
		}
		if *asJSON {
			js.Add(it, d)
		} else {
			text.Dump(it, d)
		}
	})
	code = max(sum.ExitCode(), logCode)
	return report(stderr, *asJSON, &text, code, func() error { return js.Write(stdout, buildInfo(), sum, code) })
}
