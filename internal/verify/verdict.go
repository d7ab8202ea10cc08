package verify

import (
	"fmt"
	"strings"
)

// Verdict is what upstream LevelDB 1.23 does with one table; a table file
// that is not live is skipped instead (TableReport.Skipped).
type Verdict string

// The verdicts, in the order summaries list them.
const (
	// OK: the leveldb.BuiltinBloomFilter2 filter is byte for byte what
	// that policy writes for the table's keys.
	OK Verdict = "ok"
	// OldFilter: the only bloom filter is named leveldb.BuiltinBloomFilter
	// (LevelDB v1.4 to v1.17, goleveldb), which LevelDB 1.18 on ignore.
	OldFilter Verdict = "old-filter"
	// NoFilter: the table has no filter block.
	NoFilter Verdict = "no-filter"
	// OtherFilter: the table's filter is another policy's: not checked;
	// upstream, with its bloom filter policy, ignores it.
	OtherFilter Verdict = "other-filter"
	// FilterUnusable: upstream cannot read the bloom filter block or the
	// metaindex, and silently reads the table without the filter.
	FilterUnusable Verdict = "filter-unusable"
	// Mismatch: the filter block's bytes differ from what its policy
	// writes for the table's keys.
	Mismatch Verdict = "mismatch"
	// BadChecksum: some block fails its checksum, yet upstream with the
	// default options returns every entry as written; paranoid fails it.
	BadChecksum Verdict = "bad-checksum"
	// SilentCorruption: a data or index block fails its checksum, and
	// upstream with the default options returns wrong, missing or extra entries.
	SilentCorruption Verdict = "silent-corruption"
	// Unreadable: upstream cannot open or scan the table, the storage fails
	// to read it, or upstream's behaviour is undefined.
	Unreadable Verdict = "unreadable"
	// Missing: the MANIFEST lists the table as live, and its file is not
	// in the database.
	Missing Verdict = "missing"
	// Unchecked: the table changed while it was read, or its keys exceed
	// verify's memory bound.
	Unchecked Verdict = "unchecked"
)

// Exit codes of `ldbcompat verify` and `dump`: the highest that applies.
const (
	// ExitOK: every table examined is ok, old-filter, no-filter or
	// other-filter, every log replayed, and every database opens.
	ExitOK = 0
	// ExitDamage: some table is a mismatch, filter-unusable or
	// bad-checksum, and nothing is worse.
	ExitDamage = 1
	// ExitError: some table, log or database upstream fails on or harms.
	ExitError = 2
	// ExitPath: some path could not be examined at all, or none named anything.
	ExitPath = 3
	// ExitUsage: the command line is wrong (an unknown command or flag, no
	// path); nothing was examined.
	ExitUsage = 4
)

// VerdictInfo documents a verdict: what it means, what upstream does, and
// the exit code it gives at least.
type VerdictInfo struct {
	Verdict  Verdict
	Meaning  string
	Upstream string
	Exit     int
}

// Verdicts documents every verdict, in order. The README's table and
// `ldbcompat help` are made from it (a test holds the README to it).
var Verdicts = []VerdictInfo{
	{OK, "filter `leveldb.BuiltinBloomFilter2`, byte for byte what its policy writes", "uses it", ExitOK},
	{OldFilter, "only a `leveldb.BuiltinBloomFilter` filter (v1.4 to v1.17, goleveldb), with either hash of that era", "ignores it: absent keys read a data block", ExitOK},
	{NoFilter, "no filter block", "reads without one", ExitOK},
	{OtherFilter, "another policy's filter, named, not checked", "ignores it", ExitOK},
	{FilterUnusable, "a bloom filter block or metaindex that cannot be read (why is given)", "reads without the filter", ExitDamage},
	{Mismatch, "filter bytes differ from what the policy writes; false negatives counted", "uses it: keys it rejects read as missing", ExitDamage},
	{BadChecksum, "a block fails its checksum, yet every entry reads as written", "defaults: reads it right; paranoid: corruption", ExitDamage},
	{SilentCorruption, "a data or index block fails its checksum: wrong values, missing and extra keys counted against the table as written", "defaults: returns them silently; paranoid: corruption", ExitError},
	{Unreadable, "does not open, its scan fails, the storage fails, or upstream's behaviour is undefined (status, file, offset)", "fails to open or read it (SIGBUS where its map cannot be read)", ExitError},
	{Missing, "a live table's file is missing", "refuses to open the database", ExitError},
	{Unchecked, "changed while read, or past verify's memory bound", "not known", ExitError},
}

// Info returns v's documentation.
func (v Verdict) Info() VerdictInfo {
	for _, i := range Verdicts {
		if i.Verdict == v {
			return i
		}
	}
	return VerdictInfo{Verdict: v, Exit: ExitError}
}

// Exit returns the exit code v gives at least.
func (v Verdict) Exit() int { return v.Info().Exit }

// VerdictTable returns Verdicts as the README's Markdown table, with rows
// for an unopenable database and a path that is neither.
func VerdictTable() string {
	var b strings.Builder
	b.WriteString("| verdict | meaning | upstream 1.23 | exit |\n| --- | --- | --- | --- |\n")
	for _, i := range Verdicts {
		fmt.Fprintf(&b, "| `%s` | %s | %s | %d |\n", i.Verdict, i.Meaning, i.Upstream, i.Exit)
	}
	for _, i := range LogVerdicts {
		fmt.Fprintf(&b, "| (%s) | %s | %s | %d |\n", i.Verdict, i.Meaning, i.Upstream, i.Exit)
	}
	for _, r := range extraRows {
		up := r.upstream
		if up == "" {
			up = "—"
		}
		fmt.Fprintf(&b, "| (%s) | %s | %s | %d |\n", r.what, r.meaning, up, r.exit)
	}
	return b.String()
}

// extraRows are the outcomes that are not a table's verdict.
var extraRows = []struct {
	what, meaning, upstream string
	exit                    int
}{
	{"skipped", "not a live table, or a named file that is not a table", "never reads it", ExitOK},
	{"database", "CURRENT or the MANIFEST unreadable, two comparators, a Pebble or RocksDB database (its tables still checked)", "refuses to open it", ExitError},
	{"path", "missing, unreadable, or no table or database in it; or nothing to examine", "", ExitPath},
	{"usage", "an unknown command or flag, or no path", "", ExitUsage},
}

// VerdictText returns Verdicts as plain text for `ldbcompat help`: the same
// rows as VerdictTable, wrapped to width columns.
func VerdictText(width int) string {
	var b strings.Builder
	row := func(name, exit, text string) {
		head := fmt.Sprintf("  %-20s %-4s  ", name, exit)
		for i, l := range wrap(strings.ReplaceAll(text, "`", ""), width-len(head)) {
			if i > 0 {
				head = strings.Repeat(" ", len(head))
			}
			b.WriteString(head + l + "\n")
		}
	}
	row("verdict", "exit", "meaning; what upstream 1.23 does")
	for _, i := range Verdicts {
		row(string(i.Verdict), fmt.Sprint(i.Exit), i.Meaning+"; upstream: "+i.Upstream+".")
	}
	for _, i := range LogVerdicts {
		row("("+string(i.Verdict)+")", fmt.Sprint(i.Exit), i.Meaning+"; upstream: "+i.Upstream+".")
	}
	for _, r := range extraRows {
		text := r.meaning
		if r.upstream != "" {
			text += "; upstream: " + r.upstream
		}
		row("("+r.what+")", fmt.Sprint(r.exit), text+".")
	}
	return b.String()
}

// wrap splits s into lines of at most width bytes at spaces.
func wrap(s string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(s) {
		if line != "" && len(line)+1+len(w) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}
