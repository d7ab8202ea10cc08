package verify_test

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/ldbcompat/ldbcompat/internal/verify"
)

// TestREADMETable: the README's table of verdicts and exit codes is
// Verdicts, as VerdictTable prints it (`ldbcompat help` prints the same
// rows from it), so that the two never say different things.
func TestREADMETable(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	table := verify.VerdictTable()
	if !strings.Contains(string(b), "\n"+table+"\n") {
		t.Errorf("README.md does not hold the verdict table; paste this in its \"Checking a database\" section:\n%s", table)
	}
}

// TestVerdicts: every verdict is documented once, with an exit code that
// follows its kind: 0 when upstream reads the table as it was written, 1
// for a damaged or differing filter or a damaged block upstream reads
// right, 2 when upstream cannot read the table, returns what was not
// written, or verify could not check it.
func TestVerdicts(t *testing.T) {
	want := map[verify.Verdict]int{verify.OK: 0, verify.OldFilter: 0, verify.NoFilter: 0, verify.OtherFilter: 0,
		verify.FilterUnusable: 1, verify.Mismatch: 1, verify.BadChecksum: 1, verify.SilentCorruption: 2,
		verify.Unreadable: 2, verify.Missing: 2, verify.Unchecked: 2}
	seen := map[verify.Verdict]bool{}
	for _, i := range verify.Verdicts {
		if seen[i.Verdict] {
			t.Errorf("%s documented twice", i.Verdict)
		}
		seen[i.Verdict] = true
		if e, ok := want[i.Verdict]; !ok || e != i.Exit || i.Verdict.Exit() != e || i.Meaning == "" || i.Upstream == "" {
			t.Errorf("%+v: want exit %d", i, e)
		}
	}
	if len(seen) != len(want) {
		t.Errorf("%d verdicts documented, want %d", len(seen), len(want))
	}
	text := verify.VerdictText(76)
	for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		if len(l) > 76 {
			t.Errorf("help line of %d columns: %q", len(l), l)
		}
	}
}

// TestVerdictText: `ldbcompat help` prints each verdict's name and exit
// code, then its meaning and what upstream does, in words wrapped at
// spaces to the width, as many to a line as fit, later lines indented
// under the first.
func TestVerdictText(t *testing.T) {
	for _, width := range []int{60, 76, 100} {
		const indent = 29 // "  %-20s %-4s  "
		rows := map[string][]string{}
		var order []string
		cur := ""
		for _, l := range strings.Split(strings.TrimSuffix(verify.VerdictText(width), "\n"), "\n") {
			if len(l) > width || len(l) <= indent {
				t.Fatalf("width %d: line %q", width, l)
			}
			if head := l[:indent]; strings.TrimSpace(head) != "" {
				cur = strings.Join(strings.Fields(head), " ")
				order = append(order, cur)
			} else if cur == "" {
				t.Fatalf("width %d: the first line is a continuation: %q", width, l)
			}
			rows[cur] = append(rows[cur], l[indent:])
		}
		if len(order) != 1+len(verify.Verdicts)+len(verify.LogVerdicts)+4 || order[0] != "verdict exit" {
			t.Errorf("width %d: rows %q", width, order)
		}
		for _, i := range append(slices.Clone(verify.Verdicts), verify.LogVerdicts...) {
			name := fmt.Sprintf("%s %d", i.Verdict, i.Exit)
			if strings.HasPrefix(string(i.Verdict), "log ") {
				name = fmt.Sprintf("(%s) %d", i.Verdict, i.Exit)
			}
			want := strings.Fields(strings.ReplaceAll(i.Meaning+"; upstream: "+i.Upstream+".", "`", ""))
			if got := strings.Fields(strings.Join(rows[name], " ")); strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("width %d, %s: %q, want %q", width, name, got, want)
			}
		}
		// The rows that are not verdicts: upstream's part only where
		// there is one.
		for name, up := range map[string]bool{"(skipped) 0": true, "(database) 2": true, "(path) 3": false} {
			if lines, ok := rows[name]; !ok || strings.Contains(strings.Join(lines, " "), "upstream:") != up {
				t.Errorf("width %d, %s: %q; want upstream's part %v", width, name, lines, up)
			}
		}
		for name, lines := range rows {
			for j := 0; j+1 < len(lines); j++ {
				if next := strings.Fields(lines[j+1])[0]; len(lines[j])+1+len(next) <= width-indent {
					t.Errorf("width %d, %s: %q would have fit on the line before: %q", width, name, next, lines[j])
				}
			}
		}
	}
}
