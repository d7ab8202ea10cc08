//go:build leveldb

package kit

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/internal/cases"
)

// TestRefGetsAreUpstreams: internal/table's lookups, which judge a port's
// table without C++, answer as upstream's TableCache::Get does, key by
// key, on the tables of a correct writer and of writers whose filters or
// separators lose keys.
func TestRefGetsAreUpstreams(t *testing.T) {
	if why := liveNotRun(); why != "" {
		t.Skipf("the kit does not judge tables live against this release: %s", why)
	}
	writers := map[string]func([]Entry, TableOptions) ([]byte, error){
		"reference": refWriteTable,
		"internal-key filter": func(es []Entry, o TableOptions) ([]byte, error) {
			return internalKeyFilter(refWriteTable(es, o))(o.BitsPerKey)
		},
		"salted filter": func(es []Entry, o TableOptions) ([]byte, error) {
			if o.BitsPerKey == 0 {
				return refWriteTable(es, o)
			}
			return writeWithPolicy(es, o, saltedPolicy{bloom.NewPolicy(o.BitsPerKey)})
		},
		"first-key separators": func(es []Entry, o TableOptions) ([]byte, error) {
			return firstKeySeparators(refWriteTable(es, o))
		},
	}
	for name, write := range writers {
		t.Run(name, func(t *testing.T) {
			for _, c := range cases.TableCases() {
				if len(c.Keys) == 0 {
					continue
				}
				data, err := write(tableEntries(c), tableOptions(c))
				if err != nil {
					t.Fatalf("%s: %v", c.Name, err)
				}
				want, err := liveGets(data, c.Keys, c.BitsPerKey)
				if err != nil {
					t.Fatalf("%s: %v", c.Name, err)
				}
				got, err := refGets(data, c.Keys, c.BitsPerKey)
				if err != nil {
					t.Fatalf("%s: %v", c.Name, err)
				}
				if d := cmp.Diff(want, got, cmp.AllowUnexported(keyGet{}), cmpopts.EquateEmpty()); d != "" {
					t.Errorf("%s: internal/table's lookups differ from upstream's (-upstream +internal/table):\n%s", c.Name, d)
				}
			}
		})
	}
}
