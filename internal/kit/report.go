package kit

import (
	"fmt"
	"strings"

	"github.com/ldbcompat/ldbcompat/internal/plural"
)

// Property is a property the kit checks; its value names it in reports and
// TestPort's subtests.
type Property string

// The properties, in report order.
const (
	// PropName: NewPolicy(10).Name() is upstream's filter name.
	PropName Property = "filter name"
	// PropHash: Port.Hash is upstream's util/hash.cc Hash.
	PropHash Property = "hash"
	// PropFilterBytes: CreateFilter writes upstream's filter bytes.
	PropFilterBytes Property = "filter bytes"
	// PropKeyMayMatch: KeyMayMatch answers as upstream's, on its filters and damaged ones.
	PropKeyMayMatch Property = "KeyMayMatch on upstream filters"
	// PropBlockBytes: the filter block builder writes upstream's bytes.
	PropBlockBytes Property = "filter block bytes"
	// PropReader: the filter block reader answers as upstream's, on its blocks and damaged ones.
	PropReader Property = "filter block reader"
	// PropReadDB: Port.ReadDB reads every key of databases upstream wrote.
	PropReadDB Property = "reads upstream's databases"
	// PropWriteDB: Port.WriteDB's tables hold upstream's filter blocks, and upstream reads them.
	PropWriteDB Property = "writes databases upstream reads"
	// PropTableBytes: Port.WriteTable writes upstream's bytes, or a table upstream reads right.
	PropTableBytes Property = "table bytes"
	// PropReadTable: Port.ReadTable reads upstream's tables, and no wrong entry of damaged ones.
	PropReadTable Property = "reads upstream's tables"
	// PropLogBytes: Port.WriteLog writes upstream's bytes, or a log upstream reads right.
	PropLogBytes Property = "log bytes"
	// PropReadLog: Port.ReadLog returns log::Reader's records of clean, damaged and torn logs.
	PropReadLog Property = "reads upstream's logs"
	// PropLogRecovered: upstream recovers every write Port.WriteSynced synced.
	PropLogRecovered Property = "upstream recovers the port's log"
	// PropRecoversLog: Port.ReadDB recovers databases upstream left in their logs.
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

// MaxShown is how many failures of a property TestPort and Report.String
// print; the rest are counted.
const MaxShown = 5

// PropertyResult is what the kit found of one property.
type PropertyResult struct {
	Property Property
	Outcome  Outcome
	// Cases counts the cases compared with upstream.
	Cases int
	// Uncompared counts cases upstream's output for which the golden
	// vectors hold only as a digest that package bloom does not reproduce.
	Uncompared int
	Failures   []Failure // every case that differs, in case order
	Note       string    // why the check was skipped
	// Effect says what the failures mean for users, most harmful first.
	Effect string
}

// Report is what Check found of a port: one PropertyResult per property,
// in the order of Properties.
type Report struct {
	Port string
	// Upstream says what the port was compared with.
	Upstream string
	// LiveNotRun says why the live part did not run under the leveldb
	// tag (a LevelDB before v1.18 is linked); empty otherwise.
	LiveNotRun string
	Results    []PropertyResult
	// Errors are the suite's own problems: not the port's fault, but a
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

// String summarizes r: a line per property, and a failed one's first five
// failures and effect.
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
	Effect   string // what the difference means for users
	Harm     Harm
}

// String returns the property, case and detail, and the reproducer on a
// line of its own.
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
