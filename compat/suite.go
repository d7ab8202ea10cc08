package compat

import (
	"encoding/hex"
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/ldbcompat/ldbcompat/bloom"
)

// The properties a port is checked for, in report order.
const (
	PropName        = "filter name"
	PropHash        = "hash"
	PropFilterBytes = "filter bytes"
	PropKeyMayMatch = "KeyMayMatch on upstream filters"
	PropBlockBytes  = "filter block bytes"
	PropReader      = "filter block reader"
)

// caseSet is the inputs of one run of the suite.
type caseSet struct {
	hash   []HashCase
	filter []FilterCase
	match  []MatchCase
	block  []BlockCase
	reader []ReaderCase
}

// vectorBlockCases is how many random builder sequences the golden vectors
// hold.
const vectorBlockCases = 60

// vectorCases are the cases the golden vectors record.
func vectorCases() caseSet {
	return caseSet{
		hash:   HashCases(),
		filter: FilterCases(false),
		match:  MatchCases(),
		block:  BlockCases(vectorBlockCases),
		reader: ReaderCases(),
	}
}

// expected is what upstream produced for one case: its record and, when
// known, its raw output bytes (one entry per output).
type expected struct {
	rec record
	raw [][]byte
}

// oracle gives upstream's answer for each case: from the golden vectors or
// live from the C++ library.
type oracle interface {
	hash(c HashCase) (expected, error)
	filter(c FilterCase) (expected, error)
	match(c MatchCase) (expected, error)
	block(c BlockCase) (expected, error)
	reader(c ReaderCase) (expected, error)
}

// results collects failures by property.
type results struct {
	byProp map[string][]Failure
	errs   []error
}

func (r *results) fail(f Failure) {
	if r.byProp == nil {
		r.byProp = map[string][]Failure{}
	}
	r.byProp[f.Property] = append(r.byProp[f.Property], f)
}

// guard runs f, turning a panic in the port into a failure.
func (r *results) guard(prop, name, repro string, f func()) {
	defer func() {
		if e := recover(); e != nil {
			stack := string(debug.Stack())
			if i := strings.Index(stack, "panic("); i >= 0 {
				stack = stack[i:]
			}
			if len(stack) > 1500 {
				stack = stack[:1500] + "..."
			}
			r.fail(Failure{prop, name, fmt.Sprintf("port panics: %v\n%s", e, indent(stack)), repro})
		}
	}()
	f()
}

// run checks port p against o on every case of cs, for the properties p's
// hooks allow.
func run(p Port, o oracle, cs caseSet) *results {
	res := &results{}
	im := portImpl{p}
	res.guard(PropName, "NewPolicy(10).Name()", "NewPolicy(10).Name()", func() {
		if got := p.NewPolicy(10).Name(); got != bloom.PolicyName {
			res.fail(Failure{PropName, "NewPolicy(10).Name()", fmt.Sprintf("port names its filter %q, upstream %q: upstream ignores filters of any other name and reads such tables without them", got, bloom.PolicyName), ""})
		}
	})
	if p.Hash != nil {
		for _, c := range cs.hash {
			want, err := o.hash(c)
			if err != nil {
				res.errs = append(res.errs, err)
				continue
			}
			res.guard(PropHash, c.Name, c.repro(), func() {
				got := hashRecord(im, c)
				if got.Out != want.rec.Out {
					res.fail(Failure{PropHash, c.Name, fmt.Sprintf("upstream %s, port %s", want.rec.Out, got.Out), c.repro()})
				}
			})
		}
	}
	for _, c := range cs.filter {
		want, err := o.filter(c)
		if err != nil {
			res.errs = append(res.errs, err)
			continue
		}
		repro := c.repro("FilterCases")
		res.guard(PropFilterBytes, c.Name, repro, func() {
			out := filterOut(im, c)
			if encodeBytes(out) != want.rec.Out {
				d := fmt.Sprintf("filter differs from upstream (%s), port %s", want.rec.Out, encodeBytes(out))
				if want.raw != nil {
					d = describeBytes("filter", want.raw[0], out)
				}
				res.fail(Failure{PropFilterBytes, c.Name, d, repro})
			}
		})
		if want.raw == nil {
			continue
		}
		res.guard(PropKeyMayMatch, c.Name, repro, func() {
			got := encodeBools(im.matchAll(c.BitsPerKey, c.Queries, want.raw[0][len(c.Dst):]))
			if d := describeAnswers("KeyMayMatch on upstream's filter", want.rec.Ans, got, queryKey(c.Queries)); d != "" {
				res.fail(Failure{PropKeyMayMatch, c.Name, d, repro})
			}
		})
	}
	for _, c := range cs.match {
		want, err := o.match(c)
		if err != nil {
			res.errs = append(res.errs, err)
			continue
		}
		res.guard(PropKeyMayMatch, c.Name, c.repro(0), func() {
			got := matchRecord(im, c)
			if d := describeAnswers("KeyMayMatch", want.rec.Ans, got.Ans, queryKey(c.Queries)); d != "" {
				res.fail(Failure{PropKeyMayMatch, c.Name, d, c.repro(firstDiff(want.rec.Ans, got.Ans))})
			}
		})
	}
	if p.NewFilterBlockBuilder != nil {
		for _, c := range cs.block {
			want, err := o.block(c)
			if err != nil {
				res.errs = append(res.errs, err)
				continue
			}
			repro := c.repro("BlockCases")
			res.guard(PropBlockBytes, c.Name, repro, func() {
				outs := im.buildBlock(c.Policy, c.Ops)
				if encodeList(outs) != want.rec.Out {
					d := fmt.Sprintf("filter block differs from upstream (%s), port %s", want.rec.Out, encodeList(outs))
					if want.raw != nil && len(want.raw) == len(outs) {
						for i := range outs {
							if d2 := describeBytes(fmt.Sprintf("block of Finish call %d", i+1), want.raw[i], outs[i]); d2 != "" {
								d = d2
								break
							}
						}
					}
					res.fail(Failure{PropBlockBytes, c.Name, d, repro})
				}
			})
		}
	}
	if p.NewFilterBlockReader != nil {
		for _, c := range cs.block {
			want, err := o.block(c)
			if err != nil || want.raw == nil {
				continue
			}
			ref := lastFinish(want.raw)
			rc := ReaderCase{Name: c.Name, Policy: c.Policy, Contents: ref, Queries: c.Queries}
			res.guard(PropReader, c.Name, c.repro("BlockCases"), func() {
				got := encodeBools(im.readBlock(c.Policy, ref, c.Queries))
				if d := describeAnswers("reader on upstream's block", want.rec.Ans, got, queryAt(c.Queries)); d != "" {
					res.fail(Failure{PropReader, c.Name, d, rc.repro(firstDiff(want.rec.Ans, got))})
				}
			})
		}
		for _, c := range cs.reader {
			want, err := o.reader(c)
			if err != nil {
				res.errs = append(res.errs, err)
				continue
			}
			res.guard(PropReader, c.Name, c.repro(0), func() {
				got := readerRecord(im, c)
				if d := describeAnswers("reader", want.rec.Ans, got.Ans, queryAt(c.Queries)); d != "" {
					res.fail(Failure{PropReader, c.Name, d, c.repro(firstDiff(want.rec.Ans, got.Ans))})
				}
			})
		}
	}
	return res
}

func firstDiff(a, b string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return 0
}

// HexBytes decodes a hex string, panicking on bad input; reproducers are
// written with it.
func HexBytes(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

// HexKeys decodes hex strings into keys, panicking on bad input;
// reproducers are written with it.
func HexKeys(ss ...string) [][]byte {
	out := make([][]byte, len(ss))
	for i, s := range ss {
		out[i] = HexBytes(s)
	}
	return out
}
