package verify

import (
	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/internal/filtercheck"
)

// What `ldbcompat dump` adds to a table's report: its filter's layout and
// false-positive rate.

// Dump is what `ldbcompat dump` shows of one table.
type Dump struct {
	*TableReport
	// PerFilter prints a row for every filter in text.
	PerFilter bool
	layout    *dumpLayout      // the filter block's layout, when it decodes
	fpr       *filtercheck.FPR // its false-positive rate, for a bloom filter
}

// NewDump describes the filter block of rep's table (rep from Examine with
// Options.Keep) with samples absent keys from seed; it drops rep's keys.
func NewDump(rep *TableReport, samples int, seed uint64) *Dump {
	d := &Dump{TableReport: rep}
	blocks, contents, r := rep.BlockKeys, rep.FilterBlock, rep.Comparison
	rep.Table, rep.BlockKeys, rep.FilterBlock = nil, nil, nil
	if r == nil {
		return d
	}
	r.Blocks = nil
	l, err := filtercheck.ParseLayout(contents)
	if err != nil {
		return d // reported as r.LayoutError
	}
	keys := filtercheck.KeysPerFilter(blocks, l.BaseLg, len(l.Filters))
	base := r.FilterBlockOffset
	d.layout = &dumpLayout{BaseLg: l.BaseLg, ArrayOffset: base + uint64(l.ArrayOffset), ArrayOffsetInFilterBlock: l.ArrayOffset,
		Filters: make([]dumpFilter, len(l.Filters))}
	for i, f := range l.Filters {
		d.layout.Filters[i] = dumpFilter{Index: i, Offset: base + uint64(f.Offset), OffsetInFilterBlock: f.Offset,
			Bytes: f.Len, Keys: keys[i], K: f.K(contents)}
		if f.Len == 0 {
			d.layout.EmptyFilters++
		}
	}
	var p bloom.FilterPolicy
	switch r.Policy {
	case bloom.PolicyName:
		p = bloom.NewPolicy(r.Params.BitsPerKey)
	case bloom.LegacyPolicyName:
		p = bloom.NewLegacyPolicy(r.Params.BitsPerKey, r.Legacy == filtercheck.LegacySigned)
	default:
		return d // no policy to query with
	}
	fpr := filtercheck.MeasureFPR(contents, l, blocks, p, samples, seed)
	if r.Match == filtercheck.MatchOK && fpr.Samples > 0 {
		filtercheck.ExpectFilters(&fpr, contents, l, blocks, p, seed)
	}
	d.fpr = &fpr
	return d
}
