package kit

import (
	"fmt"
	"strings"
	"testing"
)

// tableStub is a port's package with WriteTable and ReadTable, which the
// table reproducers call.
const tableStub = `package port

import "github.com/ldbcompat/ldbcompat/compat"

func WriteTable(entries []compat.Entry, o compat.TableOptions) ([]byte, error) { return nil, nil }

func ReadTable(contents []byte) ([]compat.Entry, error) { return nil, nil }
`

// TestTableReproducersPasteable: the reproducers of the table properties
// (a writer with other restart points, a reader that skips checksums)
// build and run in a port's own module, their inputs got through
// compat.CaseEntries and compat.CaseTable.
func TestTableReproducersPasteable(t *testing.T) {
	var repros []string
	r := checkTableHooks(tableOnly(func(es []Entry, o TableOptions) ([]byte, error) {
		o.RestartInterval++
		return refWriteTable(es, o)
	}, func([]byte) ([]Entry, error) { return []Entry{{Key: []byte("not written")}}, nil }))
	for _, prop := range []Property{PropTableBytes, PropReadTable} {
		res, _ := r.Result(prop)
		if len(res.Failures) == 0 {
			t.Fatalf("%s: no failure", prop)
		}
		for i, f := range res.Failures {
			if i < 3 || strings.Contains(f.Case, "damaged") && !strings.Contains(strings.Join(repros, ""), "damaged") {
				repros = append(repros, f.Repro)
			}
		}
	}
	for _, want := range []string{"compat.CaseEntries(", "compat.CaseTable(", "/damaged-"} {
		if !strings.Contains(strings.Join(repros, "\n"), want) {
			t.Errorf("no reproducer holds %s:\n%s", want, strings.Join(repros, "\n"))
		}
	}
	var body strings.Builder
	for _, r := range repros {
		fmt.Fprintf(&body, "\t{\n\t\t_, _ = %s\n\t}\n", r)
	}
	runInPortModule(t, tableStub, body.String())
}
