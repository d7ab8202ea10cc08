package cases

import "strings"

// Find returns the case named name of the kit's sets (VectorSet, LiveSet,
// WideSet), alone in a Set, or an empty Set. It makes only the cases it
// needs, the cheapest kinds first, so that a reproducer is quick.
func Find(name string) Set {
	if strings.HasPrefix(name, "live/wide/") {
		return pick(WideSet(), name)
	}
	for _, k := range liveKinds {
		if k.live != strings.HasPrefix(name, "live/") {
			continue
		}
		if s := pick(k.make(), name); s.Len() > 0 {
			return s
		}
	}
	return Set{}
}

// liveKinds make LiveSet's cases, a kind (or part of one) each, cheapest
// first; only the filters asked only live have names beginning "live/".
var liveKinds = []struct {
	live bool
	make func() Set
}{
	{false, func() Set { return Set{Hash: HashCases()} }},
	{false, func() Set { return Set{Match: MatchCases()} }},
	{false, func() Set { return Set{Reader: ReaderCases()} }},
	{false, func() Set { return Set{Block: BlockCases(liveBlockCases)} }},
	{false, func() Set { return Set{Filter: FilterCases(false)} }},
	{true, func() Set { return Set{Filter: liveFilterCases()} }},
}

// pick returns the cases of s named name, as cases of LiveSet.
func pick(s Set, name string) Set {
	out := Set{Origin: LiveOrigin}
	out.Hash = named(s.Hash, name, func(c HashCase) string { return c.Name })
	out.Filter = named(s.Filter, name, func(c FilterCase) string { return c.Name })
	out.Match = named(s.Match, name, func(c MatchCase) string { return c.Name })
	out.Block = named(s.Block, name, func(c BlockCase) string { return c.Name })
	out.Reader = named(s.Reader, name, func(c ReaderCase) string { return c.Name })
	return out
}

// first returns the first of cs named name.
func first[C any](cs []C, name string, nameOf func(C) string) (C, bool) {
	if n := named(cs, name, nameOf); len(n) > 0 {
		return n[0], true
	}
	var zero C
	return zero, false
}

func named[C any](cs []C, name string, nameOf func(C) string) []C {
	var out []C
	for _, c := range cs {
		if nameOf(c) == name {
			out = append(out, c)
		}
	}
	return out
}

// Len returns how many cases s holds.
func (s Set) Len() int {
	return len(s.Hash) + len(s.Filter) + len(s.Match) + len(s.Block) + len(s.Reader)
}
