//go:build leveldb

package main

import (
	"fmt"
	"strings"

	"github.com/ldbcompat/ldbcompat/cgo/upstream"
	"github.com/ldbcompat/ldbcompat/internal/fixtures"
	"github.com/ldbcompat/ldbcompat/internal/plural"
	"github.com/ldbcompat/ldbcompat/internal/verify"
	"github.com/ldbcompat/ldbcompat/internal/verify/upstreamdb"
)

// askUpstream asks upstream 1.23 what it does with the database in dir,
// opened with the comparator the fixture records, and compares verify's
// verdicts in res with its answers. It returns what upstream does, in
// words, and whether verify agrees.
func askUpstream(dir string, f fixtures.Other, res *verify.RunResult) (what, agree string, err error) {
	var c upstream.Comparator
	if f.Options.ComparatorName != "" {
		// The writer's comparator (tools/other/plyvel_writer.py): bytewise
		// order, reversed.
		if !strings.Contains(f.Call, "reverse_bytewise") {
			return "", "", fmt.Errorf("comparator %s of unknown order (call %q)", f.Options.ComparatorName, f.Call)
		}
		c = upstream.Comparator{Name: f.Options.ComparatorName, Reverse: true}
	}
	d, err := upstreamdb.Ask(dir, c)
	if err != nil {
		return "", "", err
	}
	var parts []string
	switch {
	case d.Status != "":
		parts = append(parts, fmt.Sprintf("refuses to open it: `%s`", d.Status))
	case d.Missing != "":
		parts = append(parts, fmt.Sprintf("refuses to open it: `%s`", d.Missing))
	case d.DefaultStatus != "":
		parts = append(parts, fmt.Sprintf("opens it with a comparator named `%s` (with its default: `%s`)", c.Name, d.DefaultStatus))
	default:
		parts = append(parts, "opens it")
	}
	byClass := map[upstreamdb.Class][]upstreamdb.Table{}
	notFound := 0
	for _, t := range d.Tables {
		byClass[t.Class] = append(byClass[t.Class], t)
		notFound += t.NotFound
	}
	tables := func(n int) string { return plural.Count(n, "table") }
	if ts := byClass[upstreamdb.WithFilter]; len(ts) > 0 {
		parts = append(parts, fmt.Sprintf("reads %s with their filter", tables(len(ts))))
	}
	if ts := byClass[upstreamdb.Ignored]; len(ts) > 0 {
		parts = append(parts, fmt.Sprintf("ignores the filter of %s (found only under the old name, `leveldb.BuiltinBloomFilter`)", tables(len(ts))))
	}
	if ts := byClass[upstreamdb.Without]; len(ts) > 0 {
		parts = append(parts, fmt.Sprintf("reads %s without a filter", tables(len(ts))))
	}
	for _, t := range byClass[upstreamdb.Refused] {
		parts = append(parts, fmt.Sprintf("refuses table %d: `%s`", t.Number, t.Status))
	}
	switch {
	case len(d.Tables) == 0:
		parts = append(parts, "no live tables")
	case notFound == 0 && len(byClass[upstreamdb.Refused]) < len(d.Tables):
		parts = append(parts, "finds every key of the tables it reads")
	case notFound > 0:
		parts = append(parts, fmt.Sprintf("misses %s", plural.Count(notFound, "key")))
	}

	var wrong []string
	db := res.Items[0].Database
	if db == nil || db.Opens() != d.Opens() {
		wrong = append(wrong, "the database")
	}
	byNumber := map[uint64]*verify.TableReport{}
	for _, r := range res.Reports {
		if r != nil && r.Live != nil {
			byNumber[r.Live.Number] = r
		}
	}
	for _, t := range d.Tables {
		if r := byNumber[t.Number]; r == nil || !t.Class.Allows(r.Verdict) {
			wrong = append(wrong, fmt.Sprintf("table %d", t.Number))
		}
	}
	agree = "✅"
	if len(wrong) > 0 {
		agree = "❌ " + strings.Join(wrong, ", ")
	}
	return strings.Join(parts, "; "), agree, nil
}
