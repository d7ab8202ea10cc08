package kit

import (
	"sort"
	"strings"
)

// failureKind is what kind of difference a failure is: it decides the
// failure's effect on users and its harm.
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

	// WriteTable.
	kindTableFails   // WriteTable fails
	kindTableLayout  // other table bytes; upstream reads every entry right
	kindTableBytes   // other table bytes; upstream was not asked to read them
	kindTableRefused // upstream reports the port's table corrupt or cannot open it
	kindTableMissing // upstream reads the port's table without some entries
	kindTableWrong   // upstream reads wrong or extra entries from the port's table

	// ReadTable.
	kindReadTableFails    // ReadTable fails on a table upstream reads
	kindReadTableMissing  // ReadTable misses entries of upstream's table
	kindReadTableWrong    // ReadTable returns wrong or extra entries of upstream's table
	kindDamagedTableWrong // ReadTable returns a wrong entry of a damaged table

	// WriteLog.
	kindLogFails  // WriteLog fails
	kindLogLayout // other log bytes; upstream reads every record right
	kindLogBytes  // other log bytes; upstream was not asked to read them
	kindLogLost   // upstream's reader misses records of the port's log
	kindLogWrong  // upstream's reader returns wrong or extra records

	// ReadLog.
	kindReadLogFails   // ReadLog fails on a log upstream reads whole
	kindReadLogMissing // ReadLog misses records upstream's reader returns
	kindReadLogWrong   // ReadLog returns records upstream's reader does not

	// WriteSynced, and ReadDB on a database left in its log.
	kindSyncedFails    // WriteSynced or its close fails
	kindSyncedOpen     // upstream cannot open what WriteSynced left
	kindSyncedMissing  // upstream misses synced writes
	kindSyncedWrong    // upstream returns other values or extra keys
	kindRecoverFails   // ReadDB fails on a database upstream left in its log
	kindRecoverMissing // ReadDB misses writes upstream left in its log
	kindRecoverExtra   // ReadDB finds keys upstream never wrote there

	numKinds // not a kind: the number of kinds
)

// kinds gives each kind its severity (0 is the most harmful), its harm
// and its effect on users.
var kinds = [numKinds]struct {
	severity int
	harm     Harm
	effect   string
}{
	kindNone:    {7, HarmOther, "the port answers otherwise than upstream"},
	kindPanic:   {0, HarmCrash, "the port panics on input that upstream handles (the kit caught it; in a program it is a crash)"},
	kindRefusal: {1, HarmFails, "the port refuses input that upstream accepts: a table reader that does so fails every read of such a table"},

	kindName:            {4, HarmSlower, "upstream finds a table's filter by its name (metaindex key filter.<name>), so it reads the port's tables without their filters and the port reads upstream's without filters: no wrong answers, but every Get of a missing key reads a data block"},
	kindHash:            {3, HarmMayLoseKeys, "the hash feeds the bloom filter: filters the port builds with it reject keys upstream's filters accept, so reading each other's tables reports present keys missing (false negatives)"},
	kindFilterBytes:     {3, HarmMayLoseKeys, "the port's filters are not upstream's: depending on the difference, upstream reading the port's tables reports present keys missing (false negatives: other bits set) or only filters worse (another k or size)"},
	kindBlockBytes:      {3, HarmMayLoseKeys, "the port's filter blocks are laid out otherwise than upstream's: upstream reading the port's tables consults the wrong filter for a data block or none, so it can report present keys missing (false negatives) or filter worse"},
	kindFalseNegative:   {2, HarmFalseNegatives, "false negatives: on filters or filter blocks that upstream writes, the port answers \"absent\" where upstream answers \"may be present\", so Get on the port misses keys in upstream's tables"},
	kindDamagedNegative: {3, HarmDamagedOnly, "false negatives on damaged or arbitrary filter data only (upstream never writes it; a corrupted table holds it): the port answers \"absent\" where upstream answers \"may be present\""},
	kindExtraMatch:      {5, HarmSlower, "only extra reads: the port answers \"may be present\" where upstream answers \"absent\", so it reads data blocks upstream skips (no wrong answers)"},

	kindReadFails:   {1, HarmFails, "the port cannot read databases upstream wrote"},
	kindReadMissing: {2, HarmFalseNegatives, "false negatives: Get on the port reports keys missing from databases upstream wrote"},
	kindReadExtra:   {2, HarmWrongAnswers, "Get on the port returns keys that upstream deleted or never wrote"},

	kindWriteFails:     {1, HarmFails, "the port cannot write the kit's database"},
	kindNoTable:        {6, HarmOther, "nothing to check: the port left no table (its data stayed in the log); make WriteDB flush the memtable"},
	kindTableFormat:    {1, HarmFails, "upstream cannot open the databases the port writes"},
	kindNoFilter:       {4, HarmSlower, "upstream reads these tables without a filter: no wrong answers, but every Get of a missing key reads a data block"},
	kindFilterName:     {4, HarmSlower, "upstream 1.23 looks only for filter.leveldb.BuiltinBloomFilter2, so it reads these tables without their filters: no wrong answers, but every Get of a missing key reads a data block"},
	kindOtherFilters:   {3, HarmSlower, "the filter blocks differ from the ones upstream writes for the same keys, though upstream's filter check accepts every key in them: no wrong answers, but filters of another size or probe count than asked for"},
	kindRejectsKeys:    {2, HarmFalseNegatives, "false negatives: upstream's Get reports keys missing from the databases the port writes"},
	kindUpstreamOpen:   {1, HarmFails, "upstream cannot open the databases the port writes"},
	kindUpstreamGet:    {1, HarmFails, "upstream's Get fails with an error on keys of the databases the port writes"},
	kindUpstreamMisses: {2, HarmFalseNegatives, "false negatives: upstream's Get reports keys missing from the databases the port writes"},
	kindUpstreamValue:  {2, HarmWrongAnswers, "upstream's Get returns wrong values from the databases the port writes"},

	kindTableFails:   {1, HarmFails, "the port cannot write the kit's table"},
	kindTableLayout:  {6, HarmBytesOnly, "the port's tables are laid out otherwise than upstream's, but upstream reads every entry of them right, in a scan and by a lookup of each key: no wrong answers"},
	kindTableBytes:   {3, HarmMayLoseKeys, "the port's tables are not upstream's bytes, and whether upstream reads them right could not be judged: upstream's behaviour on them is undefined, or they lie beyond the kit's table reader's memory bound"},
	kindTableRefused: {1, HarmFails, "upstream cannot read the tables the port writes: with checksums verified (paranoid_checks, verify_checksums) it reports them corrupt, or it cannot open them"},
	kindTableMissing: {2, HarmFalseNegatives, "false negatives: upstream reads the port's tables without some of their entries, or its Get does not find them (a filter that rejects them, an index separator that sends the seek past their block), so the keys are lost"},
	kindTableWrong:   {2, HarmWrongAnswers, "upstream reads wrong values or extra entries from the port's tables"},

	kindReadTableFails:    {1, HarmFails, "the port cannot read tables upstream writes"},
	kindReadTableMissing:  {2, HarmFalseNegatives, "false negatives: the port reads upstream's tables without some of their entries, so Get reports those keys missing"},
	kindReadTableWrong:    {2, HarmWrongAnswers, "the port reads wrong values or extra entries from upstream's tables"},
	kindDamagedTableWrong: {2, HarmWrongAnswers, "on a damaged table that upstream, verifying checksums, reports corrupt, the port returns entries upstream never wrote: silent wrong answers"},

	kindLogFails:  {1, HarmFails, "the port cannot write the kit's log"},
	kindLogLayout: {6, HarmBytesOnly, "the port's logs are laid out otherwise than upstream's, but upstream reads every record of them right: no writes lost"},
	kindLogBytes:  {3, HarmMayLoseKeys, "the port's logs are not upstream's bytes; whether upstream reads them right was not checked (run the kit with -tags leveldb)"},
	kindLogLost:   {2, HarmFalseNegatives, "false negatives: upstream reading the port's log misses records, so writes are lost when upstream recovers a database the port left"},
	kindLogWrong:  {2, HarmWrongAnswers, "upstream reading the port's log returns records the port did not write: wrong data after recovery"},

	kindReadLogFails:   {1, HarmFails, "the port cannot read logs upstream writes"},
	kindReadLogMissing: {2, HarmFalseNegatives, "false negatives: the port's log reader misses records upstream recovers, so writes are lost when the port opens a database upstream left"},
	kindReadLogWrong:   {2, HarmWrongAnswers, "the port's log reader returns records upstream's does not: data upstream dropped as damaged comes back, or records come back altered"},

	kindSyncedFails:    {1, HarmFails, "the port cannot write the kit's synced writes"},
	kindSyncedOpen:     {1, HarmFails, "upstream cannot open a database the port left after synced writes (open, as a crash leaves it, or closed)"},
	kindSyncedMissing:  {2, HarmFalseNegatives, "false negatives: upstream opening a database the port left misses writes the port synced"},
	kindSyncedWrong:    {2, HarmWrongAnswers, "upstream opening a database the port left returns other values, or keys the port never wrote"},
	kindRecoverFails:   {1, HarmFails, "the port cannot open a database upstream left with its writes in the log, as a crash or a close leaves it"},
	kindRecoverMissing: {2, HarmFalseNegatives, "false negatives: the port misses writes upstream left in its log, when it opens a database upstream did not compact"},
	kindRecoverExtra:   {2, HarmWrongAnswers, "the port finds keys upstream never wrote in a database upstream left in its log"},
}

func (k failureKind) effect() string { return kinds[k].effect }

func (k failureKind) severity() int { return kinds[k].severity }

// harm is what a failure of kind k does to the port's users.
func (k failureKind) harm() Harm { return kinds[k].harm }

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
