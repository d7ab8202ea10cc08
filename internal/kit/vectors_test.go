package kit

import (
	"io/fs"
	"path"
	"strings"
	"testing"

	"github.com/ldbcompat/ldbcompat"
	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/internal/cases"
)

func loadTestVectors(t *testing.T) *cases.Vectors {
	t.Helper()
	vs, err := cases.LoadVectors(ldbcompat.TestData, cases.VectorDir)
	if err != nil {
		t.Fatal(err)
	}
	return vs
}

// runCheck runs the cases of cs on p against o.
func runCheck(p Port, o cases.Oracle, cs cases.Set) *results {
	res := newResults()
	run(p, o, cs, res)
	return res
}

func reportResults(t *testing.T, res *results) {
	t.Helper()
	for _, err := range res.errs {
		t.Error(err)
	}
	for _, prop := range caseProperties {
		fs := res.byProp[prop]
		for i, f := range fs {
			if i == 5 {
				t.Errorf("%s: %d more failures", prop, len(fs)-5)
				break
			}
			t.Error(f)
		}
	}
}

// TestGoldenVectors checks the bloom package against every answer upstream
// recorded in testdata/vectors.
func TestGoldenVectors(t *testing.T) {
	vs := loadTestVectors(t)
	if got := vs.Provenance().LevelDB; got != "1.23" {
		t.Fatalf("vectors come from LevelDB %q, want 1.23", got)
	}
	cs := cases.VectorSet()
	res := runCheck(bloomPort(), cases.VectorOracle{V: vs, Ref: bloomRef}, cs)
	reportResults(t, res)
	for _, prop := range caseProperties {
		if _, n := res.counts(prop); n > 0 {
			t.Errorf("%s: %d cases not compared", prop, n)
		}
	}
}

// brokenPolicy makes the mistakes ports are known to make, to show the suite
// catches each.
type brokenPolicy struct {
	bloom.FilterPolicy
	name string
	mut  func(f []byte) []byte
}

func (b brokenPolicy) Name() string { return b.name }

func (b brokenPolicy) CreateFilter(keys [][]byte, dst []byte) []byte {
	n := len(dst)
	out := b.FilterPolicy.CreateFilter(keys, dst)
	return append(out[:n], b.mut(out[n:])...)
}

func TestGoldenVectorsCatchBrokenPorts(t *testing.T) {
	vs := loadTestVectors(t)
	cs := cases.VectorSet()
	broken := []struct {
		name  string
		port  Port
		props []Property
	}{
		{"wrong name", Port{Name: "x", NewPolicy: func(b int) bloom.FilterPolicy {
			return brokenPolicy{bloom.NewPolicy(b), "leveldb.BuiltinBloomFilter", func(f []byte) []byte { return f }}
		}}, []Property{PropName}},
		{"bits/key kept in a byte", Port{Name: "x", NewPolicy: func(b int) bloom.FilterPolicy {
			return bloom.NewPolicy(int(uint8(b)))
		}}, []Property{PropFilterBytes}},
		{"no trailing k byte check", Port{Name: "x", NewPolicy: func(b int) bloom.FilterPolicy {
			return brokenPolicy{bloom.NewPolicy(b), bloom.PolicyName, func(f []byte) []byte { f[len(f)-1] = 6; return f }}
		}}, []Property{PropFilterBytes}},
		{"signed hash", Port{Name: "x", NewPolicy: func(b int) bloom.FilterPolicy {
			return bloom.NewLegacyPolicy(b, true)
		}, Hash: bloom.HashSignedTail}, []Property{PropName, PropHash, PropFilterBytes, PropKeyMayMatch}},
		{"reader without lg masking", Port{Name: "x", NewPolicy: bloom.NewPolicy,
			NewFilterBlockReader: func(p bloom.FilterPolicy, c []byte) FilterBlockReader {
				return noMaskReader{bloom.NewFilterBlockReader(p, c), c}
			},
		}, []Property{PropReader}},
	}
	for _, c := range broken {
		t.Run(c.name, func(t *testing.T) {
			res := runCheck(c.port, cases.VectorOracle{V: vs, Ref: bloomRef}, cs)
			for _, prop := range c.props {
				if len(res.byProp[prop]) == 0 {
					t.Errorf("no %q failure reported", prop)
				}
			}
			for prop, fs := range res.byProp {
				for _, f := range fs {
					if !strings.Contains(f.String(), "upstream") && prop != PropName {
						t.Errorf("failure does not say what upstream does: %s", f)
					}
				}
			}
		})
	}
}

// noMaskReader shifts by the raw lg byte, as a reader that forgets C++'s
// over-wide shift would (Go shifts of 64 or more give 0).
type noMaskReader struct {
	r        *bloom.FilterBlockReader
	contents []byte
}

func (n noMaskReader) KeyMayMatch(off uint64, key []byte) bool {
	if len(n.contents) >= 5 && n.contents[len(n.contents)-1] >= 64 {
		return n.r.KeyMayMatch(off>>n.contents[len(n.contents)-1], key)
	}
	return n.r.KeyMayMatch(off, key)
}

// TestGoldenVectorsVerbatim records every vector case with the bloom package
// and compares the result with the committed files line by line: the files
// bloom would write are upstream's, byte for byte.
func TestGoldenVectorsVerbatim(t *testing.T) {
	vs := loadTestVectors(t)
	for name, data := range cases.RecordVectors(bloomRef, vs.Provenance()) {
		committed, err := fs.ReadFile(ldbcompat.TestData, path.Join(cases.VectorDir, name))
		if err != nil {
			t.Fatal(err)
		}
		got, want := strings.Split(string(data), "\n"), strings.Split(string(committed), "\n")
		if len(got) != len(want) {
			t.Errorf("%s: bloom records %d lines, upstream %d", name, len(got), len(want))
		}
		for i := 0; i < len(got) && i < len(want); i++ {
			if got[i] != want[i] && !strings.HasPrefix(want[i], "# ") {
				t.Errorf("%s:%d: bloom and upstream differ:\n  upstream: %.300s\n  bloom:    %.300s", name, i+1, want[i], got[i])
				break
			}
		}
	}
}
