// Package versions is `make versions`: what ldbcompat learns about each
// upstream LevelDB release it builds (Facts, recorded by the leveldb-tagged
// TestVersionFacts; Status, by tools/versions.sh), and docs/versions.md
// made from them (Load, Render; cmd versionsdoc).
package versions

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// The hash variants: how a build's Hash treats the 1 to 3 bytes after the
// last whole 4-byte word when they are 0x80 or above.
const (
	Unsigned = "unsigned" // zero-extended (bloom.Hash): v1.18 and later, or unsigned char
	Signed   = "signed"   // sign-extended (bloom.HashSignedTail): v1.4 to v1.17 on x86
	Neither  = "neither"  // neither model reproduces every answer
)

// Variant is the outcome of comparing upstream's answers with bloom's two
// models, on inputs whose tail bytes are 0x80 or above.
type Variant struct {
	// Variant is Unsigned or Signed when every answer, and none of the
	// other's, equals that model's; Neither otherwise.
	Variant string `json:"variant"`
	// Unsigned and Signed count the Inputs whose answers equal each model's.
	Inputs   int `json:"inputs"`
	Unsigned int `json:"unsigned"`
	Signed   int `json:"signed"`
}

// Classify returns the Variant of n answers, unsigned and signed of which
// equal each model's.
func Classify(n, unsigned, signed int) Variant {
	v := Variant{Variant: Neither, Inputs: n, Unsigned: unsigned, Signed: signed}
	switch {
	case n == 0:
	case unsigned == n && signed == 0:
		v.Variant = Unsigned
	case signed == n && unsigned == 0:
		v.Variant = Signed
	}
	return v
}

// VectorMatch compares upstream's answers with one committed set of vectors.
type VectorMatch struct {
	Dir string `json:"dir"` // relative to the module root
	// Present is false when the set is not in the tree; nothing else is
	// then set.
	Present bool   `json:"present"`
	LevelDB string `json:"leveldb,omitempty"` // as the set's provenance names it
	// Records counts the set's records, Equal those upstream's answers
	// reproduce byte for byte, Fresh the records upstream's answers make.
	Records int `json:"records,omitempty"`
	Equal   int `json:"equal,omitempty"`
	Fresh   int `json:"fresh,omitempty"`
	// FirstDiff names the first of the set's records that upstream's
	// answers do not reproduce ("kind name").
	FirstDiff string `json:"first_diff,omitempty"`
}

// Identical reports whether upstream's answers are exactly the set's.
func (m VectorMatch) Identical() bool {
	return m.Present && m.Records > 0 && m.Equal == m.Records && m.Fresh == m.Records
}

// DBCheck is what `ldbcompat verify` says of a database the build wrote.
type DBCheck struct {
	// Error says why no database was written or verified; nothing else is
	// then set.
	Error    string         `json:"error,omitempty"`
	Options  string         `json:"options,omitempty"` // fixturegen's name, such as b10-bs1024-snappy
	Summary  string         `json:"summary,omitempty"` // such as "3 tables: 3 ok"
	Tables   int            `json:"tables"`
	Verdicts map[string]int `json:"verdicts,omitempty"` // tables by verdict
	// Legacy lists, for old-filter tables, which hash verify found wrote
	// them (signed, unsigned, either), each once, in order.
	Legacy []string `json:"legacy,omitempty"`
	Exit   int      `json:"exit"`
}

// Verdict returns the check as the page shows it.
func (d *DBCheck) Verdict() string {
	if d == nil {
		return "not run"
	}
	if d.Error != "" {
		return "failed: " + d.Error
	}
	s := d.Summary
	if len(d.Legacy) > 0 {
		s += " (" + strings.Join(d.Legacy, ", ") + "-char hash)"
	}
	return fmt.Sprintf("%s; exit %d", s, d.Exit)
}

// Facts is what one build of upstream answers, as TestVersionFacts records it.
type Facts struct {
	// Release is cgo/upstream.Release() (1.17, main-78a352f); Header the
	// version its db.h declares (1.17; main says 1.23).
	Release      string `json:"release"`
	Header       string `json:"header"`
	GOARCH       string `json:"goarch"`
	CharIsSigned bool   `json:"char_is_signed"`
	FilterName   string `json:"filter_name"` // Name() of upstream's NewBloomFilterPolicy
	// Hash compares upstream's Hash, and Filter its bloom filters, with
	// bloom's unsigned-tail and signed-tail models.
	Hash    Variant       `json:"hash"`
	Filter  Variant       `json:"filter"`
	Vectors []VectorMatch `json:"vectors"` // one per committed set
	DB      *DBCheck      `json:"db"`      // verify's word on a database upstream wrote
}

// WriteFacts writes f to path as indented JSON.
func WriteFacts(path string, f *Facts) error {
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("facts: %w", err)
	}
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("facts: %w", err)
	}
	return nil
}

// ReadFacts reads what WriteFacts wrote.
func ReadFacts(path string) (*Facts, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("facts: %w", err)
	}
	var f Facts
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("facts: %s: %w", path, err)
	}
	return &f, nil
}

// Pinned is one line of docker/leveldb-versions.tsv.
type Pinned struct {
	Version    string // 1.4 ... 1.23, main-78a352f: what names the cache
	Tag        string // v1.4 ... v1.20, 1.21, 1.22, 1.23, main
	Commit     string
	CommitDate string
	Digest     string // the content digest
}

// Name returns the version as the page names it: the tag, or "main at
// 78a352f".
func (p Pinned) Name() string {
	if p.Tag == "main" {
		return "main at " + p.Commit[:min(7, len(p.Commit))]
	}
	return p.Tag
}

// ReadPinned reads docker/leveldb-versions.tsv.
func ReadPinned(path string) ([]Pinned, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("versions table: %w", err)
	}
	var out []Pinned
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	for line := 1; sc.Scan(); line++ {
		t := sc.Text()
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		f := strings.Split(t, "\t")
		if len(f) != 5 {
			return nil, fmt.Errorf("%s:%d: %d tab-separated fields, want 5 (version tag commit commit_date content_digest)", path, line, len(f))
		}
		out = append(out, Pinned{Version: f[0], Tag: f[1], Commit: f[2], CommitDate: f[3], Digest: f[4]})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no versions", path)
	}
	return out, nil
}

// Status is how tools/versions.sh's run of one version went: its status
// file, one key=value a line.
type Status struct {
	Recipe         string // make, cmake, cmake-cxx17
	Build          string // built, cached (already built) or failed
	BuildSeconds   int
	BuiltSeconds   int    // how long the build took when it was made (build-info)
	Suite          string // pass, fail, or not run (the build failed)
	SuiteSeconds   int
	Packages       string   // the packages the suite ran
	FailedPackages []string // as go test reports them: "cgo/upstream [build failed]"
}

// ReadStatus reads a status file.
func ReadStatus(path string) (*Status, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("status: %w", err)
	}
	s := &Status{}
	strs := map[string]*string{"recipe": &s.Recipe, "build": &s.Build, "suite": &s.Suite, "packages": &s.Packages}
	ints := map[string]*int{"build_seconds": &s.BuildSeconds, "built_seconds": &s.BuiltSeconds, "suite_seconds": &s.SuiteSeconds}
	for i, line := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			return nil, fmt.Errorf("%s:%d: not key=value: %q", path, i+1, line)
		}
		var n int
		if strings.HasSuffix(k, "_seconds") && v != "" {
			if n, err = strconv.Atoi(v); err != nil {
				return nil, fmt.Errorf("%s:%d: %s: %w", path, i+1, k, err)
			}
		}
		switch {
		case strs[k] != nil:
			*strs[k] = v
		case ints[k] != nil:
			*ints[k] = n
		case k == "failed_packages":
			if v != "" {
				s.FailedPackages = strings.Split(v, ";")
			}
		default:
			return nil, fmt.Errorf("%s:%d: unknown key %q", path, i+1, k)
		}
	}
	return s, nil
}

// Result is everything known of one version after a run.
type Result struct {
	Pinned Pinned
	Status *Status // nil when the version was not run
	Facts  *Facts  // nil when the suite wrote none
	Err    error   // why the status or facts could not be read
}

// Passed reports whether the version built, its suite passed and its
// facts were recorded.
func (r Result) Passed() bool {
	return r.Err == nil && r.Status != nil && (r.Status.Build == "built" || r.Status.Build == "cached") && r.Status.Suite == "pass" && r.Facts != nil
}

// Load reads the results of pinned from dir, where tools/versions.sh keeps
// <version>/status and <version>/facts.json.
func Load(dir string, pinned []Pinned) []Result {
	out := make([]Result, 0, len(pinned))
	for _, p := range pinned {
		r := Result{Pinned: p}
		vdir := filepath.Join(dir, p.Version)
		var errStatus, errFacts error
		r.Status, errStatus = optional(ReadStatus(filepath.Join(vdir, "status")))
		r.Facts, errFacts = optional(ReadFacts(filepath.Join(vdir, "facts.json")))
		r.Err = errors.Join(errStatus, errFacts)
		out = append(out, r)
	}
	return out
}

// optional returns v, or nothing when its file does not exist.
func optional[T any](v *T, err error) (*T, error) {
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return v, err
}
