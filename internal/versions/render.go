package versions

import (
	"fmt"
	"io"
	"strings"
)

// Header is what docs/versions.md says of the run that made it.
type Header struct {
	Date     string // the day of the run, YYYY-MM-DD
	CPU      string // model and count of the machine's CPUs
	Platform string // goos/goarch
	Go       string // the Go toolchain
	Compiler string // the C++ compiler that built upstream
	Command  string // the exact command that made the page
	Packages string // what the suite ran: go test's package arguments
	Seconds  int    // the run's wall time
}

// Render writes docs/versions.md: the header, then one row per result, in
// the order given.
func Render(w io.Writer, h Header, rs []Result) error {
	var b strings.Builder
	b.WriteString("# ldbcompat against every LevelDB release\n\n")
	b.WriteString("<!-- Written by `make versions` (tools/versions.sh, internal/versions); never edit by hand. -->\n\n")
	fmt.Fprintf(&b, "Run on %s: `%s`, %s in all, on %s (%s), %s, %s.\n", h.Date, h.Command, seconds(h.Seconds), h.CPU, h.Platform, h.Go, h.Compiler)
	fmt.Fprintf(&b, "Each version is built natively with its recipe (docker/build-leveldb.sh) from the\n"+
		"source tree pinned in docker/leveldb-versions.tsv, then the suite runs against it:\n"+
		"`go test -tags leveldb -count=1 %s`.\n\n", h.Packages)

	var failed []string
	for _, r := range rs {
		if !r.Passed() {
			failed = append(failed, r.Pinned.Name())
		}
	}
	if len(failed) == 0 {
		fmt.Fprintf(&b, "**All %d versions pass.**\n\n", len(rs))
	} else {
		fmt.Fprintf(&b, "**%d of %d versions pass; failed: %s.**\n\n", len(rs)-len(failed), len(rs), strings.Join(failed, ", "))
	}

	b.WriteString("| Version | Commit date | Recipe | Filter name | Tail bytes ≥ 0x80 | Golden vectors | levigo database: `ldbcompat verify` | Suite | Build | Suite time |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rs {
		facts := []string{"—", "—", "—", "—"}
		if f := r.Facts; f != nil {
			facts = []string{"`" + f.FilterName + "`", variant(f), vectors(f), f.DB.Verdict()}
		}
		cells := append([]string{r.Pinned.Name(), r.Pinned.CommitDate, recipe(r)}, facts...)
		cells = append(cells, suite(r), buildTime(r.Status), suiteTime(r.Status))
		for i, c := range cells {
			cells[i] = strings.ReplaceAll(c, "|", `\|`)
		}
		fmt.Fprintf(&b, "| %s |\n", strings.Join(cells, " | "))
	}

	var errs []string
	for _, r := range rs {
		if r.Err != nil {
			errs = append(errs, fmt.Sprintf("- %s: %v", r.Pinned.Name(), r.Err))
		}
	}
	if len(errs) > 0 {
		b.WriteString("\nResults that could not be read:\n\n")
		b.WriteString(strings.Join(errs, "\n"))
		b.WriteString("\n")
	}

	b.WriteString(legend)
	_, err := io.WriteString(w, b.String())
	return err
}

const legend = `
What the columns say:

- **Recipe**: how docker/build-leveldb.sh built it: ` + "`make`" + ` (the release's own
  Makefile, v1.4 to v1.20), ` + "`cmake`" + ` (1.21 to 1.23), ` + "`cmake-cxx17`" + ` (main).
- **Filter name**: Name() of the build's own NewBloomFilterPolicy, asked
  through cgo.
- **Tail bytes ≥ 0x80**: how the build's Hash treats the 1 to 3 bytes after
  the last whole 4-byte word when they are 0x80 or above, found by comparing
  its hashes and bloom filters, on keys with such bytes, with bloom's two
  models: ` + "`unsigned`" + ` (bloom.Hash, zero-extended) or ` + "`signed`" + ` (bloom.HashSignedTail,
  sign-extended plain char), each only when every answer is that model's.
- **Golden vectors**: whether the build's answers to every golden-vector case
  are, record for record, those committed in testdata/vectors (written by
  1.23) or testdata/vectors-v1.17 (written by v1.17 on amd64).
- **levigo database**: a database the build wrote through levigo
  (internal/fixturegen: bloom filter of 10 bits per key, keys with bytes of
  0x80 and above), checked by ` + "`ldbcompat verify`" + `, which says what LevelDB 1.23
  does with each table; for old-filter tables, which hash wrote the filter.
- **Suite**: pass when the suite passed and the facts above were recorded
  (TestVersionFacts also checks that they agree with upstream's history:
  the old name and plain-char hash up to v1.17, the new name and unsigned
  hash from v1.18); otherwise the packages go test failed. **Build** is the
  build's time, or cached when .cache/leveldb-<version>/ already held it
  (with the time its build took, from its build-info).
`

func seconds(n int) string { return fmt.Sprintf("%d s", n) }

func recipe(r Result) string {
	if r.Status == nil || r.Status.Recipe == "" {
		return "?"
	}
	return "`" + r.Status.Recipe + "`"
}

func variant(f *Facts) string {
	if f.Hash.Variant == f.Filter.Variant && f.Hash.Variant != Neither {
		return f.Hash.Variant
	}
	return fmt.Sprintf("hash %s (%d/%d unsigned, %d/%d signed), filters %s (%d/%d unsigned, %d/%d signed)",
		f.Hash.Variant, f.Hash.Unsigned, f.Hash.Inputs, f.Hash.Signed, f.Hash.Inputs,
		f.Filter.Variant, f.Filter.Unsigned, f.Filter.Inputs, f.Filter.Signed, f.Filter.Inputs)
}

func vectors(f *Facts) string {
	var same, other []string
	for _, m := range f.Vectors {
		name := strings.TrimPrefix(m.Dir, "testdata/")
		switch {
		case !m.Present:
			other = append(other, name+" absent")
		case m.Identical():
			same = append(same, fmt.Sprintf("identical to %s's (%s)", m.LevelDB, name))
		default:
			other = append(other, fmt.Sprintf("%s: %d of %d records", name, m.Equal, m.Records))
		}
	}
	if len(same) > 0 {
		return strings.Join(same, ", ")
	}
	return "neither (" + strings.Join(other, "; ") + ")"
}

func suite(r Result) string {
	switch {
	case r.Status == nil:
		return "**not run**"
	case r.Status.Build == "failed":
		return "**FAILED** (build)"
	case r.Status.Suite != "pass":
		if f := r.Status.FailedPackages; len(f) > 0 {
			const show = 3
			list := strings.Join(f[:min(show, len(f))], ", ")
			if len(f) > show {
				list += fmt.Sprintf(" and %d more", len(f)-show)
			}
			return "**FAILED**: " + list
		}
		return "**FAILED**"
	case r.Facts == nil:
		return "**FAILED** (no facts recorded)"
	case r.Err != nil:
		return "**FAILED** (results unreadable)"
	}
	return "pass"
}

func buildTime(s *Status) string {
	switch {
	case s == nil:
		return "—"
	case s.Build == "cached" && s.BuiltSeconds > 0:
		return fmt.Sprintf("cached (%s)", seconds(s.BuiltSeconds))
	case s.Build == "cached":
		return "cached"
	}
	return seconds(s.BuildSeconds)
}

func suiteTime(s *Status) string {
	if s == nil || s.Suite == "" || s.Suite == "not run" {
		return "—"
	}
	return seconds(s.SuiteSeconds)
}
