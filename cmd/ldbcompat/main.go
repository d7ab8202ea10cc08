// Command ldbcompat says what upstream LevelDB 1.23 does with the tables
// and logs of a LevelDB database, whoever wrote it, and checks their bloom
// filters against what upstream writes.
//
// Usage:
//
//	ldbcompat verify [--json] [--paranoid] PATH...
//	ldbcompat dump [--json] [--paranoid] [--filters] [--samples N] [--seed S] PATH...
//	ldbcompat version
//	ldbcompat help [COMMAND]
//
// Files are opened read-only and nothing is written, so a database can be
// checked while LevelDB has it open. `ldbcompat help` lists every verdict
// and exit status.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"sync"

	"github.com/ldbcompat/ldbcompat/internal/verify"
)

// usage is `ldbcompat help`.
var usage = `ldbcompat says what upstream LevelDB 1.23 does with the tables of a
LevelDB database, whoever wrote it, and checks their bloom filters against
what upstream writes.

Usage:

  ldbcompat verify [--json] [--paranoid] PATH...
  ldbcompat dump [--json] [--paranoid] [--filters] [--samples N] [--seed S] PATH...
  ldbcompat version
  ldbcompat help [COMMAND]

` + pathText + `
verify  gives each table and log a verdict: what upstream does with it.
dump    prints each filter block's layout and its false-positive rate,
        or a log's or MANIFEST's records.
version prints the version, the Go release it was built with and the
        upstream release the verdicts follow.

'ldbcompat help verify' and 'ldbcompat help dump' tell more.

Files are opened read-only; no lock is taken and nothing is written.
Progress goes to stderr when it is a terminal or for many tables.

`

// pathText says what a PATH is, for every command's help.
const pathText = `PATH is a LevelDB database directory (one with a CURRENT file), a
table file, or any other directory, which is searched for databases at
any depth (symbolic links are not followed). A database is read as
upstream opens it: CURRENT, the MANIFEST it names (with the comparator
the MANIFEST records, as the application that wrote it opens it), and
every live table the MANIFEST lists, at the size it records. Other table
files are skipped. When the MANIFEST cannot be read, upstream cannot open
the database; every *.ldb and *.sst file is still checked, at its own
size. A Pebble or RocksDB database is named as such: upstream LevelDB
cannot open it. A named file that is not a table (by its name, *.ldb or
*.sst, or by its magic number) is skipped and said so.
`

// exitText documents the verdicts and exit codes, made when first printed.
var exitText = sync.OnceValue(func() string {
	return "Verdicts and exit status (the highest applies; dump exits as verify):\n\n" + verify.VerdictText(76) + "\n"
})

// verifyUsage is `ldbcompat help verify`.
var verifyUsage = `Usage: ldbcompat verify [--json] [--paranoid] PATH...

verify gives each table and each log a verdict: what upstream does with
it. It rebuilds the filter block upstream uses (leveldb.BuiltinBloomFilter2),
or one named leveldb.BuiltinBloomFilter (LevelDB v1.4 to v1.17, with both
hashes of that era), from the table's keys, and compares it byte for byte
with the stored one; it replays every log the open replays. One line per
database, its logs, then one per table (path, verdict, details), and a
summary.

What upstream does with damage depends on its options. With LevelDB's
default options (paranoid_checks=false: plyvel, leveldown, most programs)
it reads blocks without checking their checksums, uses a damaged filter,
and drops a damaged log record with the rest of its 32 KiB block; with
paranoid checks it reports corruption and refuses to open. Verdicts and
the exit status follow the defaults, or paranoid checks with --paranoid;
a line gives the other option set's verdict where it differs.

` + pathText + `
Flags:

  --json       print one JSON document on stdout (docs/verify.md describes it)
  --paranoid   follow upstream opened with paranoid checks
  --           ends the flags; later arguments are paths

`

// dumpUsage is `ldbcompat help dump`.
var dumpUsage = `Usage: ldbcompat dump [--json] [--paranoid] [--filters] [--samples N] [--seed S] PATH...

For a table, dump prints its filter block's layout (filters, keys, bytes
and k) and the false-positive rate measured on random absent keys, next to
the rate expected of LevelDB's probe scheme for filters of those sizes
(simulated) and the independent-hash formula (1-e^(-kn/m))^k, n counting
distinct user keys per filter. It judges each table as verify does. For a
log (NNNNNN.log) or a MANIFEST, it prints each record as upstream's
leveldbutil dump does (a log's write batches: sequence, count, each put and
delete with its key and sizes; a MANIFEST's version edits) and the damage
upstream's reader reports.

` + pathText + `
Flags:

  --json        print one JSON document on stdout
  --paranoid    judge tables as upstream with paranoid checks does
  --filters     print a row for every filter of a table (the JSON always has them)
  --samples N   absent keys to query per table (default 10000)
  --seed S      seed for the absent keys (default 1)
  --            ends the flags; later arguments are paths

`

func main() {
	// Little garbage beside a table's keys: GOGC=400 halves the collector's
	// cycles (-17% CPU on make bench's small-key database).
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	// But not five times a large live heap (a MANIFEST of a million tables).
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(768 << 20)
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is the whole command, for tests: it returns the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage+exitText())
		return verify.ExitUsage
	}
	switch args[0] {
	case "verify":
		return runVerify(args[1:], stdout, stderr)
	case "dump":
		return runDump(args[1:], stdout, stderr)
	case "version", "-version", "--version":
		if len(args) > 1 {
			fmt.Fprintf(stderr, "ldbcompat version: takes no arguments\nRun 'ldbcompat help' for usage.\n")
			return verify.ExitUsage
		}
		printVersion(stdout)
		return verify.ExitOK
	case "help", "-h", "-help", "--help":
		if len(args) > 2 {
			fmt.Fprintf(stderr, "ldbcompat help: takes at most one command\nRun 'ldbcompat help' for usage.\n")
			return verify.ExitUsage
		}
		if len(args) == 2 {
			text, ok := help(args[1])
			if !ok {
				fmt.Fprintf(stderr, "ldbcompat help: unknown command %q\nRun 'ldbcompat help' for usage.\n", args[1])
				return verify.ExitUsage
			}
			fmt.Fprint(stdout, text)
			return verify.ExitOK
		}
		fmt.Fprint(stdout, usage+exitText())
		return verify.ExitOK
	}
	fmt.Fprintf(stderr, "ldbcompat: unknown command %q\nRun 'ldbcompat help' for usage.\n", args[0])
	return verify.ExitUsage
}

// help returns command name's help: helpFor's, and for verify and dump
// exitText after it.
func help(name string) (string, bool) {
	text, ok := helpFor[name]
	if name == "verify" || name == "dump" {
		text += exitText()
	}
	return text, ok
}

// helpFor is each command's help, exitText aside.
var helpFor = map[string]string{
	"verify":  verifyUsage,
	"dump":    dumpUsage,
	"version": "Usage: ldbcompat version\n\nversion prints the version, the VCS revision it was built from, the Go\nrelease it was built with, the upstream release the verdicts follow and\nthe JSON schema version.\n",
	"help":    "Usage: ldbcompat help [COMMAND]\n\nhelp prints the usage, or a command's.\n",
}

// commandFlags is the flag set of verify or dump with the flags both take.
func commandFlags(name string) (fs *flag.FlagSet, asJSON, paranoid *bool) {
	fs = flag.NewFlagSet(name, flag.ContinueOnError)
	asJSON = fs.Bool("json", false, "print JSON")
	paranoid = fs.Bool("paranoid", false, "follow upstream opened with paranoid checks (default: LevelDB's default options)")
	return fs, asJSON, paranoid
}

// parseFlags parses fs's flags wherever they appear among args and returns
// the paths; none, with the exit code, after a usage error or --help.
func parseFlags(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) ([]string, int) {
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
				text, _ := help(fs.Name())
				fmt.Fprint(stdout, text)
				return nil, verify.ExitOK
			}
			fmt.Fprintf(stderr, "ldbcompat %s: %v\nRun 'ldbcompat help %s' for usage.\n", fs.Name(), err, fs.Name())
			return nil, verify.ExitUsage
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
		fmt.Fprintf(stderr, "ldbcompat %s: no PATH given\nRun 'ldbcompat help %s' for usage.\n", fs.Name(), fs.Name())
		return nil, verify.ExitUsage
	}
	return paths, verify.ExitOK
}
