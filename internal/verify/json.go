package verify

import (
	"encoding/json"
	"fmt"
	"io"
	"math"

	"github.com/ldbcompat/ldbcompat/internal/filtercheck"
)

// The JSON types are kept apart from the results they render, so renaming a
// field there does not change the JSON (docs/verify.md; TestJSONFieldNames).

// JSONSchema is the version of the JSON documents `verify --json` and
// `dump --json` print. It changes whenever a field is renamed, removed or
// changes meaning; new fields may be added without a change.
const JSONSchema = 2

// VerifyJSON collects the items of `verify --json`, in order.
type VerifyJSON struct{ document[tableJSON] }

// Add adds one item; rep is its table's report, for a table.
func (j *VerifyJSON) Add(it Item, rep *TableReport) {
	j.add(it, func() tableJSON { return tableOf(rep) })
}

// DumpJSON collects the items of `dump --json`, in order.
type DumpJSON struct{ document[dumpJSON] }

// Add adds one item; d is its table's dump, for a table.
func (j *DumpJSON) Add(it Item, d *Dump) { j.add(it, d.toJSON) }

// AddLog adds a log or MANIFEST dump printed record by record.
func (j *DumpJSON) AddLog(l *LogDumpJSON) { j.out.Logs = append(j.out.Logs, l) }

// output is the document printed; T is tableJSON or dumpJSON.
type output[T any] struct {
	Schema     int             `json:"schema"`
	Tool       any             `json:"tool"`
	Databases  []*dbWith[T]    `json:"databases"`
	Tables     []T             `json:"tables"`
	PathErrors []pathErrorJSON `json:"path_errors"`
	Notes      []noteJSON      `json:"notes"`
	Logs       []*LogDumpJSON  `json:"logs,omitempty"`
	Summary    summaryJSON     `json:"summary"`
	ExitCode   int             `json:"exit_code"`
}

// document collects the items into the nested form; T is a table's form.
type document[T any] struct {
	out  output[T]
	byDB map[*Database]*dbWith[T]
}

// Write prints the document, indented, with the tool, summary and exit code.
func (d *document[T]) Write(w io.Writer, tool any, sum Summary, exit int) error {
	d.init()
	d.out.Schema, d.out.Tool, d.out.Summary, d.out.ExitCode = JSONSchema, tool, summaryOf(sum), exit
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(d.out)
}

// dbWith is a database with its tables of type T.
type dbWith[T any] struct {
	databaseJSON
	Tables []T `json:"tables"`
}

// add adds one item; table is its table's JSON form, for a table.
func (d *document[T]) add(it Item, table func() T) {
	d.init()
	o := &d.out
	switch {
	case it.Database != nil:
		db := &dbWith[T]{databaseJSON: databaseOf(it.Database), Tables: []T{}}
		d.byDB[it.Database] = db
		o.Databases = append(o.Databases, db)
	case it.PathErr != nil:
		o.PathErrors = append(o.PathErrors, pathErrorJSON{pathJSON: pathOf(it.Path), Error: it.PathErr.Error()})
	case it.Note != "":
		o.Notes = append(o.Notes, noteJSON{pathJSON: pathOf(it.Path), Note: it.Note})
	case it.Table.DB != nil && d.byDB[it.Table.DB] != nil:
		db := d.byDB[it.Table.DB]
		db.Tables = append(db.Tables, table())
	default:
		o.Tables = append(o.Tables, table())
	}
}

// init makes the lists, which are printed even when empty.
func (d *document[T]) init() {
	if d.byDB == nil {
		d.byDB = map[*Database]*dbWith[T]{}
		d.out.Databases, d.out.Tables, d.out.PathErrors, d.out.Notes = []*dbWith[T]{}, []T{}, []pathErrorJSON{}, []noteJSON{}
	}
}

// summaryJSON is a Summary, with counts by verdict name.
type summaryJSON struct {
	Tables             int            `json:"tables"`
	Verdicts           map[string]int `json:"verdicts"`
	SkippedNotLive     int            `json:"skipped_not_live"`
	SkippedNotTables   int            `json:"skipped_not_tables"`
	Databases          int            `json:"databases"`
	DatabasesNotOpened int            `json:"databases_not_opened"`
	PathErrors         int            `json:"path_errors"`
	Logs               int            `json:"logs"`
	LogVerdicts        map[string]int `json:"log_verdicts"`
}

func summaryOf(s Summary) summaryJSON {
	j := summaryJSON{Tables: s.Tables, Verdicts: map[string]int{}, SkippedNotLive: s.Skipped, SkippedNotTables: s.NotTables,
		Databases: s.Databases, DatabasesNotOpened: s.NotOpened, PathErrors: s.PathErrors, Logs: s.Logs, LogVerdicts: map[string]int{}}
	for _, i := range Verdicts {
		j.Verdicts[string(i.Verdict)] = s.Verdicts[i.Verdict]
	}
	for _, v := range []LogVerdict{Replayed, WritesDropped, OpenFails} {
		j.LogVerdicts[string(v)] = s.LogVerdicts[v]
	}
	return j
}

// logJSON is a LogReport under one option set.
type logJSON struct {
	fileJSON
	Number            uint64        `json:"number"`
	Verdict           string        `json:"verdict"`
	Detail            string        `json:"detail"`
	Options           string        `json:"options"`
	Error             string        `json:"error,omitempty"`
	Records           int64         `json:"records"`
	Bytes             int64         `json:"bytes"`
	Writes            int64         `json:"writes"`
	DroppedBytes      int64         `json:"dropped_bytes"`
	Drops             int           `json:"drops"`
	FirstDropOffset   *int64        `json:"first_drop_offset,omitempty"`
	OpenFails         bool          `json:"open_fails,omitempty"`
	Status            string        `json:"status,omitempty"`
	LostWrites        int           `json:"lost_writes"`
	LostWritesAtLeast bool          `json:"lost_writes_at_least,omitempty"`
	DropList          []logDropJSON `json:"drop_list"`
	TornBytes         int64         `json:"torn_bytes,omitempty"`
	TornOffset        *int64        `json:"torn_offset,omitempty"`
	OtherOptions      *logJSON      `json:"other_options,omitempty"`
}

// logDropJSON is a logfile.Drop.
type logDropJSON struct {
	Offset  int64     `json:"offset"`
	Bytes   int64     `json:"bytes"`
	Status  string    `json:"status"`
	Records int       `json:"records_lost"`
	AtLeast bool      `json:"records_lost_at_least,omitempty"`
	Flip    *flipJSON `json:"flipped_bit,omitempty"`
}

// logOf converts l to its JSON form under the option set mode.
func logOf(l *LogReport, mode Mode, v LogVerdict) logJSON {
	j := logJSON{fileJSON: fileOf(l.Path, l.Link), Number: l.Number, Verdict: string(v), Detail: l.detailIn(mode, v), Options: mode.Name(),
		Error: errText(l.Err), DropList: []logDropJSON{}}
	r := l.Recovery
	if r == nil {
		if mode == Paranoid {
			j.OpenFails, j.Status = true, l.Status
		}
		return j
	}
	o := outcomeIn(r, mode)
	j.Records, j.Bytes, j.Writes, j.DroppedBytes, j.Drops = o.Records, o.Bytes, o.Ops, o.DroppedBytes, o.Drops
	if o.FirstDrop >= 0 {
		j.FirstDropOffset = ptr(o.FirstDrop)
	}
	j.OpenFails, j.Status = o.Failed, o.Status
	if v != Replayed {
		j.LostWrites, j.LostWritesAtLeast = l.LostWrites()
	}
	for i := range r.Drops {
		j.DropList = append(j.DropList, logDropOf(&r.Drops[i]))
	}
	if e := r.End; e.Torn > 0 {
		j.TornBytes, j.TornOffset = e.Torn, ptr(e.Offset)
	}
	return j
}

// logsOf converts a database's logs.
func logsOf(d *Database) []logJSON {
	out := []logJSON{}
	for _, l := range d.Logs {
		j := logOf(l, l.Mode, l.Verdict)
		j.Detail = l.Detail()
		if l.Other != "" {
			j.OtherOptions = ptr(logOf(l, l.Mode.other(), l.Other))
		}
		out = append(out, j)
	}
	return out
}

// pathJSON is a path, and its bytes in hex when it is not UTF-8 (hexName).
type pathJSON struct {
	Path    string `json:"path"`
	PathHex string `json:"path_hex,omitempty"`
}

func pathOf(path string) pathJSON { return pathJSON{Path: path, PathHex: hexName(path)} }

// fileJSON is a file's path and, for a symbolic link, where it leads.
type fileJSON struct {
	pathJSON
	Link    string `json:"link,omitempty"`
	LinkHex string `json:"link_hex,omitempty"`
}

func fileOf(path, link string) fileJSON {
	return fileJSON{pathJSON: pathOf(path), Link: link, LinkHex: hexName(link)}
}

// pathErrorJSON is a path that could not be examined.
type pathErrorJSON struct {
	pathJSON
	Error string `json:"error"`
}

// noteJSON is a remark about a path.
type noteJSON struct {
	pathJSON
	Note string `json:"note"`
}

// databaseJSON is a Database.
type databaseJSON struct {
	pathJSON
	Opened bool   `json:"opened"`
	Status string `json:"status,omitempty"`
	Error  string `json:"error,omitempty"`
	// Kind names another store that wrote it ("Pebble", "RocksDB").
	Kind            string `json:"kind,omitempty"`
	KindEvidence    string `json:"kind_evidence,omitempty"`
	Manifest        string `json:"manifest,omitempty"`
	ManifestHex     string `json:"manifest_hex,omitempty"`
	CurrentLink     string `json:"current_link,omitempty"`
	CurrentLinkHex  string `json:"current_link_hex,omitempty"`
	ManifestLink    string `json:"manifest_link,omitempty"`
	ManifestLinkHex string `json:"manifest_link_hex,omitempty"`
	// DefaultStatus is upstream's with its default comparator, when Comparator is another.
	Comparator    string    `json:"comparator,omitempty"`
	ComparatorHex string    `json:"comparator_hex,omitempty"`
	DefaultStatus string    `json:"default_comparator_status,omitempty"`
	LiveTables    int       `json:"live_tables"`
	MissingTables []uint64  `json:"missing_tables"`
	Logs          []logJSON `json:"logs"`
	Detail        string    `json:"detail"`
}

func databaseOf(d *Database) databaseJSON {
	j := databaseJSON{pathJSON: pathOf(d.Dir), ManifestHex: hexName(d.Manifest), ComparatorHex: hexName(d.Comparator), Opened: d.Opens(), Status: d.Status, Kind: d.Kind, KindEvidence: d.KindEvidence, Manifest: d.Manifest, CurrentLink: d.CurrentLink, CurrentLinkHex: hexName(d.CurrentLink), ManifestLink: d.ManifestLink, ManifestLinkHex: hexName(d.ManifestLink),
		Comparator: d.Comparator, DefaultStatus: d.DefaultStatus, LiveTables: d.Live,
		MissingTables: d.Missing, Detail: d.Detail(), Logs: logsOf(d), Error: errText(d.Err)}
	if j.MissingTables == nil {
		j.MissingTables = []uint64{}
	}
	return j
}

// tableJSON is one table of `verify --json`: a TableReport.
type tableJSON struct {
	fileJSON
	Verdict string `json:"verdict"` // or "skipped"
	Detail  string `json:"detail"`
	// For a live table: the MANIFEST's record of it.
	Level        *int    `json:"level,omitempty"`
	Number       *uint64 `json:"number,omitempty"`
	ManifestSize *uint64 `json:"manifest_size,omitempty"`
	FileSize     *int64  `json:"file_size,omitempty"`
	// Undefined: upstream's behaviour is undefined there; IOError: the storage failed.
	Error     string `json:"error,omitempty"`
	Status    string `json:"status,omitempty"`
	Offset    *int64 `json:"offset,omitempty"`
	Undefined bool   `json:"undefined,omitempty"`
	IOError   bool   `json:"io_error,omitempty"`
	// For a table that was read.
	DataBlocks      *int     `json:"data_blocks,omitempty"`
	Keys            *int     `json:"keys,omitempty"`
	FilterError     string   `json:"filter_error,omitempty"`
	OtherFilters    []string `json:"other_filters,omitempty"`
	OtherFiltersHex []string `json:"other_filters_hex,omitempty"`
	// The filter checked, for ok, old-filter and mismatch.
	Filter         *filterJSON         `json:"filter,omitempty"`
	FalseNegatives *falseNegativesJSON `json:"false_negatives,omitempty"`
	// Options is "defaults" or "paranoid"; OtherOptions the table under the
	// other set, when upstream does something else there.
	Options      string      `json:"options,omitempty"`
	Damage       *damageJSON `json:"damage,omitempty"`
	OtherOptions *tableJSON  `json:"other_options,omitempty"`
}

// damageJSON is a Damage.
type damageJSON struct {
	Blocks []damagedBlockJSON `json:"blocks"`
	// Known: the table as written is known, so the counts compare with it.
	Known       bool   `json:"known"`
	Unknown     string `json:"unknown,omitempty"`
	Entries     int    `json:"entries"`
	Written     int    `json:"written"`
	WrongValues int    `json:"wrong_values"`
	Missing     int    `json:"missing"`
	Extra       int    `json:"extra"`
	GetsMissing int    `json:"lookups_missing"`
	GetsWrong   int    `json:"lookups_wrong"`
	First       string `json:"first,omitempty"`
}

// damagedBlockJSON is a table.ChecksumFailure.
type damagedBlockJSON struct {
	Block    string `json:"block"`
	Offset   uint64 `json:"offset"`
	Size     uint64 `json:"size"`
	Stored   uint32 `json:"stored_checksum"`
	Computed uint32 `json:"computed_checksum"`
	// FlippedBit is the one flipped bit that explains the mismatch.
	FlippedBit *flipJSON `json:"flipped_bit,omitempty"`
}

// flipJSON is a table.FlipSite.
type flipJSON struct {
	Offset  uint64 `json:"offset"`
	Bit     int    `json:"bit"`
	Field   string `json:"field"`
	Entry   *int   `json:"entry,omitempty"`
	Key     string `json:"key,omitempty"`
	Restart *int   `json:"restart,omitempty"`
}

func damageOf(d *Damage) *damageJSON {
	if d == nil {
		return nil
	}
	j := &damageJSON{Blocks: []damagedBlockJSON{}, Known: d.Known, Unknown: d.Unknown, Entries: d.Entries, Written: d.Written,
		WrongValues: d.WrongValues, Missing: d.Missing, Extra: d.Extra, GetsMissing: d.GetsMissing, GetsWrong: d.GetsWrong, First: d.First}
	for _, b := range d.Blocks {
		bj := damagedBlockJSON{Block: b.What, Offset: b.Handle.Offset, Size: b.Handle.Size, Stored: b.Stored, Computed: b.Computed}
		if s := b.Site; s != nil {
			bj.FlippedBit = &flipJSON{Offset: s.Offset, Bit: s.Bit, Field: s.Field.String()}
			if s.Entry >= 0 {
				bj.FlippedBit.Entry, bj.FlippedBit.Key = ptr(s.Entry), fmt.Sprintf("%x", userKey(s.Key))
			}
			if s.Restart >= 0 {
				bj.FlippedBit.Restart = ptr(s.Restart)
			}
		}
		j.Blocks = append(j.Blocks, bj)
	}
	return j
}

// filterJSON is a filtercheck.Comparison: the filter block checked.
type filterJSON struct {
	Policy    string `json:"policy"`
	PolicyHex string `json:"policy_hex,omitempty"`
	// Hash is, for a legacy filter, the hash that reproduces it.
	Hash        string      `json:"hash,omitempty"`
	Offset      uint64      `json:"offset"`
	Size        int         `json:"size"`
	Filters     int         `json:"filters"`
	Params      *paramsJSON `json:"params,omitempty"`
	LayoutError string      `json:"layout_error,omitempty"`
	Diff        *diffJSON   `json:"diff,omitempty"`
}

// paramsJSON is a filtercheck.Params, present when some filter has keys
// to infer them from. BitsPerKey is present only when one value alone
// explains the filters: small filters (64 bits, the minimum) are the same
// for several values, which MinBitsPerKey..MaxBitsPerKey then span.
type paramsJSON struct {
	BitsPerKey       *int `json:"bits_per_key,omitempty"`
	MinBitsPerKey    int  `json:"min_bits_per_key"`
	MaxBitsPerKey    int  `json:"max_bits_per_key"`
	K                int  `json:"k"`
	FiltersExplained int  `json:"filters_explained"`
	FiltersWithKeys  int  `json:"filters_with_keys"`
}

// paramsOf converts p, or returns nil when nothing was inferred.
func paramsOf(p *filtercheck.Params) *paramsJSON {
	if p == nil || !p.Known {
		return nil
	}
	j := &paramsJSON{MinBitsPerKey: p.MinBitsPerKey, MaxBitsPerKey: p.MaxBitsPerKey, K: p.K,
		FiltersExplained: p.Explained, FiltersWithKeys: p.Constrained}
	if p.MinBitsPerKey == p.MaxBitsPerKey {
		j.BitsPerKey = ptr(p.BitsPerKey)
	}
	return j
}

// diffJSON is a filtercheck.Diff: the first byte that differs.
type diffJSON struct {
	Offset              uint64 `json:"offset"`
	OffsetInFilterBlock int    `json:"offset_in_filter_block"`
	// Stored and Rebuilt are the bytes there, -1 past a block's end.
	Stored      int `json:"stored"`
	Rebuilt     int `json:"rebuilt"`
	StoredSize  int `json:"stored_size"`
	RebuiltSize int `json:"rebuilt_size"`
}

// falseNegativesJSON is a filtercheck.FalseNegatives, with a legacy hash.
type falseNegativesJSON struct {
	Hash                 string  `json:"hash,omitempty"`
	Keys                 int     `json:"keys"`
	Rejected             int     `json:"rejected"`
	FirstKey             string  `json:"first_key,omitempty"`
	FirstDataBlockOffset *uint64 `json:"first_data_block_offset,omitempty"`
}

// dumpJSON is one table of `dump --json`: a Dump.
type dumpJSON struct {
	tableJSON
	Layout *dumpLayout `json:"layout,omitempty"`
	FPR    *fprJSON    `json:"fpr,omitempty"`
}

// dumpLayout is a filter block's layout in `dump --json`.
type dumpLayout struct {
	BaseLg                   int          `json:"base_lg"`
	ArrayOffset              uint64       `json:"array_offset"`
	ArrayOffsetInFilterBlock int          `json:"array_offset_in_filter_block"`
	Filters                  []dumpFilter `json:"filters"`
	EmptyFilters             int          `json:"empty_filters"`
}

// dumpFilter is one filter of `dump --json`.
type dumpFilter struct {
	Index               int    `json:"index"`
	Offset              uint64 `json:"offset"`
	OffsetInFilterBlock int    `json:"offset_in_filter_block"`
	Bytes               int    `json:"bytes"` // k byte included; 0 when empty
	Keys                int    `json:"keys"`
	K                   int    `json:"k"` // -1 when empty
}

// fprJSON is a filtercheck.FPR: the false-positive rate measured, and the
// rates expected of LevelDB's probe scheme (simulated) and of the
// independent-hash formula.
type fprJSON struct {
	Samples         int      `json:"samples"`
	FalsePositives  int      `json:"false_positives"`
	Measured        float64  `json:"measured"`
	Expected        *float64 `json:"expected,omitempty"` // left out when not computable
	IndependentHash float64  `json:"independent_hash"`
	Shortened       int      `json:"shortened,omitempty"` // samples cut to filtercheck.MaxSampleKey

}

// tableOf converts rep to its form in `verify --json`.
func tableOf(rep *TableReport) tableJSON {
	j := tableJSON{fileJSON: fileOf(rep.Path, rep.Link), OtherFiltersHex: hexNames(rep.OtherFilters), Verdict: rep.verdictName(), Detail: rep.Detail(),
		Status: rep.Status, Undefined: rep.Undefined, IOError: rep.Device, FilterError: errText(rep.UnusableErr), OtherFilters: rep.OtherFilters,
		Error: errText(rep.Err)}
	if f := rep.Live; f != nil {
		j.Level, j.Number, j.ManifestSize = ptr(f.Level), ptr(f.Number), ptr(f.Size)
	}
	if rep.FileSize >= 0 {
		j.FileSize = ptr(rep.FileSize)
	}
	if off, ok := rep.Offset(); ok {
		j.Offset = &off
	}
	switch rep.Verdict {
	case OK, OldFilter, NoFilter, OtherFilter, FilterUnusable, Mismatch, BadChecksum, SilentCorruption:
		j.DataBlocks, j.Keys = ptr(rep.DataBlocks), ptr(rep.Keys)
	}
	if r := rep.Comparison; r != nil {
		j.Filter = &filterJSON{Policy: r.Policy, PolicyHex: hexName(r.Policy), Hash: r.Legacy, Offset: r.FilterBlockOffset, Size: r.FilterBlockSize,
			Filters: r.Filters, Params: paramsOf(r.Params), LayoutError: r.LayoutError}
		if d := r.Diff; d != nil {
			j.Filter.Diff = &diffJSON{Offset: r.FilterBlockOffset + uint64(d.Offset), OffsetInFilterBlock: d.Offset,
				Stored: d.Stored, Rebuilt: d.Rebuilt, StoredSize: d.StoredLen, RebuiltSize: d.RebuiltLen}
		}
	}
	if fn := rep.FalseNegatives; fn != nil {
		j.FalseNegatives = &falseNegativesJSON{Hash: rep.FNHash, Keys: fn.Keys, Rejected: fn.Rejected}
		if fn.Rejected > 0 {
			j.FalseNegatives.FirstKey, j.FalseNegatives.FirstDataBlockOffset = fmt.Sprintf("%x", fn.FirstKey), ptr(fn.FirstBlock.Offset)
		}
	}
	if rep.Verdict != "" {
		j.Options = rep.Mode.Name()
	}
	j.Damage = damageOf(rep.Damage)
	if rep.Other != nil {
		j.OtherOptions = ptr(tableOf(rep.Other))
	}
	return j
}

// ptr returns a pointer to a copy of v, for the optional fields.
func ptr[T any](v T) *T { return &v }

// errText is err's message, or "".
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// toJSON converts d to its form in `dump --json`.
func (d *Dump) toJSON() dumpJSON {
	j := dumpJSON{tableJSON: tableOf(d.TableReport), Layout: d.layout}
	if f := d.fpr; f != nil {
		j.FPR = &fprJSON{Samples: f.Samples, FalsePositives: f.FalsePositives, Measured: f.Measured,
			IndependentHash: f.Theoretical, Shortened: f.Shortened}
		if !math.IsNaN(f.Expected) {
			j.FPR.Expected = ptr(f.Expected)
		}
	}
	return j
}
