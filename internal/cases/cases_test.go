package cases

import (
	"reflect"
	"strings"
	"testing"

	"github.com/ldbcompat/ldbcompat"
	"github.com/ldbcompat/ldbcompat/internal/blockop"
)

// TestVectorsHoldEveryCase: the committed golden vectors hold a record for
// every case of VectorSet, with the case's fingerprint, and nothing else:
// a changed generator shows up here (regenerate with `make vectors`).
func TestVectorsHoldEveryCase(t *testing.T) {
	vs, err := LoadVectors(ldbcompat.TestData, VectorDir)
	if err != nil {
		t.Fatal(err)
	}
	cs := VectorSet()
	check := func(kind, name, in string) {
		t.Helper()
		if _, err := vs.Lookup(kind, name, in); err != nil {
			t.Error(err)
		}
	}
	for _, c := range cs.Hash {
		check("hash", c.Name, c.In())
	}
	for _, c := range cs.Filter {
		check("filter", c.Name, c.In())
	}
	for _, c := range cs.Match {
		check("match", c.Name, c.In())
	}
	for _, c := range cs.Block {
		check("block", c.Name, c.In())
	}
	for _, c := range cs.Reader {
		check("reader", c.Name, c.In())
	}
	if n := len(cs.Hash) + len(cs.Filter) + len(cs.Match) + len(cs.Block) + len(cs.Reader); vs.Len() != n {
		t.Errorf("vectors hold %d records, the cases are %d: regenerate with `make vectors`", vs.Len(), n)
	}
	if p := vs.Provenance(); p.LevelDB != "1.23" || p.TarballSHA256 == "" || p.GOARCH == "" {
		t.Errorf("provenance %+v: want LevelDB 1.23 with its tarball and architecture", p)
	}
}

// TestSetsDeterministic: the generators give the same cases on every call
// (reproducers name them), and no two cases of a kind share a name (a
// record is found by name).
func TestSetsDeterministic(t *testing.T) {
	if !reflect.DeepEqual(VectorSet(), VectorSet()) {
		t.Fatal("VectorSet: two calls give other cases")
	}
	for _, a := range []Set{VectorSet(), LiveSet()} {
		names := map[string]bool{}
		unique := func(kind, name string) {
			if names[kind+" "+name] {
				t.Errorf("%s: two %s cases named %q", a.Origin, kind, name)
			}
			names[kind+" "+name] = true
		}
		for _, c := range a.Hash {
			unique("hash", c.Name)
		}
		for _, c := range a.Filter {
			unique("filter", c.Name)
		}
		for _, c := range a.Match {
			unique("match", c.Name)
		}
		for _, c := range a.Block {
			unique("block", c.Name)
		}
		for _, c := range a.Reader {
			unique("reader", c.Name)
		}
	}
	if !reflect.DeepEqual(DBCases(), DBCases()) {
		t.Error("DBCases: two calls give other cases")
	}
}

func TestRecordRoundTrip(t *testing.T) {
	for _, r := range []Record{
		{"hash", "len0/seed00000000", "00000000:_", "ab12cd34", ""},
		{"match", "ones/k1", "0123456789abcdef", "", "0110"},
	} {
		line := r.String()
		if strings.Contains(line, "  ") || len(strings.Fields(line)) != 5 {
			t.Errorf("%+v writes %q: want 5 fields", r, line)
		}
		got, err := ParseRecord(line)
		if err != nil || got != r {
			t.Errorf("ParseRecord(%q) = %+v, %v; want %+v", line, got, err, r)
		}
	}
	if _, err := ParseRecord("hash name in out"); err == nil {
		t.Error("ParseRecord takes a line of 4 fields")
	}
}

// TestRaw: short outputs come back from their hex; a digest only from a
// candidate that has it.
func TestRaw(t *testing.T) {
	long := make([]byte, inlineMax+1)
	long[3] = 7
	if got := raw(EncodeBytes([]byte{1, 2}), nil); !reflect.DeepEqual(got, []byte{1, 2}) {
		t.Errorf("Raw of hex = %x", got)
	}
	enc := EncodeBytes(long)
	if !strings.HasPrefix(enc, "sha256:") || !strings.HasSuffix(enc, "/97") {
		t.Fatalf("EncodeBytes of %d bytes = %s", len(long), enc)
	}
	if got := raw(enc, long); !reflect.DeepEqual(got, long) {
		t.Error("Raw does not take a candidate with the digest")
	}
	other := append([]byte(nil), long...)
	other[3] = 8
	if raw(enc, other) != nil || raw(enc, nil) != nil {
		t.Error("Raw takes a candidate with another digest")
	}
}

// wrongBlocks builds blocks that are not upstream's.
type wrongBlocks struct{ Impl }

func (wrongBlocks) BuildBlock(Policy, []blockop.Op) [][]byte {
	return [][]byte{{0}, make([]byte, inlineMax+1)}
}

// TestVectorOracleBlockAllOrNothing: when one of a case's blocks cannot
// be recovered, the oracle gives none (the last one is the block queried).
func TestVectorOracleBlockAllOrNothing(t *testing.T) {
	c := BlockCase{Name: "two", Policy: Policy{Test: true},
		Ops: []blockop.Op{{Kind: blockop.Finish}, {Kind: blockop.Finish}}}
	upstream := [][]byte{{0}, make([]byte, inlineMax+2)}
	vs := &Vectors{records: map[string]Record{"block two": {Kind: "block", Name: "two", In: c.In(), Out: EncodeList(upstream)}}}
	e, err := VectorOracle{V: vs, Ref: wrongBlocks{}}.Block(c)
	if err != nil || e.Raw != nil {
		t.Errorf("Block = %v, %v; want no blocks", e.Raw, err)
	}
	vs.records["block two"] = Record{Kind: "block", Name: "two", In: "other", Out: "00"}
	if _, err := (VectorOracle{V: vs, Ref: wrongBlocks{}}).Block(c); err == nil || !strings.Contains(err.Error(), "make vectors") {
		t.Errorf("a record of other inputs: error %v, want one saying to regenerate the vectors", err)
	}
}
