package kit

import (
	"strings"
	"testing"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/internal/table/tabletest"
)

// The table bytes property looks every key up as upstream's Get does: a
// port whose filter or index separators are wrong scans right but loses
// its keys in a database, and must not be judged harmless.

// TestTableLookupsCaught: writers whose tables upstream reads right in a
// scan but whose keys its Get does not find are false negatives; layouts
// its Get reads right stay harmless, and a filter upstream does not
// consult only makes it slower.
func TestTableLookupsCaught(t *testing.T) {
	for _, c := range []writerCase{
		{"filter over whole internal keys", func(es []Entry, o TableOptions) ([]byte, error) {
			return internalKeyFilter(refWriteTable(es, o))(o.BitsPerKey)
		}, kindTableMissing, HarmFalseNegatives, []string{"not found (false negatives)", "the filter block", "built over internal keys"}},
		{"filter with another hash", bloomWrapped(func(p bloom.FilterPolicy) bloom.FilterPolicy { return saltedPolicy{p} }), kindTableMissing, HarmFalseNegatives, []string{"not found (false negatives)", "rejects the user key"}},
		{"index separators smaller than the block's last key", func(es []Entry, o TableOptions) ([]byte, error) {
			return firstKeySeparators(refWriteTable(es, o))
		}, kindTableMissing, HarmFalseNegatives, []string{"not found (false negatives)", "index separator", "is smaller than the key"}},
		{"filter under another name", bloomWrapped(func(p bloom.FilterPolicy) bloom.FilterPolicy { return renamedPolicy{p} }), kindFilterName, HarmSlower, []string{"upstream finds every key", "filter.ldbcompat.renamed"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := checkTableHooks(tableOnly(c.write, nil))
			res, _ := r.Result(PropTableBytes)
			if res.Outcome != Fail {
				t.Fatalf("%s, want fail:\n%s", res.Outcome, r)
			}
			var first *caseFailureView
			for _, f := range res.Failures {
				if c.kind == kindTableMissing && f.Harm == HarmBytesOnly && strings.HasPrefix(f.Case, "table/bs0-") {
					// Block size 0 puts each entry in a block of its
					// own: its first key is its last, a separator
					// upstream's seek lands right with.
					continue
				}
				if f.Harm != c.harm {
					t.Errorf("%s: harm %v, want %v: %s", f.Case, f.Harm, c.harm, f.Detail)
					continue
				}
				if first == nil {
					first = &caseFailureView{f.Case, f.Detail, f.Effect, f.Repro}
				}
			}
			if first == nil {
				t.Fatal("no failure of the expected harm")
			}
			if first.effect != c.kind.effect() {
				t.Errorf("%s: effect %q, want %q", first.name, first.effect, c.kind.effect())
			}
			for _, s := range c.detail {
				if !strings.Contains(first.detail, s) {
					t.Errorf("%s: detail lacks %q:\n%s", first.name, s, first.detail)
				}
			}
			if !strings.Contains(first.repro, "WriteTable(compat.CaseEntries(") {
				t.Errorf("reproducer %q", first.repro)
			}
			t.Logf("%s: %s", first.name, first.detail)
		})
	}
}

// TestTableLookupsHarmless: the restart-15 and unshortened-separator
// writers, whose tables upstream's Get reads right, stay harmless layout
// on every case, looked up included.
func TestTableLookupsHarmless(t *testing.T) {
	for name, write := range map[string]func([]Entry, TableOptions) ([]byte, error){
		"restart every 15": func(es []Entry, o TableOptions) ([]byte, error) {
			if o.RestartInterval == 16 {
				o.RestartInterval = 15
			}
			return refWriteTable(es, o)
		},
		"unshortened separators": func(es []Entry, o TableOptions) ([]byte, error) {
			return unshortened(refWriteTable(es, o))
		},
	} {
		t.Run(name, func(t *testing.T) {
			res, _ := checkTableHooks(tableOnly(write, nil)).Result(PropTableBytes)
			if res.Outcome != Fail || len(res.Failures) == 0 {
				t.Fatalf("%s with %d failures, want harmless failures", res.Outcome, len(res.Failures))
			}
			for _, f := range res.Failures {
				if f.Harm != HarmBytesOnly || !strings.Contains(f.Detail, "its lookups find every key") {
					t.Errorf("%s: harm %v: %s", f.Case, f.Harm, f.Detail)
				}
			}
		})
	}
}

// TestDBAnswer: a lookup's outcome is judged as SaveValue judges it.
func TestDBAnswer(t *testing.T) {
	key := func(user string, typ, seq byte) []byte { return append([]byte(user), typ, seq, 0, 0, 0, 0, 0, 0) }
	want := key("apple", 1, 9)
	for _, c := range []struct {
		name   string
		g      keyGet
		found  bool
		status bool
	}{
		{"same key", keyGet{found: true, key: key("apple", 1, 9), value: []byte("v")}, true, false},
		{"older entry of the user key", keyGet{found: true, key: key("apple", 1, 8), value: []byte("v")}, true, false},
		{"deletion", keyGet{found: true, key: key("apple", 0, 9)}, false, false},
		{"another user key", keyGet{found: true, key: key("apples", 1, 9)}, false, false},
		{"nothing", keyGet{}, false, false},
		{"bad type", keyGet{found: true, key: key("apple", 7, 9)}, false, true},
		{"status", keyGet{status: "Corruption: block checksum mismatch"}, false, true},
	} {
		_, found, status := dbAnswer(want, c.g)
		if found != c.found || (status != "") != c.status {
			t.Errorf("%s: found %v status %q", c.name, found, status)
		}
	}
}

type caseFailureView struct{ name, detail, effect, repro string }

// saltedPolicy is the bloom policy under its own name, hashing each key
// with a byte appended: another hash.
type saltedPolicy struct{ p bloom.FilterPolicy }

func (s saltedPolicy) Name() string { return s.p.Name() }

func (s saltedPolicy) CreateFilter(keys [][]byte, dst []byte) []byte {
	salted := make([][]byte, len(keys))
	for i, k := range keys {
		salted[i] = append(append([]byte(nil), k...), 0x5a)
	}
	return s.p.CreateFilter(salted, dst)
}

func (s saltedPolicy) KeyMayMatch(key, filter []byte) bool {
	return s.p.KeyMayMatch(append(append([]byte(nil), key...), 0x5a), filter)
}

// renamedPolicy is the bloom policy under another name.
type renamedPolicy struct{ bloom.FilterPolicy }

func (renamedPolicy) Name() string { return "ldbcompat.renamed" }

// internalKeyFilter replaces a table's filter block with one built from
// its whole internal keys, as golang/leveldb's table writer builds it in
// its database; tables without a filter are kept.
func internalKeyFilter(data []byte, err error) func(bits int) ([]byte, error) {
	return func(bits int) ([]byte, error) {
		if err != nil || bits == 0 {
			return data, err
		}
		l, err := parseLayout(data)
		if err != nil {
			return nil, err
		}
		fb := bloom.NewFilterBlockBuilder(bloom.NewPolicy(bits))
		for i := 0; i < l.nData; i++ {
			b := l.block("data", i)
			fb.StartBlock(b.h.Offset)
			es, _, _ := parseBlock(b.contents)
			for _, e := range es {
				fb.AddKey(e.key)
			}
		}
		return tabletest.ReplaceFilter(data, bloom.PolicyName, fb.Finish())
	}
}

// firstKeySeparators rewrites a table's index block keyed by each data
// block's first key: smaller than the block's other keys, so that
// upstream's index seek passes over the block for them.
func firstKeySeparators(data []byte, err error) ([]byte, error) {
	return reindexed(data, err, func(es []blockEntry) []byte { return es[0].key })
}

// bloomWrapped writes tables with the bloom filter wrapped by wrap, and
// without a filter at 0 bits/key.
func bloomWrapped(wrap func(bloom.FilterPolicy) bloom.FilterPolicy) func([]Entry, TableOptions) ([]byte, error) {
	return func(es []Entry, o TableOptions) ([]byte, error) {
		if o.BitsPerKey > 0 {
			return writeWithPolicy(es, o, wrap(bloom.NewPolicy(o.BitsPerKey)))
		}
		return refWriteTable(es, o)
	}
}
