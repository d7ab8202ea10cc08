package kit

import "testing"

// TestHarmOrder: the harms sort the way their names say: false negatives
// first, slower reads last, each with a name of its own.
func TestHarmOrder(t *testing.T) {
	order := []Harm{HarmFalseNegatives, HarmWrongAnswers, HarmCrash, HarmFails, HarmMayLoseKeys, HarmDamagedOnly, HarmSlower, HarmBytesOnly, HarmOther}
	seen := map[string]bool{}
	for i, h := range order {
		if i > 0 && !(order[i-1] < h) {
			t.Errorf("%v does not sort before %v", order[i-1], h)
		}
		if seen[h.String()] {
			t.Errorf("two harms named %q", h)
		}
		seen[h.String()] = true
	}
}
