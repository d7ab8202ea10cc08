package kit

import (
	"regexp"
	"strings"
	"testing"

	"github.com/ldbcompat/ldbcompat/internal/blockop"
	"github.com/ldbcompat/ldbcompat/internal/cases"
)

// mangledRef writes other filters and blocks than upstream's: with it the
// kit cannot recover the outputs the golden vectors hold only as digests.
type mangledRef struct{ cases.Impl }

func (m mangledRef) CreateFilter(bitsPerKey int, keys [][]byte, dst []byte) []byte {
	return append(m.Impl.CreateFilter(bitsPerKey, keys, dst), 0)
}

func (m mangledRef) BuildBlock(p cases.Policy, ops []blockop.Op) [][]byte {
	outs := m.Impl.BuildBlock(p, ops)
	for i := range outs {
		outs[i] = append(outs[i], 0)
	}
	return outs
}

// TestCountsOnlyCompared: a case whose upstream filter or block the kit
// cannot recover from the golden vectors is not asked of the port's
// KeyMayMatch or reader, so it must not count as a case that agrees; the
// report counts it apart and says so.
func TestCountsOnlyCompared(t *testing.T) {
	vs := loadTestVectors(t)
	cs := cases.VectorSet()
	// Count, from the vectors themselves, the outputs held only as a
	// digest.
	digest := func(kind, name, in string, held func(s, substr string) bool) int {
		r, err := vs.Lookup(kind, name, in)
		if err != nil {
			t.Fatal(err)
		}
		if held(r.Out, "sha256:") {
			return 1
		}
		return 0
	}
	digestFilters, digestBlocks := 0, 0
	for _, c := range cs.Filter {
		digestFilters += digest("filter", c.Name, c.In(), strings.HasPrefix)
	}
	for _, c := range cs.Block {
		digestBlocks += digest("block", c.Name, c.In(), strings.Contains)
	}
	if digestFilters == 0 || digestBlocks == 0 {
		t.Fatalf("the vectors hold %d filters and %d blocks only as digests: the test needs some of each", digestFilters, digestBlocks)
	}

	for _, c := range []struct {
		name                         string
		ref                          cases.Impl
		uncomparedMatch, uncomparedR int
	}{
		{"bloom recovers every digest", nil, 0, 0},
		{"nothing recovers the digests", mangledRef{bloomRef}, digestFilters, digestBlocks},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := check(bloomPort(), kitConfig{ref: c.ref})
			for _, w := range []struct {
				prop              Property
				cases, uncompared int
			}{
				{PropFilterBytes, len(cs.Filter), 0},
				{PropKeyMayMatch, len(cs.Filter) - c.uncomparedMatch + len(cs.Match), c.uncomparedMatch},
				{PropBlockBytes, len(cs.Block), 0},
				{PropReader, len(cs.Block) - c.uncomparedR + len(cs.Reader), c.uncomparedR},
			} {
				got, _ := r.Result(w.prop)
				if got.Cases != w.cases || got.Uncompared != w.uncompared {
					t.Errorf("%s: %d cases compared, %d not; want %d and %d", w.prop, got.Cases, got.Uncompared, w.cases, w.uncompared)
				}
				if got.Outcome != Pass {
					t.Errorf("%s: %s, want pass:\n%s", w.prop, got.Outcome, r)
				}
			}
			if notCompared := strings.Contains(strings.Join(r.Errors, "\n"), "not compared"); notCompared != (c.uncomparedMatch > 0) {
				t.Errorf("suite errors %q: want one saying cases were not compared only when some were not", r.Errors)
			}
		})
	}
}

// TestAnswersKind: a case whose answers differ both ways is a false
// negative, shown at its first false negative, wherever its first
// difference is; on data upstream writes it counts as such, on damaged
// data apart; a case with only extra matches is one.
func TestAnswersKind(t *testing.T) {
	for _, c := range []struct {
		want, got      string
		upstreamWrites bool
		kind           failureKind
		at             string
	}{
		{"0110", "1100", false, kindDamagedNegative, "q2"},
		{"0110", "1100", true, kindFalseNegative, "q2"},
		{"0010", "0000", true, kindFalseNegative, "q2"},
		{"0010", "1011", true, kindExtraMatch, "q0"},
	} {
		res := newResults()
		res.answers(PropReader, "x", "reader", c.want, c.got, c.upstreamWrites,
			func(i int) string { return "query" }, func(i int) string { return "q" + string(rune('0'+i)) })
		fs := res.byProp[PropReader]
		if len(fs) != 1 || fs[0].kind != c.kind || fs[0].Repro != c.at {
			t.Errorf("answers(%s, %s, upstream writes %v) = %+v; want one failure of kind %d at %s", c.want, c.got, c.upstreamWrites, fs, c.kind, c.at)
		}
	}
	res := newResults()
	res.answers(PropReader, "x", "reader", "0010", "0000", true, func(int) string { return "k" }, func(int) string { return "r" })
	if fs := res.byProp[PropReader]; len(fs) != 1 || !strings.HasPrefix(fs[0].Detail, "reader: 1 of 4 answers differs;") {
		t.Errorf("one answer of four differs: %+v; want a detail that says so", fs)
	}
	if got, want := agreeNote(1), "1 case agrees with upstream"; got != want {
		t.Errorf("agreeNote(1) = %q, want %q", got, want)
	}
	res = newResults()
	res.answers(PropReader, "x", "reader", "01", "010", false, nil, nil)
	if len(res.byProp[PropReader]) != 0 || len(res.errs) != 1 {
		t.Errorf("answers of another count: failures %v, suite errors %v; want a suite error only", res.byProp, res.errs)
	}
}

// TestEveryKindHasAnEffect: each kind of failure says what it means for
// users.
func TestEveryKindHasAnEffect(t *testing.T) {
	for k := kindNone + 1; k < numKinds; k++ {
		if kinds[k].effect == "" {
			t.Errorf("failure kind %d has no effect", k)
		}
	}
}

// TestPanicStack: a panic's failure names the frames from the panicking
// call down, the same on every run.
func TestPanicStack(t *testing.T) {
	boom := func(x int) int {
		if x > 0 {
			panic("boom")
		}
		return x
	}
	details := make([]string, 2)
	for i := range details {
		res := newResults()
		res.guard(PropHash, "c", "r", func() { boom(i + 1) })
		fs := res.byProp[PropHash]
		if len(fs) != 1 || fs[0].kind != kindPanic {
			t.Fatalf("failures %+v, want one panic", fs)
		}
		details[i] = fs[0].Detail
	}
	d := details[0]
	if !strings.HasPrefix(d, "port panics: boom\n") || !strings.Contains(d, "TestPanicStack.func1(...)") || !strings.Contains(d, "run_test.go:") {
		t.Errorf("detail does not name the panicking function and its file:\n%s", d)
	}
	if strings.Contains(d, "+0x") || strings.Contains(d, "runtime.") || strings.Contains(d, "goroutine") {
		t.Errorf("detail holds what varies from run to run, or the runtime's frames:\n%s", d)
	}
	// The kit's own frames are left out, so that no line number of the
	// kit reaches a report: the stack ends with the test's function that
	// the kit called.
	if strings.Contains(d, "kit.(*results)") || regexp.MustCompile(`kit/[a-z_]+\.go:`).MatchString(strings.ReplaceAll(d, "_test.go:", "")) {
		t.Errorf("detail holds the kit's own frames:\n%s", d)
	}
	lines := strings.Split(strings.TrimSpace(d), "\n")
	if last := strings.TrimSpace(lines[len(lines)-2]); !strings.HasSuffix(last, "TestPanicStack.func2(...)") {
		t.Errorf("the stack ends with %q, want the function the kit called:\n%s", last, d)
	}
	if details[0] != details[1] {
		t.Errorf("two panics at the same place give other details:\n%s\n%s", details[0], details[1])
	}
}
