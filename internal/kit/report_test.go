package kit

import (
	"strings"
	"testing"
)

// TestReportCounts: a report's counts agree with their nouns when one
// case is counted.
func TestReportCounts(t *testing.T) {
	r := Report{Port: "p", Upstream: "u", Results: []PropertyResult{
		{Property: PropName, Outcome: Pass, Cases: 1},
		{Property: PropHash, Outcome: Fail, Cases: 1, Failures: []Failure{{Property: PropHash, Case: "c", Detail: "d"}}, Effect: "e"},
		{Property: PropFilterBytes, Outcome: Pass, Cases: 2},
	}}
	s := r.String()
	for _, want := range []string{"pass  filter name (1 case)\n", "FAIL  hash (1 of 1 case)\n", "pass  filter bytes (2 cases)\n"} {
		if !strings.Contains(s, want) {
			t.Errorf("report does not say %q:\n%s", want, s)
		}
	}
}
