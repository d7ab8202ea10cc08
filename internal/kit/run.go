package kit

import (
	"errors"
	"fmt"
	"runtime"
	"strings"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/internal/cases"
	"github.com/ldbcompat/ldbcompat/internal/plural"
)

// results collects what the runs and the end-to-end checks found.
type results struct {
	byProp map[Property][]caseFailure // in case order
	seen   map[string]bool            // property and case of each failure kept
	// compared counts end-to-end cases; casesCompared and casesUncompared
	// name the suite's, which the live run asks again: a case counts once.
	compared        map[Property]int
	casesCompared   map[Property]map[string]bool
	casesUncompared map[Property]map[string]bool
	errs            []string // errors of the suite itself
	errSeen         map[string]bool
}

func newResults() *results {
	return &results{byProp: map[Property][]caseFailure{}, seen: map[string]bool{},
		compared: map[Property]int{}, casesCompared: map[Property]map[string]bool{},
		casesUncompared: map[Property]map[string]bool{}, errSeen: map[string]bool{}}
}

// compare records that case name of prop is compared with upstream.
func (r *results) compare(prop Property, name string) { addName(r.casesCompared, prop, name) }

// cannotCompare records that case name of prop could not be compared.
func (r *results) cannotCompare(prop Property, name string) {
	addName(r.casesUncompared, prop, name)
}

func addName(m map[Property]map[string]bool, prop Property, name string) {
	if m[prop] == nil {
		m[prop] = map[string]bool{}
	}
	m[prop][name] = true
}

// counts returns how many cases of prop were compared with upstream, in any
// run, and how many could not be.
func (r *results) counts(prop Property) (compared, uncompared int) {
	compared = r.compared[prop] + len(r.casesCompared[prop])
	for name := range r.casesUncompared[prop] {
		if !r.casesCompared[prop][name] {
			uncompared++
		}
	}
	return compared, uncompared
}

// fail records f, unless its property and case failed already.
func (r *results) fail(f caseFailure) {
	key := string(f.Property) + "\x00" + f.Case
	if r.seen[key] {
		return
	}
	r.seen[key] = true
	r.byProp[f.Property] = append(r.byProp[f.Property], f)
}

// suiteError records a problem of the suite itself, once.
func (r *results) suiteError(s string) {
	if !r.errSeen[s] {
		r.errSeen[s] = true
		r.errs = append(r.errs, s)
	}
}

// caseFailure is a failure with its kind, which gives its effect and harm.
type caseFailure struct {
	Failure
	kind failureKind
}

// failure makes a failure of kind k.
func failure(prop Property, name string, k failureKind, detail, repro string) caseFailure {
	return caseFailure{Failure{Property: prop, Case: name, Detail: detail, Repro: repro}, k}
}

// guard runs f, turning a port's panic into a failure: a refusal, or a
// panic with its stack.
func (r *results) guard(prop Property, name, repro string, f func()) {
	defer func() {
		e := recover()
		if e == nil {
			return
		}
		var ref Refusal
		if err, ok := e.(error); ok && errors.As(err, &ref) {
			r.fail(failure(prop, name, kindRefusal, ref.Error(), repro))
			return
		}
		if p, ok := e.(*Refusal); ok && p != nil {
			r.fail(failure(prop, name, kindRefusal, p.Error(), repro))
			return
		}
		var pcs [64]uintptr
		n := runtime.Callers(1, pcs[:]) // this function, then the panic
		r.fail(failure(prop, name, kindPanic, fmt.Sprintf("port panics: %v\n%s", e, panicStack(pcs[:n])), repro))
	}()
	f()
}

// kitFrames are the function name prefixes of the kit's own frames.
var kitFrames = []string{
	"github.com/ldbcompat/ldbcompat/internal/kit.",
	"github.com/ldbcompat/ldbcompat/internal/cases.",
}

// maxFrames is how many frames of a port's panic a failure shows.
const maxFrames = 8

// panicStack writes the port's frames of pcs, a deferred recover's callers,
// from the panic down to the kit (at most maxFrames), as a traceback does;
// the runtime's and the kit's are left out so that reports are stable.
func panicStack(pcs []uintptr) string {
	frames := runtime.CallersFrames(pcs)
	var out []string
	panicking, n := false, 0
	for more := true; more; {
		var fr runtime.Frame
		fr, more = frames.Next()
		switch {
		case !panicking:
			panicking = fr.Function == "runtime.gopanic"
		case strings.HasPrefix(fr.Function, "runtime."):
		case isKitFrame(fr):
			more = false
		case n == maxFrames:
			out = append(out, "      ...")
			more = false
		default:
			n++
			out = append(out, fmt.Sprintf("      %s(...)\n      \t%s:%d", fr.Function, fr.File, fr.Line))
		}
	}
	if len(out) == 0 {
		return "      (no stack)"
	}
	return strings.Join(out, "\n")
}

// isKitFrame tells whether fr is the kit's code (its tests' ports are not).
func isKitFrame(fr runtime.Frame) bool {
	for _, p := range kitFrames {
		if strings.HasPrefix(fr.Function, p) && !strings.HasSuffix(fr.File, "_test.go") {
			return true
		}
	}
	return false
}

// nameCase is the case of PropName.
const nameCase = "NewPolicy(10).Name()"

// policyNamer is an oracle that knows upstream's filter name (the linked
// library's); others stand for 1.23's bloom.PolicyName.
type policyNamer interface{ PolicyName() string }

// run checks p against o on every case of cs its hooks allow, into res.
func run(p Port, o cases.Oracle, cs cases.Set, res *results) {
	im := portImpl{p}
	want := bloom.PolicyName
	if n, ok := o.(policyNamer); ok {
		want = n.PolicyName()
	}
	res.compare(PropName, nameCase)
	res.guard(PropName, nameCase, nameCase, func() {
		if got := p.NewPolicy(10).Name(); got != want {
			res.fail(failure(PropName, nameCase, kindName, fmt.Sprintf("port names its filter %q%s, upstream %q: upstream ignores filters of any other name and reads such tables without them", got, olderName(got), want), nameCase))
		}
	})
	if p.Hash != nil {
		for _, c := range cs.Hash {
			runHash(im, o, c, res)
		}
	}
	for _, c := range cs.Filter {
		runFilter(im, o, c, cs.Origin, res)
	}
	for _, c := range cs.Match {
		runMatch(im, o, c, cs.Origin, res)
	}
	if p.NewFilterBlockBuilder != nil {
		for _, c := range cs.Block {
			runBlock(im, o, c, cs.Origin, res)
		}
	}
	if p.NewFilterBlockReader != nil {
		for _, c := range cs.Block {
			runBlockReader(im, o, c, cs.Origin, res)
		}
		for _, c := range cs.Reader {
			runReader(im, o, c, cs.Origin, res)
		}
	}
}

func runHash(im portImpl, o cases.Oracle, c cases.HashCase, res *results) {
	want, ok := ask(res, PropHash, c.Name, o.Hash, c)
	if !ok {
		return
	}
	repro := reproHash(c)
	res.guard(PropHash, c.Name, repro, func() {
		if got := cases.HashRecord(im, c); got.Out != want.Rec.Out {
			d := fmt.Sprintf("upstream %s, port %s", want.Rec.Out, got.Out)
			if why := explainHash(c.Data, c.Seed, want.Rec.Out, got.Out); why != "" {
				d += ": " + why
			}
			res.fail(failure(PropHash, c.Name, kindHash, d, repro))
		}
	})
}

// runFilter compares the port's filter for c with upstream's and, when
// that is known, the port's answers on it.
func runFilter(im portImpl, o cases.Oracle, c cases.FilterCase, origin string, res *results) {
	want, ok := ask(res, PropFilterBytes, c.Name, o.Filter, c)
	if !ok {
		return
	}
	repro := reproFilter(c, origin)
	res.guard(PropFilterBytes, c.Name, repro, func() {
		out := cases.FilterOut(im, c)
		if cases.EncodeBytes(out) != want.Rec.Out {
			d := fmt.Sprintf("filter differs from upstream (%s), port %s", want.Rec.Out, cases.EncodeBytes(out))
			if want.Raw != nil {
				d = describeBytes("filter", want.Raw[0], out)
				if why := explainFilterOut(c, want.Raw[0], out); why != "" {
					d = why + "\n    " + d
				}
			}
			res.fail(failure(PropFilterBytes, c.Name, kindFilterBytes, d, repro))
		}
	})
	if want.Raw == nil {
		// Known only by its digest: nothing to ask KeyMayMatch.
		res.cannotCompare(PropKeyMayMatch, c.Name)
		return
	}
	res.compare(PropKeyMayMatch, c.Name)
	ref := want.Raw[0][len(c.Dst):]
	res.guard(PropKeyMayMatch, c.Name, repro, func() {
		got := cases.EncodeBools(im.MatchAll(c.BitsPerKey, c.Queries, ref))
		res.answers(PropKeyMayMatch, c.Name, "KeyMayMatch on upstream's filter", want.Rec.Ans, got, true, queryKey(c.Queries),
			func(i int) string {
				return reproMatchOn(origin, c.Name, c.BitsPerKey, i, c.Queries[i], ref)
			})
	})
}

func runMatch(im portImpl, o cases.Oracle, c cases.MatchCase, origin string, res *results) {
	want, ok := ask(res, PropKeyMayMatch, c.Name, o.Match, c)
	if !ok {
		return
	}
	repro := func(i int) string {
		return reproMatchOn(origin, c.Name, c.BitsPerKey, i, c.Queries[i], c.Filter)
	}
	res.guard(PropKeyMayMatch, c.Name, repro(0), func() {
		got := cases.MatchRecord(im, c)
		res.answers(PropKeyMayMatch, c.Name, "KeyMayMatch", want.Rec.Ans, got.Ans, false, queryKey(c.Queries), repro)
	})
}

func runBlock(im portImpl, o cases.Oracle, c cases.BlockCase, origin string, res *results) {
	want, ok := ask(res, PropBlockBytes, c.Name, o.Block, c)
	if !ok {
		return
	}
	repro := reproBlock(c, origin)
	res.guard(PropBlockBytes, c.Name, repro, func() {
		outs := im.BuildBlock(c.Policy, c.Ops)
		if cases.EncodeList(outs) == want.Rec.Out {
			return
		}
		d := fmt.Sprintf("filter block differs from upstream (%s), port %s", want.Rec.Out, cases.EncodeList(outs))
		switch {
		case want.Raw != nil && len(want.Raw) != len(outs):
			d = fmt.Sprintf("the port's builder returned %s from its Finish calls, upstream's %d", plural.Count(len(outs), "block"), len(want.Raw))
		case want.Raw != nil:
			for i := range outs {
				if d2 := describeBytes(fmt.Sprintf("block of Finish call %d", i+1), want.Raw[i], outs[i]); d2 != "" {
					d = d2
					break
				}
			}
		}
		res.fail(failure(PropBlockBytes, c.Name, kindBlockBytes, d, repro))
	})
}

// runBlockReader asks the port's reader c's queries on upstream's block.
func runBlockReader(im portImpl, o cases.Oracle, c cases.BlockCase, origin string, res *results) {
	want, ok := ask(res, "", c.Name, o.Block, c)
	if !ok {
		return
	}
	if want.Raw == nil {
		// Upstream's block is known only by its digest.
		res.cannotCompare(PropReader, c.Name)
		return
	}
	res.compare(PropReader, c.Name)
	ref := cases.LastFinish(want.Raw)
	res.guard(PropReader, c.Name, reproBlock(c, origin), func() {
		got := cases.EncodeBools(im.ReadBlock(c.Policy, ref, c.Queries))
		res.answers(PropReader, c.Name, "reader on upstream's block", want.Rec.Ans, got, true, queryAt(c.Queries),
			func(i int) string {
				return reproReaderOn(origin, c.Name, c.Policy, ref, i, c.Queries[i])
			})
	})
}

func runReader(im portImpl, o cases.Oracle, c cases.ReaderCase, origin string, res *results) {
	want, ok := ask(res, PropReader, c.Name, o.Reader, c)
	if !ok {
		return
	}
	repro := func(i int) string {
		return reproReaderOn(origin, c.Name, c.Policy, c.Contents, i, c.Queries[i])
	}
	res.guard(PropReader, c.Name, repro(0), func() {
		got := cases.ReaderRecord(im, c)
		res.answers(PropReader, c.Name, "reader", want.Rec.Ans, got.Ans, c.UpstreamWrites, queryAt(c.Queries), repro)
	})
}

// ask asks f upstream's answer to case c, named name, and when it answers
// counts c as compared under prop (none if ""); an error is the suite's.
func ask[C, W any](res *results, prop Property, name string, f func(C) (W, error), c C) (W, bool) {
	want, err := f(c)
	if err != nil {
		res.suiteError(err.Error())
		return want, false
	}
	if prop != "" {
		res.compare(prop, name)
	}
	return want, true
}

// answers compares upstream's answers want with the port's got (strings of
// 0 and 1) and records a failure showing the first false negative (on
// upstream's data when upstreamWrites), else the first extra match.
func (r *results) answers(prop Property, name, what, want, got string, upstreamWrites bool, query, repro func(int) string) {
	if want == got {
		return
	}
	if len(want) != len(got) {
		r.suiteError(fmt.Sprintf("%s case %q: the port gave %s, upstream %d: the suite asked other queries than upstream's record holds", prop, name, plural.Count(len(got), "answer"), len(want)))
		return
	}
	n, falseNeg, first, firstNeg := 0, 0, -1, -1
	for i := 0; i < len(want); i++ {
		if want[i] == got[i] {
			continue
		}
		n++
		if first < 0 {
			first = i
		}
		if want[i] == '1' {
			falseNeg++
			if firstNeg < 0 {
				firstNeg = i
			}
		}
	}
	k := kindExtraMatch
	d := fmt.Sprintf("%s: %d of %s %s; first, query %d %s: upstream %v, port %v",
		what, n, plural.Count(len(want), "answer"), plural.Verb(n, "differs", "differ"), first, query(first), want[first] == '1', got[first] == '1')
	if falseNeg > 0 {
		k = kindDamagedNegative
		if upstreamWrites {
			k = kindFalseNegative
		}
		if firstNeg != first {
			d = fmt.Sprintf("%s: %d of %s %s, %d of them upstream true, port false; first of those, query %d %s",
				what, n, plural.Count(len(want), "answer"), plural.Verb(n, "differs", "differ"), falseNeg, firstNeg, query(firstNeg))
		}
		first = firstNeg
	}
	r.fail(failure(prop, name, k, d, repro(first)))
}
