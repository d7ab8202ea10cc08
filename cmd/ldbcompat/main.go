// Command ldbcompat checks the bloom filters in LevelDB tables against what
// upstream LevelDB 1.23 writes.
//
// Usage:
//
//	ldbcompat verify [--json] PATH...
//	ldbcompat dump [--json] [--samples N] [--seed S] PATH...
//
// PATH is a LevelDB database directory, whose live tables (those its
// MANIFEST lists) are checked, or a table file. verify rebuilds each
// table's filter block from the table's keys, as upstream's TableBuilder
// does, and compares it byte for byte with the stored one. dump prints
// each filter block's layout and its false-positive rate, measured and
// theoretical.
//
// Files are opened read-only, no lock is taken and nothing is written, so a
// database can be checked while LevelDB has it open: table files that are
// not live (being written, or not yet deleted) are skipped.
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
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/ldbcompat/ldbcompat/internal/manifest"
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

PATH is a LevelDB database directory (one with a CURRENT file) or a table
file. In a database, the live tables that the MANIFEST named by CURRENT
lists are read; other table files (being written, or not yet deleted) are
reported as skipped. A live table that is missing is an error; one of
another size than the MANIFEST records is read, with a warning. When the
MANIFEST cannot be read, a warning says why and every *.ldb and *.sst file
is read.

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

// target is one table to read; or a path that could not be resolved into
// tables (err set); or a table file left alone (skip says why).
type target struct {
	path string
	err  error
	skip string
	warn string // read it, but say this about it (not naming it)
	db   string // for a live table: its database directory
	num  uint64 // and its file number
}

// errNotDatabase is wrapped by the errors for directories that are not
// LevelDB databases with tables.
var errNotDatabase = errors.New("not a LevelDB database")

// resolve expands paths into the tables to read, and warnings about the
// databases. A directory must be a LevelDB database (have a CURRENT file):
// its live tables, as the MANIFEST that CURRENT names lists them, are read;
// other table files in it are skipped; a live table that is missing is an
// error, one of another size than the MANIFEST records is read with a
// warning. When the MANIFEST cannot be read, that is a warning and every
// *.ldb and *.sst file is read. Any other path is taken as a table file.
func resolve(paths []string) ([]target, []string) {
	var ts []target
	var warnings []string
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
		dts, warn := resolveDB(p)
		ts = append(ts, dts...)
		if warn != "" {
			warnings = append(warnings, warn)
		}
	}
	return ts, warnings
}

// tableName matches LevelDB's table file names: the file number, then
// .ldb, or .sst for tables written before LevelDB 1.14.
var tableName = regexp.MustCompile(`^([0-9]+)\.(ldb|sst)$`)

// resolveDB lists the tables of the database directory dir, and a warning
// when its MANIFEST cannot be read.
func resolveDB(dir string) ([]target, string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return []target{{path: dir, err: err}}, ""
	}
	var files []string // named like tables
	for _, e := range ents {
		n := e.Name()
		// Anything named like a table is one: a directory, a named pipe or
		// a dangling symbolic link of that name is reported as unreadable,
		// as LevelDB would fail to open it.
		if strings.HasSuffix(n, ".ldb") || strings.HasSuffix(n, ".sst") {
			files = append(files, n)
		}
	}
	sort.Strings(files)
	v, merr := manifest.Read(dir)
	if len(files) == 0 && (merr != nil || len(v.Files) == 0) {
		err := fmt.Errorf("%s: %w with tables: no *.ldb or *.sst files", dir, errNotDatabase)
		if merr != nil {
			err = fmt.Errorf("%w (and %w)", err, merr)
		}
		return []target{{path: dir, err: err}}, ""
	}
	if merr == nil {
		return liveTargets(dir, v, files), ""
	}
	var ts []target
	for _, n := range files {
		ts = append(ts, target{path: filepath.Join(dir, n)})
	}
	return ts, fmt.Sprintf("%s: cannot tell which tables are live, so every table file is checked: %v", dir, merr)
}

// liveTargets sorts a database's table files (names in dir, sorted) into
// live tables to read and others to skip, by the version v, and adds an
// error for each live table that is missing.
func liveTargets(dir string, v *manifest.Version, files []string) []target {
	manifestName := filepath.Base(v.Manifest)
	found := map[uint64]bool{}
	var ts []target
	for _, n := range files {
		path := filepath.Join(dir, n)
		m := tableName.FindStringSubmatch(n)
		if m == nil {
			ts = append(ts, target{path: path, skip: "not a LevelDB table file name (NNNNNN.ldb or NNNNNN.sst)"})
			continue
		}
		num, err := strconv.ParseUint(m[1], 10, 64)
		f, live := v.Live(num)
		switch {
		case err != nil || !live:
			ts = append(ts, target{path: path, skip: "not a live table of " + manifestName + ": LevelDB is still writing it, or has yet to delete it"})
		case found[num]:
			// LevelDB opens NNNNNN.ldb, and NNNNNN.sst only without it.
			ts = append(ts, target{path: path, skip: fmt.Sprintf("LevelDB reads table %d from %06d.ldb", num, num)})
		default:
			found[num] = true
			ts = append(ts, liveTarget(path, manifestName, f))
		}
	}
	for _, f := range v.Files {
		if found[f.Number] {
			continue
		}
		// A compaction may have written it after the directory was listed.
		ldb := filepath.Join(dir, fmt.Sprintf("%06d.ldb", f.Number))
		if path, ok := firstExisting(ldb, filepath.Join(dir, fmt.Sprintf("%06d.sst", f.Number))); ok {
			ts = append(ts, liveTarget(path, manifestName, f))
			continue
		}
		tg := target{path: ldb, db: dir, num: f.Number}
		if reason, ok := vanished(tg, fs.ErrNotExist); ok {
			// Written and compacted away again since the listing.
			tg.skip = reason
		} else {
			tg.err = fmt.Errorf("%s: missing: %s lists table %d (level %d, %d bytes) as live; LevelDB cannot read this database",
				ldb, manifestName, f.Number, f.Level, f.Size)
		}
		ts = append(ts, tg)
	}
	return ts
}

// firstExisting returns the first of paths that exists.
func firstExisting(paths ...string) (string, bool) {
	for _, p := range paths {
		if _, err := os.Lstat(p); err == nil {
			return p, true
		}
	}
	return "", false
}

// vanished tells whether err, from reading the live table tg, is because
// LevelDB deleted the table after a compaction while it was being checked:
// the file is gone and the MANIFEST, read again, no longer lists it. It
// returns the reason to report the table as skipped.
func vanished(tg target, err error) (string, bool) {
	if tg.db == "" || !errors.Is(err, fs.ErrNotExist) {
		return "", false
	}
	v, merr := manifest.Read(tg.db)
	if merr != nil {
		return "", false
	}
	if _, live := v.Live(tg.num); live {
		return "", false
	}
	return "LevelDB deleted it while it was being checked: no longer a live table of " + filepath.Base(v.Manifest), true
}

// liveTarget is the live table f at path, with a warning when its size on
// disk is not the one the MANIFEST records: LevelDB reads its footer there,
// so it would not read the table as it is. Reading it reports any other
// problem.
func liveTarget(path, manifestName string, f manifest.File) target {
	tg := target{path: path, db: filepath.Dir(path), num: f.Number}
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() || uint64(fi.Size()) == f.Size {
		return tg
	}
	size := uint64(fi.Size())
	what := fmt.Sprintf("truncated: it ends at offset %d", size)
	if size > f.Size {
		what = fmt.Sprintf("%d bytes past offset %d, where the table ends", size-f.Size, f.Size)
	}
	tg.warn = fmt.Sprintf("%d bytes, but %s records %d for table %d: %s; LevelDB would not read it as it is",
		size, manifestName, f.Size, f.Number, what)
	return tg
}
