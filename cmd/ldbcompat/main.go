// Command ldbcompat checks the bloom filters in LevelDB tables against what
// upstream LevelDB 1.23 writes.
//
// Usage:
//
//	ldbcompat verify [--json] PATH...
//	ldbcompat dump [--json] [--samples N] [--seed S] PATH...
//
// PATH is a LevelDB database directory, whose *.ldb and *.sst tables are
// checked, or a table file. verify rebuilds each table's filter block from
// the table's keys, as upstream's TableBuilder does, and compares it byte for
// byte with the stored one. dump prints each filter block's layout and its
// false-positive rate, measured and theoretical.
//
// Files are opened read-only, no lock is taken and nothing is written, so a
// database can be checked while LevelDB has it open (a table being written
// may then fail to read).
//
// Exit status: 0 when every table verifies (or has no filter block), 1 when
// a filter block differs from what upstream would write, 2 on a usage
// error or when a path or table cannot be read.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Exit codes.
const (
	exitOK       = 0
	exitMismatch = 1
	exitError    = 2
)

const usage = `ldbcompat checks the bloom filters in LevelDB tables against upstream
LevelDB 1.23: same filter block bytes as upstream's TableBuilder writes.

Usage:

  ldbcompat verify [--json] PATH...
  ldbcompat dump [--json] [--samples N] [--seed S] PATH...
  ldbcompat help

PATH is a LevelDB database directory (one with a CURRENT file; its *.ldb
and *.sst tables are read) or a table file.

verify  rebuilds each table's filter block from the table's keys and
        compares it byte for byte with the stored one. Per table it prints
        the filter policy, the bits/key and k the filters imply, the number
        of filters and keys, and "ok" or the first differing byte. Filters
        named leveldb.BuiltinBloomFilter (LevelDB before 1.16) are checked
        against both hashes of that era: unsigned (ARM) and signed (x86).
        Tables without a filter block, or whose filter policy is not one
        of LevelDB's bloom filters, are reported but not failed.
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

Exit status: 0 all tables verify; 1 a filter block differs from what
upstream writes; 2 usage error, or a path or table cannot be read (this
wins over 1).
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

// target is one table to read, or a path that could not be resolved into
// tables (err set).
type target struct {
	path string
	err  error
}

// errNotDatabase is wrapped by the errors for directories that are not
// LevelDB databases with tables.
var errNotDatabase = errors.New("not a LevelDB database")

// resolve expands paths into the tables to read: a directory must be a
// LevelDB database (have a CURRENT file) holding *.ldb or *.sst files; any
// other path is taken as a table file.
func resolve(paths []string) []target {
	var ts []target
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			ts = append(ts, target{path: p, err: err})
			continue
		}
		if !fi.IsDir() {
			ts = append(ts, target{path: p})
			continue
		}
		if _, err := os.Stat(filepath.Join(p, "CURRENT")); err != nil {
			ts = append(ts, target{path: p, err: fmt.Errorf("%s: %w: no CURRENT file", p, errNotDatabase)})
			continue
		}
		ents, err := os.ReadDir(p)
		if err != nil {
			ts = append(ts, target{path: p, err: err})
			continue
		}
		var tables []string
		for _, e := range ents {
			n := e.Name()
			// Anything named like a table is one: a directory, a named
			// pipe or a dangling symbolic link of that name is reported
			// as unreadable, as LevelDB would fail to open it.
			if strings.HasSuffix(n, ".ldb") || strings.HasSuffix(n, ".sst") {
				tables = append(tables, filepath.Join(p, n))
			}
		}
		if len(tables) == 0 {
			ts = append(ts, target{path: p, err: fmt.Errorf("%s: %w with tables: no *.ldb or *.sst files", p, errNotDatabase)})
			continue
		}
		sort.Strings(tables)
		for _, t := range tables {
			ts = append(ts, target{path: t})
		}
	}
	return ts
}
