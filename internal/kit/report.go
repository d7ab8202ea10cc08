package kit

import (
	"fmt"
	"strings"

	"github.com/ldbcompat/ldbcompat/internal/plural"
)

// The kit's report on a port: a result per property, each failure with
// what upstream does, a reproducer and what it means for users.

// Property is one property of a port that the kit checks. Its value names
// the property in reports and is the name of TestPort's subtest for it.
type Property string

// The properties, in report order.
const (
	// PropName: NewPolicy(10).Name() is upstream's filter name.
	PropName Property = "filter name"
	// PropHash: Port.Hash is upstream's util/hash.cc Hash.
	PropHash Property = "hash"
	// PropFilterBytes: CreateFilter writes upstream's filter bytes.
	PropFilterBytes Property = "filter bytes"
	// PropKeyMayMatch: KeyMayMatch answers as upstream's does, on the
	// filters upstream writes and on arbitrary or damaged ones.
	PropKeyMayMatch Property = "KeyMayMatch on upstream filters"
	// PropBlockBytes: the filter block builder writes upstream's bytes.
	PropBlockBytes Property = "filter block bytes"
	// PropReader: the filter block reader answers as upstream's does, on
	// the blocks upstream writes and on damaged ones.
	PropReader Property = "filter block reader"
	// PropReadDB: through Port.ReadDB, the port reads every key of
	// databases upstream wrote.
	PropReadDB Property = "reads upstream's databases"
	// PropWriteDB: the databases Port.WriteDB writes have the filter
	// blocks upstream writes and, under the leveldb tag, upstream reads
	// every key of them.
	PropWriteDB Property = "writes databases upstream reads"
	// PropTableBytes: Port.WriteTable writes upstream's table bytes, or
	// a table upstream reads every entry of and finds every key in.
	PropTableBytes Property = "table bytes"
	// PropReadTable: Port.ReadTable reads every entry of upstream's
	// tables, and no wrong entry of damaged ones.
	PropReadTable Property = "reads upstream's tables"
	// PropLogBytes: Port.WriteLog writes upstream's log bytes, or a log
	// upstream reads every record of.
	PropLogBytes Property = "log bytes"
	// PropReadLog: Port.ReadLog returns the records upstream's
	// log::Reader returns, from clean, damaged and torn logs.
	PropReadLog Property = "reads upstream's logs"
	// PropLogRecovered: upstream opens what Port.WriteSynced left, open
	// or closed, and finds every synced write.
	PropLogRecovered Property = "upstream recovers the port's log"
	// PropRecoversLog: through Port.ReadDB, the port finds every write of
	// a database upstream left with its writes in the log.
	PropRecoversLog Property = "recovers upstream's log"
)

// Properties returns every property the kit checks, in report order.
func Properties() []Property {
	return []Property{PropName, PropHash, PropFilterBytes, PropKeyMayMatch, PropBlockBytes, PropReader, PropReadDB, PropWriteDB,
		PropTableBytes, PropReadTable, PropLogBytes, PropReadLog, PropLogRecovered, PropRecoversLog}
}

// Outcome is the outcome of checking one property.
type Outcome string

// The outcomes of a property.
const (
	Pass Outcome = "pass" // every case compared agrees with upstream
	Fail Outcome = "fail" // some case differs from upstream
	Skip Outcome = "skip" // the port has no hook for the property
)

// MaxShown is how many failures of one property compat.TestPort and
// Report.String print; the rest are counted.
const MaxShown = 5

// PropertyResult is what the kit found of one property.
type PropertyResult struct {
	Property Property
	Outcome  Outcome
	// Cases counts the cases compared with upstream: inputs whose
	// outputs or answers were compared, or databases read or tables
	// written for the end-to-end properties. A case run against both the
	// golden vectors and live upstream counts twice.
	Cases int
	// Uncompared counts the cases that could not be compared: the golden
	// vectors hold upstream's filter or block for them only as a digest,
	// and this module's bloom package, which recovers it, does not
	// reproduce the digest. Report.Errors then says so too.
	Uncompared int
	// Failures are every case that differs from upstream, in case order.
	Failures []Failure
	// Note says why the check was skipped.
	Note string
	// Effect says what the failures mean for the port's users, such as
	// "false negatives: Get on the port reports keys missing ...": the
	// distinct effects of Failures, the most harmful first.
	Effect string
}

// Report is what Check found of a port: one PropertyResult per property,
// in the order of Properties.
type Report struct {
	Port string
	// Upstream says what the port was compared with: the golden vectors'
	// provenance and, under the leveldb tag, the live library.
	Upstream string
	// LiveNotRun says why the live part (the case suite asked of upstream
	// through cgo, and databases written and read by it) did not run
	// although the kit was built with the leveldb tag: the linked LevelDB
	// predates v1.18, whose bloom filter ports are checked for. Empty when
	// it ran, or when the kit was built without the tag.
	LiveNotRun string
	Results    []PropertyResult
	// Errors are problems of the suite itself, such as golden vectors
	// that do not match the cases; they are not the port's fault, but a
	// report with errors has not checked everything.
	Errors []string
}

// Passed reports whether no check failed and the suite had no errors.
func (r Report) Passed() bool {
	if len(r.Errors) > 0 {
		return false
	}
	for _, c := range r.Results {
		if c.Outcome == Fail {
			return false
		}
	}
	return true
}

// Result returns the result for property prop.
func (r Report) Result(prop Property) (PropertyResult, bool) {
	for _, c := range r.Results {
		if c.Property == prop {
			return c, true
		}
	}
	return PropertyResult{}, false
}

// String summarizes r: one line per property and, for each failed one, its
// first five failures and its effect on users.
func (r Report) String() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s against %s\n", r.Port, r.Upstream)
	if r.LiveNotRun != "" {
		fmt.Fprintf(&sb, "  live part not run: %s\n", r.LiveNotRun)
	}
	for _, e := range r.Errors {
		fmt.Fprintf(&sb, "  suite error: %s\n", e)
	}
	for _, c := range r.Results {
		switch c.Outcome {
		case Skip:
			fmt.Fprintf(&sb, "  skip  %s: %s\n", c.Property, c.Note)
		case Pass:
			fmt.Fprintf(&sb, "  pass  %s (%s%s)\n", c.Property, plural.Count(c.Cases, "case"), c.uncomparedNote())
		default:
			fmt.Fprintf(&sb, "  FAIL  %s (%d of %s%s)\n", c.Property, len(c.Failures), plural.Count(c.Cases, "case"), c.uncomparedNote())
			for i, f := range c.Failures {
				if i == MaxShown {
					fmt.Fprintf(&sb, "        ... and %d more\n", len(c.Failures)-MaxShown)
					break
				}
				fmt.Fprintf(&sb, "%s\n", indent(f.String()))
			}
			fmt.Fprintf(&sb, "        effect: %s\n", c.Effect)
		}
	}
	return sb.String()
}

func (c PropertyResult) uncomparedNote() string {
	if c.Uncompared == 0 {
		return ""
	}
	return fmt.Sprintf("; %d more not compared", c.Uncompared)
}

// Failure is one case in which the port differs from upstream.
type Failure struct {
	Property Property
	Case     string // the case's name
	Detail   string // what differs, with the first differing byte or answer
	Repro    string // the inputs, as a line to paste into a test
	// Effect says what the difference means for the port's users, and
	// Harm how harmful that is.
	Effect string
	Harm   Harm
}

// String returns the property, case and detail and, on a line of its own,
// the reproducer.
func (f Failure) String() string {
	s := fmt.Sprintf("%s %s: %s", f.Property, f.Case, f.Detail)
	if f.Repro != "" {
		s += "\n    reproduce: " + f.Repro
	}
	return s
}

func indent(s string) string {
	return "      " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n      ")
}
