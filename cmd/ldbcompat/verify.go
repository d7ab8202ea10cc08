package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/internal/filtercheck"
	"github.com/ldbcompat/ldbcompat/internal/table"
)

// statusError marks a table or path that could not be read.
const statusError = "error"

// statusSkipped marks a table file of a database that is not one of its
// live tables: it is not read.
const statusSkipped = "skipped"

// verifyReport is what `verify` learns of one target; its JSON form is
// tableJSON.
type verifyReport struct {
	Path string
	// Status is Result.Status, "error" when Error is set, or "skipped"
	// with Reason.
	Status string
	Error  string
	Reason string
	// Warning is said of a table of a database: its size is not the one
	// the MANIFEST records. When the table cannot be read, Error ends
	// with it instead.
	Warning string
	// DiffFileOffset is the file offset of the first differing byte.
	DiffFileOffset *uint64
	// Result is the check's, for a table that was read.
	Result *filtercheck.Result
}

func runVerify(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("verify", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print JSON")
	paths, ok := parseFlags(fs, args, stderr)
	if !ok {
		return exitError
	}
	targets, warnings := resolve(paths)
	out := verifyOutput{Warnings: warnings, Tables: []tableJSON{}}
	if !*asJSON {
		printWarnings(stderr, warnings)
	}
	prog := newProgress(stderr, "verified", len(targets))
	forEachOrdered(len(targets), func(i int) verifyReport {
		return verifyOne(targets[i])
	}, func(_ int, rep verifyReport) {
		prog.tick()
		switch rep.Status {
		case statusError:
			out.Summary.Errors++
		case statusSkipped:
			out.Summary.Skipped++
		case string(filtercheck.StatusOK):
			out.Summary.OK++
		case string(filtercheck.StatusMismatch):
			out.Summary.Mismatch++
		case string(filtercheck.StatusNoFilter):
			out.Summary.NoFilter++
		case string(filtercheck.StatusUnknownPolicy):
			out.Summary.UnknownPolicy++
		}
		if rep.Status != statusError && rep.Status != statusSkipped {
			out.Summary.Tables++
		}
		if *asJSON {
			out.Tables = append(out.Tables, rep.toJSON())
			return
		}
		prog.clear()
		if rep.Status == statusError {
			fmt.Fprintf(stderr, "ldbcompat: %s\n", rep.Error)
			return
		}
		if rep.Warning != "" {
			printWarnings(stderr, []string{rep.Path + ": " + rep.Warning})
		}
		fmt.Fprintln(stdout, verifyLine(rep))
	})
	prog.finish()
	out.ExitCode = exitOK
	if out.Summary.Mismatch > 0 {
		out.ExitCode = exitMismatch
	}
	if out.Summary.Errors > 0 {
		out.ExitCode = exitError
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			fmt.Fprintf(stderr, "ldbcompat: %v\n", err)
			return exitError
		}
		return out.ExitCode
	}
	s := out.Summary
	fmt.Fprintf(stdout, "%d tables: %d ok, %d mismatch, %d without filter", s.Tables, s.OK, s.Mismatch, s.NoFilter)
	if s.UnknownPolicy > 0 {
		fmt.Fprintf(stdout, ", %d with an unknown filter policy (not checked)", s.UnknownPolicy)
	}
	if s.Skipped > 0 {
		fmt.Fprintf(stdout, "; %d table files skipped (not live)", s.Skipped)
	}
	if s.Errors > 0 {
		fmt.Fprintf(stdout, "; %d unreadable", s.Errors)
	}
	fmt.Fprintln(stdout)
	return out.ExitCode
}

// withWarning is err's message, followed by what is known of the file
// from its database's MANIFEST, if anything.
func withWarning(err error, warn string) string {
	if warn == "" {
		return err.Error()
	}
	return err.Error() + "; the file is " + warn
}

// printWarnings writes each warning on a line of its own to w.
func printWarnings(w io.Writer, warnings []string) {
	for _, s := range warnings {
		fmt.Fprintf(w, "ldbcompat: warning: %s\n", s)
	}
}

// verifyOne checks one target.
func verifyOne(tg target) verifyReport {
	rep, _, _ := readTarget(tg) // the table and its keys are not reported
	return rep
}

// readTarget reads tg's table, if it is one to read, and checks its filter
// block. The report says what became of it; for a table that was read, the
// table and its data blocks (moved out of the result) come with it.
func readTarget(tg target) (verifyReport, *table.Table, []filtercheck.Block) {
	rep := verifyReport{Path: tg.path, Warning: tg.warn}
	if tg.err != nil {
		rep.Status, rep.Error = statusError, tg.err.Error()
		return rep, nil, nil
	}
	if tg.skip != "" {
		rep.Status, rep.Reason = statusSkipped, tg.skip
		return rep, nil, nil
	}
	t, r, err := openChecked(tg.path)
	if reason, ok := vanished(tg, err); ok {
		rep.Status, rep.Reason = statusSkipped, reason
		return rep, nil, nil
	}
	if err != nil {
		rep.Status, rep.Error, rep.Warning = statusError, withWarning(err, tg.warn), ""
		return rep, nil, nil
	}
	blocks := r.Blocks
	r.Blocks = nil
	rep.Result, rep.Status = r, string(r.Status)
	if r.Diff != nil {
		off := r.FilterBlockOffset + uint64(r.Diff.Offset)
		rep.DiffFileOffset = &off
	}
	return rep, t, blocks
}

// legacyText describes the hash a legacy filter was written with.
var legacyText = map[string]string{
	filtercheck.LegacyUnsigned: "legacy, written with unsigned (ARM) hash",
	filtercheck.LegacySigned:   "legacy, written with signed (x86) hash",
	filtercheck.LegacyEither:   "legacy, either hash (no key tells them apart)",
	filtercheck.LegacyNeither:  "legacy, neither hash matches",
}

// verifyLine formats a readable table's result as one line.
func verifyLine(rep verifyReport) string {
	r := rep.Result
	var b strings.Builder
	fmt.Fprintf(&b, "%s: ", rep.Path)
	if rep.Status == statusSkipped {
		fmt.Fprintf(&b, "skipped: %s", rep.Reason)
		return b.String()
	}
	switch r.Status {
	case filtercheck.StatusNoFilter:
		fmt.Fprintf(&b, "no filter block (%d data blocks, %d keys)", r.DataBlocks, r.Keys)
		return b.String()
	case filtercheck.StatusUnknownPolicy:
		fmt.Fprintf(&b, "not checked: unknown filter policy %q (%d data blocks, %d keys)", r.Policy, r.DataBlocks, r.Keys)
		return b.String()
	case filtercheck.StatusOK:
		b.WriteString("ok: ")
	default:
		b.WriteString("MISMATCH: ")
	}
	b.WriteString(r.Policy)
	if r.Policy == bloom.LegacyPolicyName {
		fmt.Fprintf(&b, " (%s)", legacyText[r.Legacy])
	}
	if r.LayoutError == "" {
		fmt.Fprintf(&b, ", %s", r.Params)
	}
	fmt.Fprintf(&b, ", %d filters, %d keys", r.Filters, r.Keys)
	if r.LayoutError != "" {
		fmt.Fprintf(&b, "; malformed filter block: %s", r.LayoutError)
	}
	if d := r.Diff; d != nil {
		fmt.Fprintf(&b, "; first difference at filter block %s", d)
		if rep.DiffFileOffset != nil {
			fmt.Fprintf(&b, " (file offset %d)", *rep.DiffFileOffset)
		}
	}
	return b.String()
}
