// Command ldbcompat says what upstream LevelDB 1.23 does with the tables
// of a LevelDB database, whoever wrote it, and checks their bloom filters
// against what upstream writes.
//
// Usage:
//
//	ldbcompat verify [--json] PATH...
//	ldbcompat dump [--json] [--samples N] [--seed S] PATH...
//
// PATH is a LevelDB database directory or a table file. verify reads a
// database as upstream opens it (CURRENT, the MANIFEST, every live table at
// the size the MANIFEST records), and gives each live table a verdict: what
// upstream does with it (package internal/verify). It rebuilds each filter
// block upstream would use, or that an older LevelDB wrote, from the
// table's keys and compares it byte for byte with the stored one. dump
// prints each filter block's layout and its false-positive rate, measured
// and theoretical.
//
// Files are opened read-only, no lock is taken and nothing is written, so a
// database can be checked while LevelDB has it open: table files that are
// not live (being written, or not yet deleted) are skipped.
//
// Exit status: 0 when upstream opens every database and reads every table
// with its filter, or without one as it was written; 1 when a filter block
// is damaged or differs from what its policy writes; 2 when upstream cannot
// open a database or read a table, on a usage error, or for a path that is
// neither a table nor a database. `ldbcompat help` lists every verdict.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/ldbcompat/ldbcompat/internal/verify"
)

// Exit codes (see verify.Verdicts).
const (
	exitOK       = verify.ExitOK
	exitMismatch = verify.ExitDamage
	exitError    = verify.ExitError
)

// usage is `ldbcompat help`.
var usage = `ldbcompat says what upstream LevelDB 1.23 does with the tables of a
LevelDB database, whoever wrote it, and checks their bloom filters against
what upstream writes.

Usage:

  ldbcompat verify [--json] PATH...
  ldbcompat dump [--json] [--samples N] [--seed S] PATH...
  ldbcompat help

PATH is a LevelDB database directory (one with a CURRENT file) or a table
file. A database is read as upstream opens it: CURRENT, the MANIFEST it
names (with the comparator the MANIFEST records, as the application that
wrote it opens it), and every live table the MANIFEST lists, at the size
it records. Other table files are skipped (LevelDB is writing them, or has
yet to delete them). When the MANIFEST cannot be read, upstream cannot
open the database; every *.ldb and *.sst file is still checked, at its own
size.

verify  gives each table a verdict: what upstream does with it. It
        rebuilds the filter block upstream uses (leveldb.BuiltinBloomFilter2),
        or one named leveldb.BuiltinBloomFilter (LevelDB v1.4 to v1.17, with
        both hashes of that era), from the table's keys, and compares it
        byte for byte with the stored one. One line per database, one per
        table (path, verdict, details), and a summary.
dump    prints each filter block's layout (filters, keys, bytes and k per
        filter) and the false-positive rate measured on random absent keys
        next to the theoretical (1-e^(-kn/m))^k, n counting distinct user
        keys per filter.

Flags:

  --json        print one JSON document on stdout
  --samples N   dump: absent keys to query per table (default 10000)
  --seed S      dump: seed for the absent keys (default 1)
  --            ends the flags; later arguments are paths

Files are opened read-only; no lock is taken and nothing is written.
Progress goes to stderr when it is a terminal or for many tables.

Verdicts and exit status (the highest applies; dump exits as verify):

` + verify.VerdictText(76) + `
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is the whole command, for tests: it returns the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitError
	}
	switch args[0] {
	case "verify":
		return runVerify(args[1:], stdout, stderr)
	case "dump":
		return runDump(args[1:], stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return exitOK
	}
	fmt.Fprintf(stderr, "ldbcompat: unknown command %q\n\n%s", args[0], usage)
	return exitError
}

// parseFlags parses fs's flags wherever they appear among args and returns
// the other arguments. It reports usage errors on stderr.
func parseFlags(fs *flag.FlagSet, args []string, stderr io.Writer) ([]string, bool) {
	fs.SetOutput(io.Discard)
	// Everything after "--" is a path, even if it starts with "-".
	var rest []string
	for i, a := range args {
		if a == "--" {
			args, rest = args[:i], args[i+1:]
			break
		}
	}
	var paths []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fmt.Fprint(stderr, usage)
			} else {
				fmt.Fprintf(stderr, "ldbcompat %s: %v\nRun 'ldbcompat help' for usage.\n", fs.Name(), err)
			}
			return nil, false
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		paths = append(paths, args[0])
		args = args[1:]
	}
	paths = append(paths, rest...)
	if len(paths) == 0 {
		fmt.Fprintf(stderr, "ldbcompat %s: no PATH given\nRun 'ldbcompat help' for usage.\n", fs.Name())
		return nil, false
	}
	return paths, true
}
