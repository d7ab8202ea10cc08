package main

import (
	"flag"
	"fmt"
	"io"
	"math"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/internal/filtercheck"
	"github.com/ldbcompat/ldbcompat/internal/verify"
)

// dumpReport is what `dump` learns of one table; its JSON form is
// dumpJSON.
type dumpReport struct {
	*verify.Report
	Layout *dumpLayout
	FPR    *filtercheck.FPR
}

func runDump(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("dump", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print JSON")
	samples := fs.Int("samples", 10000, "absent keys to query per table")
	seed := fs.Uint64("seed", 1, "seed for the absent keys")
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
	var doc document[dumpJSON]
	var sum verify.Summary
	prog := newProgress(stderr, "dumped", countTables(items))
	first := true
	verify.Each(items, options(true), func(it verify.Item, rep *verify.Report) {
		sum.Add(it, rep)
		var d dumpReport
		if rep != nil {
			prog.tick()
			d = dumpOne(rep, *samples, *seed)
		}
		if *asJSON {
			doc.add(it, d.toJSON)
			return
		}
		prog.clear()
		if rep == nil {
			printItem(stdout, stderr, it, nil, &first)
			if it.Database != nil {
				fmt.Fprintln(stdout)
			}
			return
		}
		writeDump(stdout, d)
	})
	prog.finish()
	code := sum.ExitCode()
	if *asJSON {
		doc.init()
		out := dumpOutput{Schema: jsonSchema, Tool: buildInfo(), Databases: doc.Databases, Tables: doc.Tables,
			PathErrors: doc.PathErrors, Notes: doc.Notes, Summary: summaryOf(sum), ExitCode: code}
		return encodeJSON(stdout, stderr, out, code)
	}
	return code
}

// dumpOne describes the filter block of the table of rep, if it has one
// that was read, and drops the keys rep kept for it.
func dumpOne(rep *verify.Report, samples int, seed uint64) dumpReport {
	d := dumpReport{Report: rep}
	blocks, contents, r := rep.Blocks, rep.FilterContents, rep.Filter
	rep.Table, rep.Blocks, rep.FilterContents = nil, nil, nil
	if r == nil {
		return d
	}
	r.Blocks = nil
	l, err := filtercheck.ParseLayout(contents)
	if err != nil {
		return d // reported as r.LayoutError
	}
	keys := filtercheck.KeysPerFilter(blocks, l.BaseLg, len(l.Filters))
	base := r.FilterBlockOffset
	d.Layout = &dumpLayout{BaseLg: l.BaseLg, ArrayOffset: base + uint64(l.ArrayOffset), ArrayOffsetInFilterBlock: l.ArrayOffset,
		Filters: make([]dumpFilter, len(l.Filters))}
	for i, f := range l.Filters {
		d.Layout.Filters[i] = dumpFilter{Index: i, Offset: base + uint64(f.Offset), OffsetInFilterBlock: f.Offset,
			Bytes: f.Len, Keys: keys[i], K: f.K(contents)}
		if f.Len == 0 {
			d.Layout.EmptyFilters++
		}
	}
	var p bloom.FilterPolicy
	switch r.Policy {
	case bloom.PolicyName:
		p = bloom.NewPolicy(r.Params.BitsPerKey)
	case bloom.LegacyPolicyName:
		p = bloom.NewLegacyPolicy(r.Params.BitsPerKey, r.Legacy == filtercheck.LegacySigned)
	default:
		return d // no policy to query with
	}
	fpr := filtercheck.MeasureFPR(contents, l, blocks, p, samples, seed)
	if r.Status == filtercheck.StatusOK && fpr.Samples > 0 {
		filtercheck.ExpectFilters(&fpr, contents, l, blocks, p, seed)
	}
	d.FPR = &fpr
	return d
}

// writeDump prints one table's dump.
func writeDump(w io.Writer, d dumpReport) {
	fmt.Fprintf(w, "%s\n", d.Path)
	r := d.Filter
	if r == nil {
		verdict := string(d.Verdict)
		if verdict == "" {
			verdict = "skipped"
		}
		fmt.Fprintf(w, "  %s: %s\n\n", verdict, d.Detail())
		return
	}
	verdict := string(d.Verdict)
	if r.Diff != nil {
		verdict += " at filter block " + r.Diff.String()
	}
	if r.Legacy != "" {
		verdict += "; " + r.Legacy + " hash"
	}
	fmt.Fprintf(w, "  filter policy    %s (verify: %s)\n", r.Policy, verdict)
	if r.Params != nil && r.LayoutError == "" {
		fmt.Fprintf(w, "  implies          %s\n", r.Params)
	}
	l := d.Layout
	if l == nil {
		fmt.Fprintf(w, "  filter block     %d bytes at offset %d: %s\n\n", r.FilterBlockSize, r.FilterBlockOffset, r.LayoutError)
		return
	}
	fmt.Fprintf(w, "  filter block     %d bytes at offset %d; %d filters (%d empty), one per %d bytes of data-block offsets\n",
		r.FilterBlockSize, r.FilterBlockOffset, len(l.Filters), l.EmptyFilters, uint64(1)<<(uint(l.BaseLg)&63))
	minK, maxK, sum, nonEmpty := -1, 0, 0, 0
	for _, f := range l.Filters {
		if f.Keys == 0 {
			continue
		}
		nonEmpty++
		sum += f.Keys
		if minK < 0 || f.Keys < minK {
			minK = f.Keys
		}
		maxK = max(maxK, f.Keys)
	}
	fmt.Fprintf(w, "  keys             %d in %d data blocks", r.Keys, r.DataBlocks)
	if nonEmpty > 0 {
		fmt.Fprintf(w, "; per filter with keys: min %d, mean %.1f, max %d", minK, float64(sum)/float64(nonEmpty), maxK)
	}
	fmt.Fprintln(w)
	if f := d.FPR; f != nil && f.Samples > 0 {
		expected := "not computed (the filter block is not what its policy writes)"
		if !math.IsNaN(f.Expected) {
			expected = fmt.Sprintf("%.3f%%", 100*f.Expected)
		}
		fmt.Fprintf(w, "  false positives  measured %.3f%% (%d of %d absent keys); expected of LevelDB's probe scheme %s (simulated); independent-hash formula %.3f%%\n",
			100*f.Measured, f.FalsePositives, f.Samples, expected, 100*f.Theoretical)
	}
	fmt.Fprintf(w, "  %6s  %-23s %6s %6s %3s %8s\n", "filter", "data offsets", "keys", "bytes", "k", "bits/key")
	span := uint64(1) << (uint(l.BaseLg) & 63)
	for _, f := range l.Filters {
		lo := uint64(f.Index) * span
		rng := fmt.Sprintf("%d..%d", lo, lo+span-1)
		k, bpk := "-", "-"
		if f.Bytes > 0 {
			k = fmt.Sprint(f.K)
		}
		if f.Keys > 0 && f.Bytes > 0 {
			bpk = fmt.Sprintf("%.1f", float64((f.Bytes-1)*8)/float64(f.Keys))
		}
		fmt.Fprintf(w, "  %6d  %-23s %6d %6d %3s %8s\n", f.Index, rng, f.Keys, f.Bytes, k, bpk)
	}
	fmt.Fprintln(w)
}
