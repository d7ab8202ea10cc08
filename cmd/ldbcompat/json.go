package main

import (
	"fmt"

	"github.com/ldbcompat/ldbcompat/internal/verify"
)

// The JSON documents `verify --json` and `dump --json` print. These types
// are the CLI's output format, kept apart from packages verify's and
// filtercheck's results, which they are converted from: renaming a field
// there does not change what a consumer of the JSON reads.
// TestJSONFieldNames pins the names.

// verifyOutput is the document `verify --json` prints.
type verifyOutput struct {
	Databases []databaseJSON `json:"databases"`
	Tables    []tableJSON    `json:"tables"`
	// Errors are the paths that are neither tables nor databases.
	Errors   []pathErrorJSON `json:"errors,omitempty"`
	Summary  summaryJSON     `json:"summary"`
	ExitCode int             `json:"exit_code"`
}

// add adds one item of verify's output.
func (o *verifyOutput) add(it verify.Item, rep *verify.Report) {
	switch {
	case it.Database != nil:
		o.Databases = append(o.Databases, databaseOf(it.Database))
	case it.PathErr != nil:
		o.Errors = append(o.Errors, pathErrorJSON{Path: it.Path, Error: it.PathErr.Error()})
	default:
		o.Tables = append(o.Tables, tableOf(rep))
	}
}

// summaryJSON is a verify.Summary. Verdicts holds every verdict's count,
// by the verdict's name, as the text summary names them.
type summaryJSON struct {
	Tables             int            `json:"tables"`
	Verdicts           map[string]int `json:"verdicts"`
	Skipped            int            `json:"skipped"`
	Databases          int            `json:"databases"`
	DatabasesNotOpened int            `json:"databases_not_opened"`
	PathErrors         int            `json:"path_errors"`
}

func summaryOf(s verify.Summary) summaryJSON {
	j := summaryJSON{Tables: s.Tables, Verdicts: map[string]int{}, Skipped: s.Skipped,
		Databases: s.Databases, DatabasesNotOpened: s.NotOpened, PathErrors: s.PathErrors}
	for _, i := range verify.Verdicts {
		j.Verdicts[string(i.Verdict)] = s.Verdicts[i.Verdict]
	}
	return j
}

// pathErrorJSON is a path that is neither a table nor a database.
type pathErrorJSON struct {
	Path  string `json:"path"`
	Error string `json:"error"`
}

// databaseJSON is a verify.Database.
type databaseJSON struct {
	Path string `json:"path"`
	// Opens tells whether upstream opens the database; Status is
	// upstream's status when it does not, Error ours (file and offset).
	Opens    bool   `json:"opens"`
	Status   string `json:"status,omitempty"`
	Error    string `json:"error,omitempty"`
	Manifest string `json:"manifest,omitempty"`
	// Comparator is the name the MANIFEST records; DefaultStatus what
	// upstream says with its default comparator when that is another.
	Comparator    string   `json:"comparator,omitempty"`
	DefaultStatus string   `json:"default_comparator_status,omitempty"`
	LiveTables    int      `json:"live_tables"`
	MissingTables []uint64 `json:"missing_tables,omitempty"`
	// Detail is the text line's.
	Detail string `json:"detail"`
}

func databaseOf(d *verify.Database) databaseJSON {
	j := databaseJSON{Path: d.Dir, Opens: d.Opens(), Status: d.Status, Manifest: d.Manifest,
		Comparator: d.Comparator, DefaultStatus: d.DefaultStatus, LiveTables: d.Live,
		MissingTables: d.Missing, Detail: d.Detail()}
	if d.Err != nil {
		j.Error = d.Err.Error()
	}
	return j
}

// tableJSON is one table of `verify --json`: a verify.Report.
type tableJSON struct {
	Path string `json:"path"`
	// Verdict is a verify.Verdict, or "skipped" for a table file that was
	// not examined.
	Verdict string `json:"verdict"`
	// Detail is the text line's, after the verdict.
	Detail string `json:"detail"`
	// For a live table: the MANIFEST's record of it.
	Level        *int    `json:"level,omitempty"`
	Number       *uint64 `json:"number,omitempty"`
	ManifestSize *uint64 `json:"manifest_size,omitempty"`
	FileSize     *int64  `json:"file_size,omitempty"`
	// Error, Status and Offset: why the table is unreadable, missing or
	// unchecked; upstream's status; the offset the error names.
	Error     string `json:"error,omitempty"`
	Status    string `json:"status,omitempty"`
	Offset    *int64 `json:"offset,omitempty"`
	Undefined bool   `json:"undefined,omitempty"`
	// IOError: the storage failed to read the table (EIO and the like).
	IOError bool `json:"io_error,omitempty"`
	// For a table that was read.
	DataBlocks   *int     `json:"data_blocks,omitempty"`
	Keys         *int     `json:"keys,omitempty"`
	FilterError  string   `json:"filter_error,omitempty"`
	OtherFilters []string `json:"other_filters,omitempty"`
	// The filter check's result, for a filter that was checked; its
	// fields sit beside the ones above.
	*resultJSON
	DiffFileOffset *uint64             `json:"diff_file_offset,omitempty"`
	FalseNegatives *falseNegativesJSON `json:"false_negatives,omitempty"`
}

// resultJSON is a filtercheck.Result.
type resultJSON struct {
	Policy            string      `json:"policy"`
	Hash              string      `json:"hash,omitempty"`
	Params            *paramsJSON `json:"params,omitempty"`
	Filters           int         `json:"filters"`
	FilterBlockOffset uint64      `json:"filter_block_offset"`
	FilterBlockSize   int         `json:"filter_block_size"`
	LayoutError       string      `json:"layout_error,omitempty"`
	Diff              *diffJSON   `json:"diff,omitempty"`
}

// paramsJSON is a filtercheck.Params.
type paramsJSON struct {
	BitsPerKey    int  `json:"bits_per_key"`
	MinBitsPerKey int  `json:"min_bits_per_key"`
	MaxBitsPerKey int  `json:"max_bits_per_key"`
	K             int  `json:"k"`
	Explained     int  `json:"explained"`
	Constrained   int  `json:"constrained"`
	Known         bool `json:"known"`
}

// diffJSON is a filtercheck.Diff.
type diffJSON struct {
	Offset     int `json:"offset"`
	Stored     int `json:"stored"`
	Rebuilt    int `json:"rebuilt"`
	StoredLen  int `json:"stored_len"`
	RebuiltLen int `json:"rebuilt_len"`
}

// falseNegativesJSON is a filtercheck.FalseNegatives, with the hash it was
// counted with for a legacy filter.
type falseNegativesJSON struct {
	Hash             string  `json:"hash,omitempty"`
	Keys             int     `json:"keys"`
	Rejected         int     `json:"rejected"`
	FirstKey         string  `json:"first_key,omitempty"` // hex
	FirstBlockOffset *uint64 `json:"first_block_offset,omitempty"`
}

// dumpOutput is the document `dump --json` prints.
type dumpOutput struct {
	Databases []databaseJSON  `json:"databases"`
	Tables    []dumpJSON      `json:"tables"`
	Errors    []pathErrorJSON `json:"errors,omitempty"`
	ExitCode  int             `json:"exit_code"`
}

// dumpJSON is one table of `dump --json`: a dumpReport.
type dumpJSON struct {
	tableJSON
	Layout *dumpLayout `json:"layout,omitempty"`
	FPR    *fprJSON    `json:"fpr,omitempty"`
}

// dumpLayout is a filter block's layout in `dump --json`.
type dumpLayout struct {
	BaseLg       int          `json:"base_lg"`
	ArrayOffset  int          `json:"array_offset"`
	Filters      []dumpFilter `json:"filters"`
	EmptyFilters int          `json:"empty_filters"`
}

// dumpFilter is one filter of `dump --json`.
type dumpFilter struct {
	Index  int `json:"index"`
	Offset int `json:"offset"` // in the filter block
	Bytes  int `json:"bytes"`  // k byte included; 0 when empty
	Keys   int `json:"keys"`
	K      int `json:"k"` // -1 when empty
}

// fprJSON is a filtercheck.FPR.
type fprJSON struct {
	Samples        int     `json:"samples"`
	FalsePositives int     `json:"false_positives"`
	Measured       float64 `json:"measured"`
	Theoretical    float64 `json:"theoretical"`
}

// tableOf converts rep to its form in `verify --json`.
func tableOf(rep *verify.Report) tableJSON {
	j := tableJSON{Path: rep.Path, Verdict: string(rep.Verdict), Detail: rep.Detail(),
		Status: rep.Status, Undefined: rep.Undefined, IOError: rep.Device, FilterError: errText(rep.FilterErr), OtherFilters: rep.OtherFilters,
		Error: errText(rep.Err)}
	if rep.Verdict == "" {
		j.Verdict = "skipped"
	}
	if f := rep.Live; f != nil {
		level, number, size := f.Level, f.Number, f.Size
		j.Level, j.Number, j.ManifestSize = &level, &number, &size
	}
	if rep.FileSize >= 0 {
		size := rep.FileSize
		j.FileSize = &size
	}
	if off, ok := rep.Offset(); ok {
		j.Offset = &off
	}
	switch rep.Verdict {
	case verify.OK, verify.OldFilter, verify.NoFilter, verify.OtherFilter, verify.FilterUnusable, verify.Mismatch:
		blocks, keys := rep.DataBlocks, rep.Keys
		j.DataBlocks, j.Keys = &blocks, &keys
	}
	if r := rep.Filter; r != nil {
		j.resultJSON = &resultJSON{Policy: r.Policy, Hash: r.Legacy, Filters: r.Filters,
			FilterBlockOffset: r.FilterBlockOffset, FilterBlockSize: r.FilterBlockSize, LayoutError: r.LayoutError}
		// Params and Diff convert as types: a field added to one of
		// filtercheck's makes this fail to compile until the output
		// decides on it.
		if r.Params != nil {
			p := paramsJSON(*r.Params)
			j.Params = &p
		}
		if r.Diff != nil {
			d := diffJSON(*r.Diff)
			j.Diff = &d
		}
	}
	if off, ok := rep.DiffFileOffset(); ok {
		j.DiffFileOffset = &off
	}
	if fn := rep.FalseNegatives; fn != nil {
		j.FalseNegatives = &falseNegativesJSON{Hash: rep.FNHash, Keys: fn.Keys, Rejected: fn.Rejected}
		if fn.Rejected > 0 {
			off := fn.FirstBlock.Offset
			j.FalseNegatives.FirstKey, j.FalseNegatives.FirstBlockOffset = fmt.Sprintf("%x", fn.FirstKey), &off
		}
	}
	return j
}

// errText is err's message, or "".
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// toJSON converts rep to its form in `dump --json`.
func (rep dumpReport) toJSON() dumpJSON {
	j := dumpJSON{tableJSON: tableOf(rep.Report), Layout: rep.Layout}
	if rep.FPR != nil {
		f := fprJSON(*rep.FPR)
		j.FPR = &f
	}
	return j
}
