// Package row runs the conformance kit on one port adapter and keeps what
// docs/ports.md shows of it: a row of the port table and the findings under
// it. A Row is made in the ports module for the adapters that live there,
// and in a module of its own for each other version of a module (Go builds
// one version of a module per build: see ports/versions), whose main
// program prints its Row as JSON for cmd/report to read.
package row

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime/debug"
	"sort"

	"github.com/ldbcompat/ldbcompat/compat"
	"github.com/ldbcompat/ldbcompat/internal/kit"
)

// Adapter is one port and how its adapter reaches each property.
type Adapter struct {
	// Module is the module path the adapter imports.
	Module string
	Port   func() compat.Port
	// Notes say, by property, which API the adapter calls, or why the
	// property cannot be reached.
	Notes map[kit.Property]string
	// Measure, when set, measures what the kit's properties do not cover
	// (such as moving tables between the port and upstream); nil when
	// there is nothing more.
	Measure func() []Measured
}

// Measured is one measurement beyond the kit's checks.
type Measured struct {
	What    string `json:"what"`    // what was asked, as a heading
	How     string `json:"how"`     // how it was measured
	Outcome string `json:"outcome"` // what was measured, in words
	Repro   string `json:"repro"`   // how to do it again
	// Harm is what the outcome means for users, measured: 0 when it is
	// not known (not measured).
	Harm kit.Harm `json:"harm,omitempty"`
}

// NotMeasured returns m with the outcome that err kept it from being
// measured.
func (m Measured) NotMeasured(err error) Measured {
	m.Outcome = "not measured: " + err.Error()
	return m
}

// Row is a port at one version, checked.
type Row struct {
	// Module and Version are the module the adapter imports and the version
	// built. Fork and ForkVersion name the module that replaced it in the
	// build (a replace directive), if one did: the code checked is theirs.
	Module      string `json:"module"`
	Version     string `json:"version"`
	Fork        string `json:"fork,omitempty"`
	ForkVersion string `json:"fork_version,omitempty"`
	// Built says which module built it ("ports", or the directory of a
	// module under ports/versions).
	Built string `json:"built"`

	Notes      map[kit.Property]string `json:"notes"`
	Upstream   string                  `json:"upstream"`
	LiveNotRun string                  `json:"live_not_run,omitempty"`
	Errors     []string                `json:"errors,omitempty"`
	Results    []Result                `json:"checks"`
	Measured   []Measured              `json:"measured,omitempty"`
}

// Result is the outcome of one property.
type Result struct {
	Property   kit.Property `json:"property"`
	Outcome    kit.Outcome  `json:"status"`
	Cases      int          `json:"cases"`
	Uncompared int          `json:"uncompared,omitempty"`
	Note       string       `json:"note,omitempty"`
	// Groups are the failures by effect, the most harmful first.
	Groups []Group `json:"groups,omitempty"`
	// Failures counts the failed cases.
	Failures int `json:"failures,omitempty"`
}

// Group is the failures of one check with one effect.
type Group struct {
	Effect string      `json:"effect"`
	Harm   kit.Harm    `json:"harm"`
	N      int         `json:"n"`
	First  kit.Failure `json:"first"`
	// All holds every failure of the group when it has at most maxAll
	// and its harm is false negatives, so that a report can give each
	// case's count of keys lost; nil otherwise.
	All []kit.Failure `json:"all,omitempty"`
}

// maxAll is how many false negatives a group keeps in full.
const maxAll = 12

// Path is the module whose code the row checks: the fork when a replace
// put one in the module's place.
func (r Row) Path() string {
	if r.Fork != "" {
		return r.Fork
	}
	return r.Module
}

// At is the version of Path.
func (r Row) At() string {
	if r.Fork != "" {
		return r.ForkVersion
	}
	return r.Version
}

// Result returns the check of property p.
func (r Row) Result(p kit.Property) (Result, bool) {
	for _, c := range r.Results {
		if c.Property == p {
			return c, true
		}
	}
	return Result{}, false
}

// Run checks a with kit.Check. built names the module that builds it.
func Run(a Adapter, built string) Row {
	rep := kit.Check(a.Port())
	r := Row{Module: a.Module, Built: built, Notes: a.Notes, Upstream: rep.Upstream, LiveNotRun: rep.LiveNotRun, Errors: rep.Errors}
	r.Version, r.Fork, r.ForkVersion = buildVersion(a.Module)
	for _, c := range rep.Results {
		r.Results = append(r.Results, Result{Property: c.Property, Outcome: c.Outcome, Cases: c.Cases, Uncompared: c.Uncompared,
			Note: c.Note, Groups: groups(c), Failures: len(c.Failures)})
	}
	if a.Measure != nil {
		r.Measured = a.Measure()
	}
	return r
}

// groups groups c's failures by effect, keeping the first of each, the
// most harmful first (and, at equal harm, in the order of c.Effect).
func groups(c kit.PropertyResult) []Group {
	var gs []Group
	at := map[string]int{}
	for _, f := range c.Failures {
		if i, ok := at[f.Effect]; ok {
			gs[i].N++
			continue
		}
		at[f.Effect] = len(gs)
		gs = append(gs, Group{Effect: f.Effect, Harm: f.Harm, N: 1, First: f})
	}
	for _, f := range c.Failures {
		if g := &gs[at[f.Effect]]; g.Harm == kit.HarmFalseNegatives && g.N <= maxAll {
			g.All = append(g.All, f)
		}
	}
	sort.SliceStable(gs, func(i, j int) bool { return gs[i].Harm < gs[j].Harm })
	return gs
}

// buildVersion returns the version of module path this program was built
// with and, when a replace directive put another module in its place,
// that module and its version.
func buildVersion(path string) (version, fork, forkVersion string) {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown", "", ""
	}
	for _, d := range bi.Deps {
		if d.Path != path {
			continue
		}
		if d.Replace == nil {
			return d.Version, "", ""
		}
		if d.Replace.Path == path {
			// A replace by another version of the same module: that
			// version is what runs.
			return d.Replace.Version, "", ""
		}
		return d.Version, d.Replace.Path, d.Replace.Version
	}
	return "unknown", "", ""
}

// Main is the main program of a module under ports/versions: it checks a
// and writes its Row to standard output as JSON. built names the module.
func Main(a Adapter, built string) {
	r := Run(a, built)
	out, err := json.MarshalIndent(r, "", "\t")
	if err != nil {
		fmt.Fprintln(os.Stderr, "row:", err)
		os.Exit(1)
	}
	if _, err := os.Stdout.Write(append(out, '\n')); err != nil {
		fmt.Fprintln(os.Stderr, "row:", err)
		os.Exit(1)
	}
}
