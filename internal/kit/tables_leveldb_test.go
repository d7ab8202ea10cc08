//go:build leveldb

package kit

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/cgo/upstream"
	"github.com/ldbcompat/ldbcompat/internal/blockop"
	"github.com/ldbcompat/ldbcompat/internal/filtercheck"
	"github.com/ldbcompat/ldbcompat/internal/fixturegen"
	"github.com/ldbcompat/ldbcompat/internal/fixtures"
	"github.com/ldbcompat/ldbcompat/internal/table"
)

// TestTablesFromLevelDB writes a database through C++ LevelDB (levigo) for
// every combination of bits/key, block size and compression, and checks
// every table it wrote: the stored filter block equals the one rebuilt from
// the table's keys with package bloom; bloom's FilterBlockReader and
// upstream's give the same answer for every stored key and for absent keys
// at every data block's offset and elsewhere; and no stored key is filtered
// out.
func TestTablesFromLevelDB(t *testing.T) {
	keysPerRun := 300
	if testing.Short() {
		keysPerRun = 60
	}
	haveSnappy := snappyAvailable(t)
	for _, o := range fixturegen.All(keysPerRun, 7) {
		t.Run(o.Name(), func(t *testing.T) {
			if o.Snappy && !haveSnappy {
				t.Skip("the linked LevelDB was built without snappy")
			}
			t.Parallel()
			dir := t.TempDir()
			info, err := fixturegen.Generate(dir, o)
			if err != nil {
				t.Fatal(err)
			}
			for _, ti := range info.Tables {
				checkLevelDBTable(t, filepath.Join(dir, ti.File), o.BitsPerKey)
			}
		})
	}
}

// checkLevelDBTable checks one table written by LevelDB with a bloom filter
// of bitsPerKey.
func checkLevelDBTable(t *testing.T, path string, bitsPerKey int) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Base(path)
	tb, err := table.Open(name, bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	policy := livePolicy(bitsPerKey)
	policyName, stored, ok := tb.FilterBlock()
	if !ok || policyName != policy.Name() {
		t.Fatalf("%s: filter block %q, %v; want %q", name, policyName, ok, policy.Name())
	}
	blocks, err := filtercheck.ReadKeys(tb)
	if err != nil {
		t.Fatal(err)
	}

	rebuilt := filtercheck.Build(blocks, policy)
	if d := filtercheck.FirstDiff(stored, rebuilt); d != nil {
		t.Errorf("%s: filter block rebuilt by bloom differs from LevelDB's at %v", name, d)
	}
	r, err := filtercheck.CompareTable(tb)
	if err != nil {
		t.Fatal(err)
	}
	if r.Match != filtercheck.MatchOK || r.Params.MinBitsPerKey > bitsPerKey || r.Params.MaxBitsPerKey < bitsPerKey {
		t.Errorf("%s: Check: status %s, %v; written with bits/key %d", name, r.Match, r.Params, bitsPerKey)
	}
	// An old release's filter: the hash it was written with is the
	// target's plain char (the keys have tail bytes of 0x80 and above).
	if legacyLive() && r.Legacy != liveLegacyHash() {
		t.Errorf("%s: %s filter written with the %s hash, want %s (plain char signed: %v)", name, policyName, r.Legacy, liveLegacyHash(), upstream.CharIsSigned())
	}

	// Queries: every stored key at its block's offset, then absent keys
	// at every block's offset, at offsets between and past the blocks.
	var queries []blockop.Query
	present := map[string]bool{}
	for _, b := range blocks {
		for _, k := range b.Keys {
			queries = append(queries, blockop.Query{Offset: b.Handle.Offset, Key: k})
			present[string(k)] = true
		}
	}
	nStored := len(queries)
	rng := rand.New(rand.NewPCG(uint64(len(data)), 99))
	absent := func() []byte {
		for {
			k := make([]byte, 1+rng.IntN(40))
			for i := range k {
				k[i] = byte(rng.Uint32())
			}
			if !present[string(k)] {
				return k
			}
		}
	}
	for _, b := range blocks {
		for i := 0; i < 20; i++ {
			queries = append(queries, blockop.Query{Offset: b.Handle.Offset, Key: absent()})
		}
	}
	end := blocks[len(blocks)-1].Handle.End()
	for i := 0; i < 200; i++ {
		queries = append(queries, blockop.Query{Offset: rng.Uint64N(end + 8192), Key: absent()})
	}
	for i := 0; i < 20; i++ {
		queries = append(queries, blockop.Query{Offset: rng.Uint64(), Key: absent()})
	}

	want := upstream.FilterBlockKeyMayMatch(upstream.Policy{BitsPerKey: bitsPerKey}, stored, queries)
	reader := bloom.NewFilterBlockReader(policy, stored)
	disagree, falseNeg, fp := 0, 0, 0
	for i, q := range queries {
		got := reader.KeyMayMatch(q.Offset, q.Key)
		if got != want[i] {
			if disagree++; disagree <= 5 {
				t.Errorf("%s: KeyMayMatch(%d, %x): bloom %v, upstream %v", name, q.Offset, q.Key, got, want[i])
			}
		}
		if i < nStored && !want[i] {
			if falseNeg++; falseNeg <= 5 {
				t.Errorf("%s: stored key %x at block %d filtered out by upstream's reader", name, q.Key, q.Offset)
			}
		}
		if i >= nStored && want[i] {
			fp++
		}
	}
	if disagree > 5 || falseNeg > 5 {
		t.Errorf("%s: %d disagreements, %d false negatives in %d queries", name, disagree, falseNeg, len(queries))
	}
	t.Logf("%s: %d data blocks, %d keys, %d-byte filter block; %d of %d absent-key queries may match",
		name, len(blocks), nStored, len(stored), fp, len(queries)-nStored)
}

// TestCommittedFixturesReproduce regenerates the committed fixture
// databases (testdata/tables) with the options recorded beside them and
// requires the same table bytes: the fixtures are what the linked LevelDB
// writes, not hand edits, and a LevelDB or snappy change shows up here.
func TestCommittedFixturesReproduce(t *testing.T) {
	if legacyLive() {
		major, minor := upstream.Version()
		t.Skipf("testdata/tables hold 1.23's tables, with %s filters; LevelDB %d.%d writes %s filters, so its tables differ by design", bloom.PolicyName, major, minor, bloom.LegacyPolicyName)
	}
	dbs, err := fixtures.Load(os.DirFS(filepath.Join("..", "..", "testdata", "tables")))
	if err != nil || len(dbs) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, db := range dbs {
		want := db.Info
		t.Run(want.Name, func(t *testing.T) {
			if want.Compression == "snappy" && !snappyAvailable(t) {
				t.Skip("the linked LevelDB was built without snappy")
			}
			o := fixturegen.Options{BitsPerKey: want.BitsPerKey, BlockSize: want.BlockSize, Snappy: want.Compression == "snappy", KeysPerRun: want.KeysPerRun, Seed: want.Seed}
			got, err := fixturegen.Generate(t.TempDir(), o)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want.Tables, got.Tables); diff != "" {
				t.Errorf("the tables upstream wrote, committed and regenerated (-upstream then +upstream now):\n%s", diff)
			}
		})
	}
}

// snappyAvailable reports whether the linked LevelDB has snappy (the
// arm64 cross build may not).
func snappyAvailable(t *testing.T) bool {
	t.Helper()
	ok, err := fixturegen.SnappyAvailable()
	if err != nil {
		t.Fatal(err)
	}
	return ok
}
