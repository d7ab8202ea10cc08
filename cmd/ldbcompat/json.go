package main

// The JSON documents `verify --json` and `dump --json` print. These types
// are the CLI's output format, kept apart from package filtercheck's
// results, which they are converted from: renaming a field of filtercheck
// does not change what a consumer of the JSON reads. TestJSONFieldNames
// pins the names.

// verifyOutput is the document `verify --json` prints.
type verifyOutput struct {
	// Warnings are about databases as a whole: a MANIFEST that could not
	// be read.
	Warnings []string      `json:"warnings,omitempty"`
	Tables   []tableJSON   `json:"tables"`
	Summary  verifySummary `json:"summary"`
	ExitCode int           `json:"exit_code"`
}

// verifySummary counts the outcomes of `verify`.
type verifySummary struct {
	Tables        int `json:"tables"`
	OK            int `json:"ok"`
	Mismatch      int `json:"mismatch"`
	NoFilter      int `json:"no_filter"`
	UnknownPolicy int `json:"unknown_policy"`
	Errors        int `json:"errors"`
	Skipped       int `json:"skipped"` // table files that are not live tables
}

// dumpOutput is the document `dump --json` prints.
type dumpOutput struct {
	Warnings []string   `json:"warnings,omitempty"`
	Tables   []dumpJSON `json:"tables"`
	ExitCode int        `json:"exit_code"`
}

// tableJSON is one table of `verify --json`: a verifyReport.
type tableJSON struct {
	Path   string `json:"path"`
	Status string `json:"status"` // a filtercheck.Status, "error" or "skipped"
	Error  string `json:"error,omitempty"`
	Reason string `json:"reason,omitempty"`
	// Warning: the table's size is not the one its database's MANIFEST
	// records.
	Warning        string  `json:"warning,omitempty"`
	DiffFileOffset *uint64 `json:"diff_file_offset,omitempty"`
	// The check's result, for a table that was read; its fields sit
	// beside the ones above.
	*resultJSON
}

// resultJSON is a filtercheck.Result.
type resultJSON struct {
	Policy            string      `json:"policy,omitempty"`
	Legacy            string      `json:"legacy,omitempty"`
	Params            *paramsJSON `json:"params,omitempty"`
	DataBlocks        int         `json:"data_blocks"`
	Keys              int         `json:"keys"`
	Filters           int         `json:"filters"`
	FilterBlockOffset uint64      `json:"filter_block_offset,omitempty"`
	FilterBlockSize   int         `json:"filter_block_size,omitempty"`
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

// toJSON converts rep to its form in `verify --json`.
func (rep verifyReport) toJSON() tableJSON {
	j := tableJSON{Path: rep.Path, Status: rep.Status, Error: rep.Error, Reason: rep.Reason,
		Warning: rep.Warning, DiffFileOffset: rep.DiffFileOffset}
	r := rep.Result
	if r == nil {
		return j
	}
	j.resultJSON = &resultJSON{Policy: r.Policy, Legacy: r.Legacy, DataBlocks: r.DataBlocks, Keys: r.Keys,
		Filters: r.Filters, FilterBlockOffset: r.FilterBlockOffset, FilterBlockSize: r.FilterBlockSize,
		LayoutError: r.LayoutError}
	// Params, Diff and FPR convert as types: a field added to one of
	// filtercheck's makes this fail to compile until the output decides
	// on it.
	if r.Params != nil {
		p := paramsJSON(*r.Params)
		j.Params = &p
	}
	if r.Diff != nil {
		d := diffJSON(*r.Diff)
		j.Diff = &d
	}
	return j
}

// toJSON converts rep to its form in `dump --json`.
func (rep dumpReport) toJSON() dumpJSON {
	j := dumpJSON{tableJSON: rep.verifyReport.toJSON(), Layout: rep.Layout}
	if rep.FPR != nil {
		f := fprJSON(*rep.FPR)
		j.FPR = &f
	}
	return j
}
