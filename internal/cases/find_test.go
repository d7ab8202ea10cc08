package cases

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fingerprints returns the kind, name and fingerprint of each case of s.
func fingerprints(s Set) []string {
	var out []string
	for _, c := range s.Hash {
		out = append(out, fmt.Sprintf("hash %s %s", c.Name, c.In()))
	}
	for _, c := range s.Filter {
		out = append(out, fmt.Sprintf("filter %s %s", c.Name, c.In()))
	}
	for _, c := range s.Match {
		out = append(out, fmt.Sprintf("match %s %s", c.Name, c.In()))
	}
	for _, c := range s.Block {
		out = append(out, fmt.Sprintf("block %s %s", c.Name, c.In()))
	}
	for _, c := range s.Reader {
		out = append(out, fmt.Sprintf("reader %s %s", c.Name, c.In()))
	}
	return out
}

// TestFind: the kinds Find looks through make LiveSet's cases, no two of
// which share a name, and VectorSet's are among them; Find returns the
// case of a name, of any kind, and nothing for another name.
func TestFind(t *testing.T) {
	var found []string
	for _, k := range liveKinds {
		fps := fingerprints(k.make())
		for _, fp := range fps {
			if name := strings.Fields(fp)[1]; strings.HasPrefix(name, "live/") != k.live {
				t.Errorf("case %q is among the kinds Find looks through for names that do not begin so", name)
			}
		}
		found = append(found, fps...)
	}
	live := fingerprints(LiveSet())
	sort.Strings(found)
	sort.Strings(live)
	if diff := cmp.Diff(live, found); diff != "" {
		t.Errorf("Find's kinds are not LiveSet's cases (-LiveSet +Find's):\n%s", diff)
	}
	names := map[string]string{}
	for _, fp := range live {
		name := strings.Fields(fp)[1]
		if names[name] != "" {
			t.Errorf("two cases are named %q: %s and %s", name, names[name], fp)
		}
		names[name] = fp
		if strings.HasPrefix(name, "live/wide/") {
			t.Errorf("LiveSet's case %q has the prefix of WideSet's", name)
		}
	}
	for _, fp := range fingerprints(VectorSet()) {
		if names[strings.Fields(fp)[1]] != fp {
			t.Errorf("VectorSet's case %s is not LiveSet's", fp)
		}
	}
	// One case of each kind, and one asked only live.
	var some []string
	seen := map[string]bool{}
	for _, fp := range live {
		f := strings.Fields(fp)
		kind := f[0] + fmt.Sprint(strings.HasPrefix(f[1], "live/"))
		if !seen[kind] {
			seen[kind] = true
			some = append(some, fp)
		}
	}
	if len(some) != 6 {
		t.Errorf("LiveSet has cases of %d kinds, want 5 and the live filters: %q", len(some), some)
	}
	for _, fp := range some {
		if got := fingerprints(Find(strings.Fields(fp)[1])); !cmp.Equal(got, []string{fp}) {
			t.Errorf("Find gives %q, want %s", got, fp)
		}
	}
	if got := Find("no such case"); got.Len() != 0 {
		t.Errorf("Find of a name no case has gives %d cases", got.Len())
	}
}
