package kit

import (
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ldbcompat/ldbcompat/bloom"
)

// TestBloomTablePort runs the kit, end-to-end properties included, on a
// port made of package bloom and a table reader and writer, with the
// committed upstream databases and without cgo. Its writer leaves table
// files that its MANIFEST does not list, which upstream never reads.
func TestBloomTablePort(t *testing.T) {
	p := withLeftovers(tablePort(bloom.NewPolicy, bloom.NewPolicy))
	r := check(p, kitConfig{tables: os.DirFS("../../testdata/tables")})
	if diff := cmp.Diff(allPass(p), outcomes(r)); diff != "" || !r.Passed() {
		t.Fatalf("bloom with a table reader and writer fails the kit (-want +got):\n%s\n%s", diff, r)
	}
	for _, prop := range []Property{PropReadDB, PropWriteDB} {
		if c, _ := r.Result(prop); c.Outcome != Pass || c.Cases == 0 {
			t.Errorf("%s: %s after %d cases, want pass", prop, c.Outcome, c.Cases)
		}
	}
}

// outcomes returns the outcome of each property of r.
func outcomes(r Report) map[Property]Outcome {
	m := map[Property]Outcome{}
	for _, c := range r.Results {
		m[c.Property] = c.Outcome
	}
	return m
}

// allPass is the outcomes of port p when it agrees with upstream on every
// property it has the hooks for.
func allPass(p Port) map[Property]Outcome {
	m := map[Property]Outcome{}
	for _, prop := range Properties() {
		m[prop] = Pass
	}
	for prop, missing := range map[Property]bool{PropHash: p.Hash == nil, PropBlockBytes: p.NewFilterBlockBuilder == nil,
		PropReader: p.NewFilterBlockReader == nil, PropReadDB: p.ReadDB == nil, PropWriteDB: p.WriteDB == nil,
		PropTableBytes: p.WriteTable == nil, PropReadTable: p.ReadTable == nil, PropLogBytes: p.WriteLog == nil,
		PropReadLog: p.ReadLog == nil, PropLogRecovered: p.WriteSynced == nil, PropRecoversLog: p.ReadDB == nil} {
		if missing {
			m[prop] = Skip
		}
	}
	return m
}

// liveRan tells whether the kit's live part runs in this test binary:
// built with the leveldb tag against a release it compares with (v1.18 or
// later).
func liveRan() bool { return Live && liveNotRun() == "" }
