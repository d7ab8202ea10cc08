package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ldbcompat/ldbcompat/internal/fixtures"
	"github.com/ldbcompat/ldbcompat/internal/verify"
)

// otherDB is one row of the section on databases other implementations
// wrote.
type otherDB struct {
	f fixtures.Other
	// upstream says what upstream 1.23 does with the database; agree
	// whether verify's verdicts agree with it ("" when upstream was not
	// asked).
	upstream, agree string
	// summary and code are verify's; notes its lines for the tables that
	// are not ok, the first of each verdict.
	summary string
	code    int
	notes   []string
}

// loadOthers reads the fixtures in dir (testdata/other), sorted by name,
// and runs verify on each. shown is how dir is named in the output.
func loadOthers(dir, shown string) ([]otherDB, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(paths) == 0 {
		return nil, fmt.Errorf("no databases in %s (%v)", dir, err)
	}
	var out []otherDB
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		var o otherDB
		if err := json.Unmarshal(data, &o.f); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		db := filepath.Join(dir, o.f.Name)
		res := verify.Run([]string{db}, verify.Options{})
		o.summary, o.code = res.Summary.String(), res.Summary.ExitCode()
		seen := map[verify.Verdict]bool{}
		for i, r := range res.Reports {
			switch {
			case res.Items[i].Database != nil && (!res.Items[i].Database.Opens() || res.Items[i].Database.DefaultStatus != ""):
				o.notes = append(o.notes, "database: "+res.Items[i].Database.Detail())
			case r == nil || r.Verdict == verify.OK || r.Verdict == "" || seen[r.Verdict]:
			default:
				seen[r.Verdict] = true
				o.notes = append(o.notes, fmt.Sprintf("%s: %s: %s", filepath.Base(r.Path), r.Verdict, r.Detail()))
			}
		}
		for i, n := range o.notes {
			o.notes[i] = strings.ReplaceAll(n, filepath.Clean(dir), shown)
		}
		o.upstream, o.agree, err = askUpstream(db, o.f, res)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", o.f.Name, err)
		}
		o.upstream = strings.ReplaceAll(o.upstream, filepath.Clean(dir), shown)
		out = append(out, o)
	}
	return out, nil
}

// renderOthers writes the section on databases other implementations
// wrote.
func renderOthers(b *bytes.Buffer, others []otherDB) {
	b.WriteString("\n## Databases written by other implementations\n\n")
	b.WriteString("`testdata/other` holds small databases that other LevelDB implementations wrote with the same workload (`make fixtures-other`; its README gives the options and steps). ")
	b.WriteString("For each, upstream LevelDB 1.23 itself is asked, through `cgo/upstream` (`internal/verify/upstreamdb`), what it does: whether it opens the database (with the comparator the database records), and for each live table whether it opens and scans it, and whether a `Get` of each of its keys consults the table's filter and finds the key. ")
	b.WriteString("`ldbcompat verify` gives its verdicts on the same database ([verify.md](verify.md)); the last column says whether they agree with upstream's answers.\n\n")
	b.WriteString("| database | implementation | version | LevelDB code | upstream 1.23 | `ldbcompat verify` | agree |\n|---|---|---|---|---|---|---|\n")
	for _, o := range others {
		code := o.f.LevelDBVersion
		if i := strings.Index(code, ":"); i >= 0 {
			code = code[:i]
		}
		agree := o.agree
		if agree == "" {
			agree = "—"
		}
		fmt.Fprintf(b, "| `%s` | %s | `%s` | %s | %s | `%s` (exit %d) | %s |\n", o.f.Name, o.f.Writer, o.f.WriterVersion, code, o.upstream, o.summary, o.code, agree)
	}
	b.WriteString("\nWhat verify says beyond `ok`, the first table of each verdict:\n\n")
	for _, o := range others {
		if len(o.notes) == 0 {
			continue
		}
		fmt.Fprintf(b, "- `%s` (%s):\n", o.f.Name, o.f.About)
		for _, n := range o.notes {
			fmt.Fprintf(b, "  - %s\n", n)
		}
	}
}
