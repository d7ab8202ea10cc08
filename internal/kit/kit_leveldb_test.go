//go:build leveldb

package kit

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jmhodges/levigo"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/cgo/upstream"
	"github.com/ldbcompat/ldbcompat/internal/cases"
	"github.com/ldbcompat/ldbcompat/internal/fixturegen"
)

// levigoPort is upstream itself, through levigo, described as a port: the
// kit's live end-to-end checks must pass it. WriteDB writes with a bloom
// filter of writeBits(bits) bits per key, or none if that is negative.
func levigoPort(writeBits func(int) int) Port {
	p := bloomPort()
	p.Name = "levigo"
	p.ReadDB = func(dir string, bits int, keys [][]byte) ([]bool, error) {
		vals, errs, err := upstreamGet(dir, bits, keys)
		if err != nil {
			return nil, err
		}
		found := make([]bool, len(keys))
		for i, v := range vals {
			if errs[i] != nil {
				return nil, errs[i]
			}
			found[i] = v != nil
		}
		return found, nil
	}
	p.WriteDB = func(dir string, kvs [][2][]byte, bits int) error {
		db, err := fixturegen.Open(dir, writeBits(bits), func(o *levigo.Options) { o.SetCreateIfMissing(true) })
		if err != nil {
			return err
		}
		defer db.Close()
		wo := levigo.NewWriteOptions()
		defer wo.Close()
		for _, kv := range kvs {
			if err := db.Put(wo, kv[0], kv[1]); err != nil {
				return err
			}
		}
		db.CompactRange(levigo.Range{})
		return nil
	}
	return p
}

// TestLevigoPort: upstream, as a port, passes every property, end-to-end
// included, against committed and freshly written databases.
func TestLevigoPort(t *testing.T) {
	if !snappyAvailable(t) {
		t.Skip("the linked LevelDB was built without snappy (LEVELDB_SNAPPY=OFF, or no snappy to be had): it cannot read the committed snappy tables")
	}
	p := levigoPort(func(b int) int { return b })
	r := check(p, kitConfig{tables: os.DirFS("../../testdata/tables"), live: true})
	if legacyLive() {
		checkLegacyLevigoPort(t, r)
		return
	}
	if r.LiveNotRun != "" {
		t.Errorf("the live part did not run against LevelDB %s: %s", upstream.Release(), r.LiveNotRun)
	}
	if diff := cmp.Diff(allPass(p), outcomes(r)); diff != "" || !r.Passed() {
		t.Fatalf("upstream, as a port, fails the kit (-upstream's outcomes +got):\n%s\n%s", diff, r)
	}
	for _, prop := range []Property{PropReadDB, PropWriteDB} {
		if c, _ := r.Result(prop); c.Outcome != Pass || c.Cases == 0 {
			t.Errorf("%s: %s after %d cases, want pass", prop, c.Outcome, c.Cases)
		}
	}
	if c, _ := r.Result(PropReadDB); c.Cases != 6+len(liveDBOptions) {
		t.Errorf("read %d databases, want the 6 committed and %d fresh ones", c.Cases, len(liveDBOptions))
	}
}

// checkLegacyLevigoPort checks the kit's report on LevelDB v1.4 to v1.17
// through levigo: the live part does not run, and says why; the port
// reads the committed 1.23 databases (it ignores their filters, as 1.23
// ignores its own); the databases it writes fail, their filters being
// named leveldb.BuiltinBloomFilter and hashed as the target's plain char.
func checkLegacyLevigoPort(t *testing.T, r Report) {
	t.Helper()
	major, minor := upstream.Version()
	t.Logf("LevelDB %d.%d: %s", major, minor, r.LiveNotRun)
	if r.LiveNotRun == "" || !strings.Contains(r.LiveNotRun, fmt.Sprintf("LevelDB %d.%d", major, minor)) {
		t.Errorf("the live part ran against LevelDB %d.%d, or does not say why not: %q", major, minor, r.LiveNotRun)
	}
	if strings.Contains(r.Upstream, "live") {
		t.Errorf("the report claims a live comparison: %q", r.Upstream)
	}
	if c, _ := r.Result(PropReadDB); minor >= 14 && (c.Outcome != Pass || c.Cases != 6) {
		t.Errorf("%s: %s after %d cases, want pass on the 6 committed databases", PropReadDB, c.Outcome, c.Cases)
	} else if minor <= 13 {
		// v1.4 to v1.13 open NNNNNN.sst only: the committed databases'
		// NNNNNN.ldb tables (1.14 onward) are missing to them.
		if c.Outcome != Fail || len(c.Failures) != 6 {
			t.Errorf("%s: %s, %d of %d databases failed; want all 6 committed ones unreadable (their tables are .ldb)", PropReadDB, c.Outcome, len(c.Failures), c.Cases)
		}
		for _, f := range c.Failures {
			if !strings.Contains(f.Detail, ".sst") {
				t.Errorf("want the failure to name the .sst file LevelDB %d.%d looks for: %s", major, minor, f)
			}
		}
	}
	c, _ := r.Result(PropWriteDB)
	if c.Outcome != Fail || len(c.Failures) == 0 {
		t.Fatalf("%s: %s, want the old filter name reported:\n%s", PropWriteDB, c.Outcome, r)
	}
	hash := fmt.Sprintf("that era's %s hash", liveLegacyHash())
	for _, f := range c.Failures {
		if f.Effect != kindFilterName.effect() || !strings.Contains(f.Detail, bloom.LegacyPolicyName) || !strings.Contains(f.Detail, hash) {
			t.Errorf("want every failure to name the old filter and %q: %s", hash, f)
		}
	}
}

// TestLevigoPortMistakes: databases written without a filter, or with one
// sized for other bits/key, fail the write check.
func TestLevigoPortMistakes(t *testing.T) {
	for _, c := range []struct {
		name      string
		writeBits func(int) int
		want      string
	}{
		{"no filter", func(int) int { return -1 }, "has no filter block"},
		{"other bits/key", func(b int) int { return b + 6 }, "but the port was asked for 10 bits/key"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if legacyLive() && c.name == "other bits/key" {
				t.Skipf("LevelDB %s names its filter %q: the kit reports that before the filter's bits/key (TestLevigoPort)", upstream.Release(), bloom.LegacyPolicyName)
			}
			p := levigoPort(c.writeBits)
			p.ReadDB = nil
			r := check(p, kitConfig{live: true, endToEndOnly: true})
			res, _ := r.Result(PropWriteDB)
			if res.Outcome != Fail || !strings.Contains(r.String(), c.want) {
				t.Fatalf("want a write failure saying %q:\n%s", c.want, r)
			}
		})
	}
}

// TestLiveCountsEachCaseOnce: the live run asks every golden-vector case
// again, besides its own; a case asked twice is one case, so each
// property's count is the number of distinct cases of the two sets.
func TestLiveCountsEachCaseOnce(t *testing.T) {
	if legacyLive() {
		t.Skipf("the kit's live part does not run against LevelDB %s, which predates v1.18 (TestLevigoPort checks that it says so)", upstream.Release())
	}
	vec, live := cases.VectorSet(), cases.LiveSet()
	if wideWanted() {
		live.Filter = append(live.Filter, cases.WideSet().Filter...)
	}
	distinct := func(names ...[]string) int {
		seen := map[string]bool{}
		for _, ns := range names {
			for _, n := range ns {
				seen[n] = true
			}
		}
		return len(seen)
	}
	hashNames := func(cs []cases.HashCase) (out []string) {
		for _, c := range cs {
			out = append(out, c.Name)
		}
		return out
	}
	filterNames := func(cs []cases.FilterCase) (out []string) {
		for _, c := range cs {
			out = append(out, c.Name)
		}
		return out
	}
	blockNames := func(cs []cases.BlockCase) (out []string) {
		for _, c := range cs {
			out = append(out, c.Name)
		}
		return out
	}
	want := map[Property]int{
		PropHash:        distinct(hashNames(vec.Hash), hashNames(live.Hash)),
		PropFilterBytes: distinct(filterNames(vec.Filter), filterNames(live.Filter)),
		PropBlockBytes:  distinct(blockNames(vec.Block), blockNames(live.Block)),
	}
	if want[PropFilterBytes] >= len(vec.Filter)+len(live.Filter) {
		t.Fatalf("the live set repeats no vector case (%d distinct of %d+%d): the test checks nothing", want[PropFilterBytes], len(vec.Filter), len(live.Filter))
	}
	r := Check(bloomPort())
	for prop, n := range want {
		c, ok := r.Result(prop)
		if !ok {
			t.Fatalf("no result for %s", prop)
		}
		if c.Cases != n {
			t.Errorf("%s: %d cases counted, want %d distinct cases", prop, c.Cases, n)
		}
	}
}
