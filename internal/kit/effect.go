package kit

import (
	"sort"
	"strings"
)

// failureKind is what kind of difference a failure is. The check that
// finds the difference gives it its kind; the kind decides what the
// failure means for the port's users (Failure.Effect) and how harmful that
// is.
type failureKind uint8

// The kinds of failure, with the check that finds them.
const (
	kindNone failureKind = iota // not a failure kind: every failure has another

	// Any check.
	kindPanic   // the port panics
	kindRefusal // the port panics with a Refusal

	// Case checks.
	kindName            // another filter name
	kindHash            // another hash
	kindFilterBytes     // other filter bytes
	kindBlockBytes      // other filter block bytes
	kindFalseNegative   // "absent" where upstream says "may be present", on data upstream writes
	kindDamagedNegative // the same on damaged or arbitrary data only
	kindExtraMatch      // only "may be present" where upstream says "absent"

	// ReadDB.
	kindReadFails   // ReadDB fails or answers the wrong number of keys
	kindReadMissing // ReadDB misses keys upstream's database holds
	kindReadExtra   // ReadDB finds keys upstream deleted or never wrote

	// WriteDB.
	kindWriteFails     // WriteDB fails
	kindNoTable        // WriteDB left no table
	kindTableFormat    // a table upstream cannot read
	kindNoFilter       // a table without a filter block
	kindFilterName     // a filter block under another name
	kindOtherFilters   // filter blocks of another size or k, no false negatives
	kindRejectsKeys    // upstream's filter check rejects keys of a table
	kindUpstreamOpen   // upstream cannot open the database
	kindUpstreamGet    // upstream's Get fails
	kindUpstreamMisses // upstream's Get misses keys
	kindUpstreamValue  // upstream's Get returns other values

	numKinds // not a kind: the number of kinds
)

// kinds gives each kind its effect on users and its severity: 0 is the
// most harmful.
var kinds = [numKinds]struct {
	severity int
	effect   string
}{
	kindNone:    {7, "the port answers otherwise than upstream"},
	kindPanic:   {0, "the port panics on input that upstream handles (the kit caught it; in a program it is a crash)"},
	kindRefusal: {1, "the port refuses input that upstream accepts: a table reader that does so fails every read of such a table"},

	kindName:            {4, "upstream finds a table's filter by its name (metaindex key filter.<name>), so it reads the port's tables without their filters and the port reads upstream's without filters: no wrong answers, but every Get of a missing key reads a data block"},
	kindHash:            {3, "the hash feeds the bloom filter: filters the port builds with it reject keys upstream's filters accept, so reading each other's tables reports present keys missing (false negatives)"},
	kindFilterBytes:     {3, "the port's filters are not upstream's: depending on the difference, upstream reading the port's tables reports present keys missing (false negatives: other bits set) or only filters worse (another k or size)"},
	kindBlockBytes:      {3, "the port's filter blocks are laid out otherwise than upstream's: upstream reading the port's tables consults the wrong filter for a data block or none, so it can report present keys missing (false negatives) or filter worse"},
	kindFalseNegative:   {2, "false negatives: on filters or filter blocks that upstream writes, the port answers \"absent\" where upstream answers \"may be present\", so Get on the port misses keys in upstream's tables"},
	kindDamagedNegative: {3, "false negatives on damaged or arbitrary filter data only (upstream never writes it; a corrupted table holds it): the port answers \"absent\" where upstream answers \"may be present\""},
	kindExtraMatch:      {5, "only extra reads: the port answers \"may be present\" where upstream answers \"absent\", so it reads data blocks upstream skips (no wrong answers)"},

	kindReadFails:   {1, "the port cannot read databases upstream wrote"},
	kindReadMissing: {2, "false negatives: Get on the port reports keys missing from databases upstream wrote"},
	kindReadExtra:   {2, "Get on the port returns keys that upstream deleted or never wrote"},

	kindWriteFails:     {1, "the port cannot write the kit's database"},
	kindNoTable:        {6, "nothing to check: the port left no table (its data stayed in the log); make WriteDB flush the memtable"},
	kindTableFormat:    {1, "upstream cannot open the databases the port writes"},
	kindNoFilter:       {4, "upstream reads these tables without a filter: no wrong answers, but every Get of a missing key reads a data block"},
	kindFilterName:     {4, "upstream 1.23 looks only for filter.leveldb.BuiltinBloomFilter2, so it reads these tables without their filters: no wrong answers, but every Get of a missing key reads a data block"},
	kindOtherFilters:   {3, "the filter blocks differ from the ones upstream writes for the same keys, though upstream's filter check accepts every key in them: no wrong answers, but filters of another size or probe count than asked for"},
	kindRejectsKeys:    {2, "false negatives: upstream's Get reports keys missing from the databases the port writes"},
	kindUpstreamOpen:   {1, "upstream cannot open the databases the port writes"},
	kindUpstreamGet:    {1, "upstream's Get fails with an error on keys of the databases the port writes"},
	kindUpstreamMisses: {2, "false negatives: upstream's Get reports keys missing from the databases the port writes"},
	kindUpstreamValue:  {2, "upstream's Get returns wrong values from the databases the port writes"},
}

func (k failureKind) effect() string { return kinds[k].effect }

func (k failureKind) severity() int { return kinds[k].severity }

// harm is what a failure of kind k does to the port's users.
func (k failureKind) harm() Harm {
	switch k {
	case kindFalseNegative, kindReadMissing, kindRejectsKeys, kindUpstreamMisses:
		return HarmFalseNegatives
	case kindReadExtra, kindUpstreamValue:
		return HarmWrongAnswers
	case kindPanic:
		return HarmCrash
	case kindRefusal, kindReadFails, kindWriteFails, kindTableFormat, kindUpstreamOpen, kindUpstreamGet:
		return HarmFails
	case kindHash, kindFilterBytes, kindBlockBytes:
		return HarmMayLoseKeys
	case kindDamagedNegative:
		return HarmDamagedOnly
	case kindName, kindExtraMatch, kindNoFilter, kindFilterName, kindOtherFilters:
		return HarmSlower
	}
	return HarmOther
}

// summarize joins the distinct effects of fs, the most harmful first.
func summarize(fs []caseFailure) string {
	var out []failureKind
	seen := map[string]bool{}
	for _, f := range fs {
		if e := f.kind.effect(); !seen[e] {
			seen[e] = true
			out = append(out, f.kind)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].severity() < out[j].severity() })
	effects := make([]string, len(out))
	for i, k := range out {
		effects[i] = k.effect()
	}
	return strings.Join(effects, "; ")
}
