package kit

import (
	"fmt"
	"os"
	"testing"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/internal/cases"
)

// legacyBloomPort is package bloom as the bloom filter of LevelDB v1.4 to
// v1.17: bloom.NewLegacyPolicy, whose hash reads tail bytes as plain char,
// signed (x86) or unsigned (arm64); the filter block layout is the same.
func legacyBloomPort(signed bool) Port {
	p := bloomPort()
	how := "unsigned"
	p.Hash = bloom.Hash
	if signed {
		how = "signed"
		p.Hash = bloom.HashSignedTail
	}
	p.Name = fmt.Sprintf("ldbcompat/bloom NewLegacyPolicy (%s tail bytes)", how)
	p.NewPolicy = func(bits int) bloom.FilterPolicy { return bloom.NewLegacyPolicy(bits, signed) }
	p.testHash = p.Hash
	return p
}

// TestLegacyGoldenVectors checks bloom.NewLegacyPolicy(bits, true) and
// bloom.HashSignedTail against every answer genuine LevelDB v1.17 gave on
// amd64, recorded in testdata/vectors-v1.17 (`make vectors
// LEVELDB_VERSION=v1.17`): hash, filter bytes, KeyMayMatch, filter block
// builder and reader. Pure Go: no C++ needed.
func TestLegacyGoldenVectors(t *testing.T) {
	vs, err := cases.LoadVectors(os.DirFS("../.."), cases.LegacyVectorDir)
	if err != nil {
		t.Fatal(err)
	}
	if p := vs.Provenance(); p.LevelDB != "1.17" || p.GOARCH != "amd64" {
		t.Fatalf("%s come from LevelDB %q on %q, want 1.17 on amd64 (signed char)", cases.LegacyVectorDir, p.LevelDB, p.GOARCH)
	}
	p := legacyBloomPort(true)
	ref := portImpl{p}
	res := runCheck(p, cases.VectorOracle{V: vs, Ref: ref, Name: bloom.LegacyPolicyName}, cases.VectorSet())
	reportResults(t, res)
	for _, prop := range caseProperties {
		n, un := res.counts(prop)
		if un > 0 {
			t.Errorf("%s: %d cases not compared", prop, un)
		}
		if n == 0 {
			t.Errorf("%s: no case compared", prop)
		}
	}

	// The vectors tell the signed hash from the unsigned one: the
	// unsigned policy (v1.17 on arm64, and 1.23's bytes) must fail them.
	un := runCheck(legacyBloomPort(false), cases.VectorOracle{V: vs, Ref: ref, Name: bloom.LegacyPolicyName}, cases.VectorSet())
	for _, prop := range []Property{PropHash, PropFilterBytes, PropKeyMayMatch, PropBlockBytes} {
		if len(un.byProp[prop]) == 0 {
			t.Errorf("%s: the unsigned legacy policy agrees with every v1.17 (amd64) answer: the vectors do not tell the hashes apart", prop)
		}
	}
	// And 1.23's name is not v1.17's.
	if len(runCheck(bloomPort(), cases.VectorOracle{V: vs, Ref: ref, Name: bloom.LegacyPolicyName}, cases.Set{}).byProp[PropName]) == 0 {
		t.Errorf("bloom.NewPolicy's name %q passes as v1.17's %q", bloom.PolicyName, bloom.LegacyPolicyName)
	}
}
