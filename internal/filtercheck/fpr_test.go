package filtercheck_test

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/internal/filterblock"
	"github.com/ldbcompat/ldbcompat/internal/filtercheck"
	"github.com/ldbcompat/ldbcompat/internal/table"
	"github.com/ldbcompat/ldbcompat/internal/table/tabletest"
)

func TestTheoreticalFPR(t *testing.T) {
	// 10 bits per key, k = 6: about 0.84%.
	if got := filtercheck.TheoreticalFPR(10000, 1000, 6); math.Abs(got-0.00843) > 0.0001 {
		t.Errorf("TheoreticalFPR(10000, 1000, 6) = %v", got)
	}
	if got := filtercheck.TheoreticalFPR(0, 1, 1); got != 1 {
		t.Errorf("no bits: %v", got)
	}
}

func TestMeasureFPR(t *testing.T) {
	for _, b := range []int{2, 5, 10} {
		tb := buildTable(t, 20000, tabletest.Options{BlockSize: 1500, Policy: bloom.NewPolicy(b)})
		blocks := readKeys(t, tb)
		_, contents, _ := tb.FilterBlock()
		l := parseLayout(t, contents)
		f := filtercheck.MeasureFPR(contents, l, blocks, bloom.NewPolicy(b), 40000, 1)
		if f.Samples != 40000 || f.Theoretical <= 0 || f.Measured < f.Theoretical/2 || f.Measured > f.Theoretical*2 {
			t.Errorf("bits/key %d: %+v", b, f)
		}
		g := filtercheck.MeasureFPR(contents, l, blocks, bloom.NewPolicy(b), 40000, 1)
		filtercheck.ExpectFilters(&f, contents, l, blocks, bloom.NewPolicy(b), 1)
		filtercheck.ExpectFilters(&g, contents, l, blocks, bloom.NewPolicy(b), 1)
		if g != f {
			t.Errorf("same seed, different result: %+v, %+v", f, g)
		}
		// The filters are the policy's: the expectation is computed, and
		// the measurement (40,000 queries) lies near it.
		if math.IsNaN(f.Expected) || f.Measured < f.Expected*0.8 || f.Measured > f.Expected*1.25 {
			t.Errorf("bits/key %d: measured %v, expected %v", b, f.Measured, f.Expected)
		}
	}
}

// probes is util/bloom.cc's probe sequence, from first principles: k
// positions from one 32-bit hash h, delta = h rotated right by 17, each
// position h mod bits, h += delta.
func probes(h uint32, bits, k int) []int {
	var pos []int
	delta := h>>17 | h<<15
	for j := 0; j < k; j++ {
		pos = append(pos, int(uint64(h)%uint64(bits)))
		h += delta
	}
	return pos
}

// TestExpectedFPRSmallFilter: for a 64-bit filter holding one key, only 12
// bits of a hash choose its probes (the low 6 of h and of delta), so the
// exact false-positive rate is a count over 4096 x 4096 hash classes:
// the share of pairs where the query's probes all fall on the key's bits.
// ExpectedFPR's simulation must find it, and it differs from the
// independent-hash formula, which is why dump shows both.
func TestExpectedFPRSmallFilter(t *testing.T) {
	const bits, k = 64, 6                                                  // 10 bits/key with 1 key: 64 bits (the minimum), k 6
	class := func(c int) uint32 { return uint32(c&63) | uint32(c>>6)<<17 } // low 6 bits of h and of delta
	var sets [4096]uint64
	for c := range sets {
		for _, p := range probes(class(c), bits, k) {
			sets[c] |= 1 << p
		}
	}
	hits := 0
	for key := range sets {
		for q := range sets {
			if sets[q]&^sets[key] == 0 {
				hits++
			}
		}
	}
	exact := float64(hits) / (4096 * 4096)
	got, length, gotK := filtercheck.ExpectedFPR(bloom.NewPolicy(10), 1, 1, 1)
	if length != 9 || gotK != k {
		t.Fatalf("filter of %d bytes, k %d; want 9 bytes, k %d", length, gotK, k)
	}
	sigma := math.Sqrt(exact * (1 - exact) / (32 * 1024))
	if math.Abs(got-exact) > 5*sigma {
		t.Errorf("ExpectedFPR = %.5f, exact %.5f (sigma %.5f)", got, exact, sigma)
	}
	if formula := filtercheck.TheoreticalFPR(bits, 1, k); formula*10 > exact {
		t.Errorf("the independent-hash formula (%.5f) is as good as exact (%.5f) here; the test shows nothing", formula, exact)
	}
	t.Logf("64 bits, 1 key, k %d: exact %.5f, simulated %.5f, independent-hash formula %.7f", k, exact, got, filtercheck.TheoreticalFPR(bits, 1, k))
}

// TestExpectedFPRLargeFilter: with many keys the probes of double hashing
// behave as independent ones, and the expectation meets the formula.
func TestExpectedFPRLargeFilter(t *testing.T) {
	got, length, k := filtercheck.ExpectedFPR(bloom.NewPolicy(10), 1000, 1000, 1)
	want := filtercheck.TheoreticalFPR((length-1)*8, 1000, k)
	if math.Abs(got-want) > want*0.2 {
		t.Errorf("1000 keys at 10 bits/key: ExpectedFPR %.5f, formula %.5f", got, want)
	}
}

// TestTheoreticalFPRNoBits: a filter of no bits matches every key, even
// for no keys, where the formula would divide 0 by 0.
func TestTheoreticalFPRNoBits(t *testing.T) {
	if got := filtercheck.TheoreticalFPR(0, 0, 6); got != 1 {
		t.Errorf("TheoreticalFPR(0, 0, 6) = %v, want 1", got)
	}
}

// TestExpectedFPRDuplicates: versions of a key count toward a filter's
// size, not its bits: 50 keys of which 5 are distinct give the 50-key
// filter, and far fewer false positives than 50 distinct keys do.
func TestExpectedFPRDuplicates(t *testing.T) {
	rate, length, k := filtercheck.ExpectedFPR(bloom.NewPolicy(10), 50, 5, 1)
	if length != filterblock.FilterLen(50, 10) || k != bloom.ProbesFor(10) {
		t.Fatalf("filter of %d bytes, k %d; want %d bytes, k %d", length, k, filterblock.FilterLen(50, 10), bloom.ProbesFor(10))
	}
	if distinct, _, _ := filtercheck.ExpectedFPR(bloom.NewPolicy(10), 50, 50, 1); rate*4 > distinct {
		t.Errorf("5 distinct keys of 50: rate %v; 50 distinct: %v", rate, distinct)
	}
}

// listPolicy is a filter policy whose filter lists its keys' lengths, one
// byte each: empty for no keys. It records the keys it is asked about,
// and answers match to every query.
type listPolicy struct {
	match   bool
	queries [][]byte
}

func (*listPolicy) Name() string { return "test.List" }

func (*listPolicy) CreateFilter(keys [][]byte, dst []byte) []byte {
	for _, k := range keys {
		dst = append(dst, byte(len(k)))
	}
	return dst
}

func (p *listPolicy) KeyMayMatch(key, _ []byte) bool {
	p.queries = append(p.queries, bytes.Clone(key))
	return p.match
}

// TestExpectedFPREmptyFilters: a policy's filter of no keys may be empty;
// it then has no k byte to report.
func TestExpectedFPREmptyFilters(t *testing.T) {
	rate, length, k := filtercheck.ExpectedFPR(&listPolicy{}, 0, 0, 1)
	if rate != 0 || length != 0 || k != 0 {
		t.Errorf("ExpectedFPR of empty filters = %v, %d, %d; want 0, 0, 0", rate, length, k)
	}
}

// blockAt is a data block at offset off holding keys.
func blockAt(off uint64, keys ...string) filtercheck.BlockKeys {
	b := filtercheck.BlockKeys{Handle: table.BlockHandle{Offset: off, Size: 100}}
	for _, k := range keys {
		b.Keys = append(b.Keys, []byte(k))
	}
	return b
}

// TestMeasureFPRQueries: MeasureFPR asks about absent keys only, of a
// stored key's length, one longer after 16 tries find only present keys:
// here every key of length 0 is present and a quarter of those of length
// 1, so every query is an absent 1-byte key. A filter that matches every
// key gives as many false positives as queries.
func TestMeasureFPRQueries(t *testing.T) {
	keys := []string{""}
	for c := 0; c < 256; c += 4 {
		keys = append(keys, string([]byte{byte(c)}))
	}
	blocks := []filtercheck.BlockKeys{blockAt(0, keys...)}
	contents := filterBlock(append(make([]byte, 64), 6))
	l := parseLayout(t, contents)
	p := &listPolicy{match: true}
	const samples = 3000
	f := filtercheck.MeasureFPR(contents, l, blocks, p, samples, 1)
	if f.Samples != samples || f.FalsePositives != samples || f.Measured != 1 || len(p.queries) != samples {
		t.Errorf("%d queries asked, FPR %+v; want %d queries, all false positives", len(p.queries), f, samples)
	}
	present := map[string]bool{}
	for _, k := range keys {
		present[k] = true
	}
	lengths := map[int]int{}
	for _, q := range p.queries {
		lengths[len(q)]++
		if present[string(q)] {
			t.Fatalf("asked about %q, a key of the table", q)
		}
	}
	if lengths[1] != samples {
		t.Errorf("queries by length %v; want all %d of length 1", lengths, samples)
	}
	if got := filtercheck.MeasureFPR(contents, l, blocks, p, 0, 1); got.Samples != 0 || got.FalsePositives != 0 || got.Measured != 0 || got.Theoretical != 0 || !math.IsNaN(got.Expected) {
		t.Errorf("no samples: %+v, want an FPR of no samples, nothing expected", got)
	}
}

// TestMeasureFPRTheory: the theoretical rate averages over the filters
// queried, those with keys and more than a k byte; a filter whose k is
// over 30 matches every key (util/bloom.cc's KeyMayMatch), a rate of 1.
func TestMeasureFPRTheory(t *testing.T) {
	filter := func(n, k int) []byte { return append(make([]byte, n-1), byte(k)) }
	contents := filterBlock(
		filter(1, 6),  // range 0: a k byte only
		filter(9, 31), // range 1: matches everything
		filter(9, 30), // range 2
		filter(9, 6),  // range 3: no keys
		filter(17, 6), // range 4
	)
	blocks := []filtercheck.BlockKeys{
		blockAt(0, "a", "b"),
		blockAt(2048, "c"),
		blockAt(2*2048, "d", "e", "e"), // versions of a key count once
		blockAt(4*2048, "f", "g", "h"),
		blockAt(4*2048+200, "f", "i"),
	}
	l := parseLayout(t, contents)
	f := filtercheck.MeasureFPR(contents, l, blocks, bloom.NewPolicy(10), 100, 1)
	want := (1 + filtercheck.TheoreticalFPR(64, 2, 30) + filtercheck.TheoreticalFPR(128, 4, 6)) / 3
	if math.Abs(f.Theoretical-want) > 1e-12 {
		t.Errorf("theoretical rate %v, want %v", f.Theoretical, want)
	}
}

// TestExpectFiltersEdges: filters of a k byte alone are not queried, and
// not expected either; a filter whose k is over 30 matches every key;
// one of k 30 is simulated like any other.
func TestExpectFiltersEdges(t *testing.T) {
	p := bloom.NewPolicy(10)
	keys := []string{"a", "b", "c", "d"}
	var bk [][]byte
	for _, k := range keys {
		bk = append(bk, []byte(k))
	}
	blocks := []filtercheck.BlockKeys{blockAt(0, keys...), blockAt(2048, "e")}
	contents := filterBlock(p.CreateFilter(bk, nil), []byte{6})
	l := parseLayout(t, contents)
	var f filtercheck.FPR
	filtercheck.ExpectFilters(&f, contents, l, blocks, p, 1)
	if want, _, _ := filtercheck.ExpectedFPR(p, 4, 4, 1); f.Expected != want {
		t.Errorf("with a 1-byte filter: expected %v, want the 4-key filter's %v alone", f.Expected, want)
	}

	// k 31: that filter's rate is 1.
	blocks = []filtercheck.BlockKeys{blockAt(0, keys...), blockAt(2048, keys...)}
	contents = filterBlock(p.CreateFilter(bk, nil), p.CreateFilter(bk, nil))
	contents[filterblock.FilterLen(4, 10)-1] = 31
	l, _ = filtercheck.ParseLayout(contents)
	filtercheck.ExpectFilters(&f, contents, l, blocks, p, 1)
	if want, _, _ := filtercheck.ExpectedFPR(p, 4, 4, 1); math.Abs(f.Expected-(1+want)/2) > 1e-12 {
		t.Errorf("with a k of 31: expected %v, want %v", f.Expected, (1+want)/2)
	}

	// k 30, at 50 bits/key: a tiny rate. (Build puts a block's keys in
	// the filter of the range it starts in when the blocks follow each
	// other, as in a table.)
	p50 := bloom.NewPolicy(50)
	blocks[0].Handle.Size = 2048
	contents = filtercheck.Build(blocks, p50)
	l, _ = filtercheck.ParseLayout(contents)
	filtercheck.ExpectFilters(&f, contents, l, blocks, p50, 1)
	if math.IsNaN(f.Expected) || f.Expected > 0.01 {
		t.Errorf("k 30: expected %v, want a rate near 0", f.Expected)
	}
}

// TestMeasureFPRShortened: samples drawn for stored keys of MaxSampleKey
// bytes keep that length and none is counted shortened; for longer keys
// every sample is cut to MaxSampleKey bytes, and each is counted.
func TestMeasureFPRShortened(t *testing.T) {
	contents := filterBlock(append(make([]byte, 64), 6))
	l := parseLayout(t, contents)
	const samples = 50
	for _, tc := range []struct {
		keyLen, shortened int
	}{
		{filtercheck.MaxSampleKey, 0},
		{filtercheck.MaxSampleKey + 1, samples},
		{3 * filtercheck.MaxSampleKey, samples},
	} {
		blocks := []filtercheck.BlockKeys{blockAt(0, strings.Repeat("a", tc.keyLen), strings.Repeat("b", tc.keyLen))}
		p := &listPolicy{match: true}
		f := filtercheck.MeasureFPR(contents, l, blocks, p, samples, 1)
		if f.Samples != samples || f.Shortened != tc.shortened || len(p.queries) != samples {
			t.Errorf("keys of %d bytes: %d queries, FPR %+v; want %d samples, %d shortened", tc.keyLen, len(p.queries), f, samples, tc.shortened)
		}
		for _, q := range p.queries {
			if len(q) != filtercheck.MaxSampleKey {
				t.Errorf("keys of %d bytes: a sample of %d bytes; want %d", tc.keyLen, len(q), filtercheck.MaxSampleKey)
				break
			}
		}
	}
}

// TestMeasureFPRSixteenByteKeys: a stored key of 16 bytes is never
// queried as an absent one. A random 16-byte sample equals it only by
// chance (2^-128), so the test makes the chance happen: the samples
// depend on the stored keys' lengths, not their bytes, so the first
// sample drawn for a table of one 16-byte key is stored in a second
// table of one 16-byte key; there it is present, and must be drawn again.
func TestMeasureFPRSixteenByteKeys(t *testing.T) {
	contents := filterBlock(append(make([]byte, 64), 6))
	l := parseLayout(t, contents)
	const samples = 20
	p := &listPolicy{match: true}
	filtercheck.MeasureFPR(contents, l, []filtercheck.BlockKeys{blockAt(0, "0123456789abcdef")}, p, samples, 1)
	if len(p.queries) != samples || len(p.queries[0]) != 16 {
		t.Fatalf("a table of one 16-byte key: queries %q; want %d of 16 bytes", p.queries, samples)
	}
	first := string(p.queries[0])
	p = &listPolicy{match: true}
	f := filtercheck.MeasureFPR(contents, l, []filtercheck.BlockKeys{blockAt(0, first)}, p, samples, 1)
	if f.Samples != samples || len(p.queries) != samples {
		t.Fatalf("%d queries, FPR %+v; want %d", len(p.queries), f, samples)
	}
	for _, q := range p.queries {
		if string(q) == first {
			t.Fatalf("asked about %x, the table's only key", q)
		}
	}
}
