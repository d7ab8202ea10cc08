package kit

import (
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/ldbcompat/ldbcompat"
	"github.com/ldbcompat/ldbcompat/internal/cases"
	"github.com/ldbcompat/ldbcompat/internal/plural"
)

// TestPort is compat.TestPort, which documents it: a subtest per property
// of p against upstream LevelDB 1.23.
func TestPort(t *testing.T, p Port) {
	t.Helper()
	testReport(t, Check(p))
}

// TestPortEndToEnd is TestPort with the database, table and log properties
// only: mutation testing of table and log code runs it, where the bloom
// suite would only add time.
func TestPortEndToEnd(t *testing.T, p Port) {
	t.Helper()
	testReport(t, check(p, kitConfig{tables: committedTables(), live: Live, endToEndOnly: true}))
}

// testReport fails t, property by property, as r says.
func testReport(t *testing.T, r Report) {
	t.Helper()
	t.Logf("%s against %s", r.Port, r.Upstream)
	if r.LiveNotRun != "" {
		t.Logf("live part not run: %s", r.LiveNotRun)
	}
	for _, e := range r.Errors {
		t.Errorf("suite error: %s", e)
	}
	// Standard output, unlike the log, shows without -v.
	var skipped []string
	for _, c := range r.Results {
		if c.Outcome == Skip {
			skipped = append(skipped, fmt.Sprintf("%s (%s)", c.Property, c.Note))
		}
	}
	if len(skipped) > 0 {
		fmt.Printf("compat: %s: %d of %s not checked: %s\n", r.Port, len(skipped), plural.Count(len(r.Results), "property"), strings.Join(skipped, "; "))
	}
	for _, c := range r.Results {
		t.Run(string(c.Property), func(t *testing.T) {
			if c.Uncompared > 0 {
				t.Logf("%s could not be compared (see the suite errors)", plural.Count(c.Uncompared, "case"))
			}
			switch c.Outcome {
			case Skip:
				t.Skip(c.Note)
			case Pass:
				t.Log(agreeNote(c.Cases))
			default:
				for i, f := range c.Failures {
					if i == MaxShown {
						t.Errorf("... and %s (%d of %s differ)", plural.Count(len(c.Failures)-MaxShown, "more failure"), len(c.Failures), plural.Count(c.Cases, "case"))
						break
					}
					t.Error(f)
				}
				t.Logf("effect on users: %s", c.Effect)
			}
		})
	}
}

// agreeNote is what a passed property's log says of its n cases.
func agreeNote(n int) string {
	return fmt.Sprintf("%s %s with upstream", plural.Count(n, "case"), plural.Verb(n, "agrees", "agree"))
}

// Check checks p as TestPort does and returns the Report instead of failing
// a test, for programs such as ports/cmd/report.
func Check(p Port) Report {
	return check(p, kitConfig{tables: committedTables(), live: Live})
}

// caseProperties are those of the case suite; the others are end to end.
var caseProperties = []Property{PropName, PropHash, PropFilterBytes, PropKeyMayMatch, PropBlockBytes, PropReader}

// kitConfig is what a check runs with.
type kitConfig struct {
	tables       fs.FS      // upstream's databases (internal/fixtures layout), or nil
	live         bool       // ask upstream through cgo and levigo
	endToEndOnly bool       // skip the case suite
	ref          cases.Impl // recovers digest-only outputs; nil: package bloom
}

// committedTables returns the embedded testdata/tables, or nil.
func committedTables() fs.FS {
	sub, err := fs.Sub(ldbcompat.TestData, "testdata/tables")
	if err != nil {
		return nil
	}
	if _, err := fs.ReadDir(sub, "."); err != nil {
		return nil
	}
	return sub
}

// check runs every property of p.
func check(p Port, cfg kitConfig) Report {
	rep := Report{Port: p.Name}
	if cfg.live {
		if why := liveNotRun(); why != "" {
			cfg.live = false
			rep.LiveNotRun = why
		}
	}
	res := newResults()
	skip := map[Property]string{}
	if p.NewPolicy == nil {
		res.suiteError("Port.NewPolicy is nil: it is required")
		for _, prop := range Properties() {
			skip[prop] = "Port.NewPolicy is nil"
		}
	} else {
		if cfg.endToEndOnly {
			for _, prop := range caseProperties {
				skip[prop] = "not run: end-to-end checks only"
			}
		} else {
			rep.Upstream = runCases(p, cfg, res)
		}
		if p.Hash == nil {
			skip[PropHash] = "the port has no Hash hook (it does not export its hash)"
		}
		for prop, note := range checkHooks(p, cfg, res) {
			skip[prop] = note
		}
	}
	for _, prop := range caseProperties {
		if _, n := res.counts(prop); n > 0 {
			res.suiteError(fmt.Sprintf("%s: %s not compared: the golden vectors hold upstream's output for them only as a digest, and package bloom, which recovers it, does not reproduce it", prop, plural.Count(n, "case")))
		}
	}
	rep.Errors = res.errs
	for _, prop := range Properties() {
		compared, uncompared := res.counts(prop)
		c := PropertyResult{Property: prop, Cases: compared, Uncompared: uncompared}
		fs := res.byProp[prop]
		for _, f := range fs {
			f.Effect, f.Harm = f.kind.effect(), f.kind.harm()
			c.Failures = append(c.Failures, f.Failure)
		}
		switch {
		case len(fs) > 0:
			c.Outcome = Fail
			c.Effect = summarize(fs)
		case skip[prop] != "":
			c.Outcome, c.Note = Skip, skip[prop]
		default:
			c.Outcome = Pass
		}
		rep.Results = append(rep.Results, c)
	}
	return rep
}

// runCases runs the case suite on p against the golden vectors and, live,
// upstream, and says what p was compared with.
func runCases(p Port, cfg kitConfig, res *results) string {
	upstream := "nothing: the golden vectors did not load"
	vs, err := cases.LoadVectors(ldbcompat.TestData, cases.VectorDir)
	if err != nil {
		res.suiteError(err.Error())
	} else {
		ref := cfg.ref
		if ref == nil {
			ref = bloomRef
		}
		run(p, cases.VectorOracle{V: vs, Ref: ref}, cases.VectorSet(), res)
		prov := vs.Provenance()
		upstream = fmt.Sprintf("LevelDB %s golden vectors (%s, %s)", prov.LevelDB, prov.GOARCH, prov.Compiler)
	}
	if cfg.live {
		run(p, upstreamOracle(), cases.LiveSet(), res)
		upstream += " and LevelDB live through cgo"
		if wideWanted() {
			run(p, upstreamOracle(), cases.WideSet(), res)
			upstream += " (with a filter of 2^32 bits)"
		}
	}
	return upstream
}

// wideEnv adds, live, a filter of 2^32 bits and more: where util/bloom.cc's
// h % bits, bits a size_t, leaves h as it is and a 32-bit modulo wraps.
const wideEnv = "LDBCOMPAT_WIDE"

// wideWanted tells whether wideEnv asks for the wide filter case.
func wideWanted() bool { return os.Getenv(wideEnv) == "1" }

// sortBySeverity orders fs most harmful first, stably.
func sortBySeverity(fs []caseFailure) {
	sort.SliceStable(fs, func(i, j int) bool { return fs[i].kind.severity() < fs[j].kind.severity() })
}
