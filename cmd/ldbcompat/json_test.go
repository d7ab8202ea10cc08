package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/internal/filtercheck"
	"github.com/ldbcompat/ldbcompat/internal/manifest/manifesttest"
	"github.com/ldbcompat/ldbcompat/internal/table/tabletest"
)

// objectKeys returns the keys of every JSON object in doc, in the order
// they are printed, by path: "" for the document, ".tables[0]" for the
// first table, ".tables[0].params" for its params, and so on.
func objectKeys(t *testing.T, doc string) map[string][]string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(doc))
	keys := map[string][]string{}
	var value func(path string) error
	value = func(path string) error {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'):
			keys[path] = []string{}
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return err
				}
				keys[path] = append(keys[path], k.(string))
				if err := value(path + "." + k.(string)); err != nil {
					return err
				}
			}
			_, err = dec.Token() // '}'
			return err
		case json.Delim('['):
			for i := 0; dec.More(); i++ {
				if err := value(fmt.Sprintf("%s[%d]", path, i)); err != nil {
					return err
				}
			}
			_, err = dec.Token() // ']'
			return err
		}
		return nil
	}
	if err := value(""); err != nil {
		t.Fatalf("%v in\n%s", err, doc)
	}
	if _, err := dec.Token(); err != io.EOF {
		t.Fatalf("more than one document: %v\n%s", err, doc)
	}
	return keys
}

// TestJSONFieldNames pins the JSON that `verify --json` and `dump --json`
// print, the CLI's output format: the names of every object's fields, in
// order, for tables of each kind. A consumer reads these names; changing
// one is a change of format, made here on purpose.
func TestJSONFieldNames(t *testing.T) {
	// A database: one table tampered with (a mismatch, with a diff), one
	// replaced by a valid table of another size (unreadable at the size
	// the MANIFEST records), one table file that is not live (skipped).
	dir := copyDB(t, "b1-bs128-none")
	tamper(t, filepath.Join(dir, "000007.ldb"))
	other, err := os.ReadFile(filepath.Join(fixtures, "b10-bs4096-none", "000009.ldb"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "000009.ldb"), other)
	writeFile(t, filepath.Join(dir, "000099.ldb"), other)

	// Tables of their own: a legacy filter whose layout cannot be
	// decoded, and a file that is not a table.
	_, data := openTable(t, filepath.Join(fixtures, "b10-bs4096-none", "000007.ldb"))
	legacy := filepath.Join(t.TempDir(), "legacy.ldb")
	malformed, err := tabletest.ReplaceFilter(data, bloom.LegacyPolicyName, []byte{1, 2, 3, 99, 0, 0, 0, 11})
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, legacy, malformed)
	garbage := filepath.Join(t.TempDir(), "000123.ldb")
	writeFile(t, garbage, bytes.Repeat([]byte("x"), 100))

	// A database whose MANIFEST cannot be read: upstream cannot open it.
	badManifest := copyDB(t, "b10-bs4096-snappy")
	m := filepath.Join(badManifest, "MANIFEST-000002")
	mb := tabletest.ReadFile(t, m)
	mb[9] ^= 1
	writeFile(t, m, mb)

	live := []string{"level", "number", "manifest_size", "file_size"}
	read := []string{"data_blocks", "keys"}
	filter := []string{"policy", "offset", "size", "filters", "params"}
	params := []string{"min_bits_per_key", "max_bits_per_key", "k", "filters_explained", "filters_with_keys"}
	diff := []string{"offset", "offset_in_filter_block", "stored", "rebuilt", "stored_size", "rebuilt_size"}
	verdicts := []string{"bad-checksum", "filter-unusable", "mismatch", "missing", "no-filter", "ok", "old-filter", "other-filter", "silent-corruption", "unchecked", "unreadable"} // sorted, as encoding/json prints a map
	summary := []string{"tables", "verdicts", "skipped_not_live", "skipped_not_tables", "databases", "databases_not_opened", "path_errors", "logs", "log_verdicts"}
	logVerdicts := []string{"open-fails", "replayed", "writes-dropped"}
	database := []string{"path", "opened", "manifest", "comparator", "live_tables", "missing_tables", "logs", "detail", "tables"}
	// An empty log, replayed in both option sets.
	logFields := []string{"path", "number", "verdict", "detail", "options", "records", "bytes", "writes", "dropped_bytes", "drops", "lost_writes", "drop_list"}
	tool := []string{"name", "version", "go", "upstream"}
	head := []string{"path", "verdict", "detail"}
	top := []string{"schema", "tool", "databases", "tables", "path_errors", "notes", "summary", "exit_code"}
	cat := func(parts ...[]string) []string {
		var all []string
		for _, p := range parts {
			all = append(all, p...)
		}
		return all
	}
	withoutVCS := func(keys map[string][]string) map[string][]string {
		// A test binary records no VCS revision; a built command may.
		var kept []string
		for _, k := range keys[".tool"] {
			if k != "revision" && k != "time" && k != "modified" {
				kept = append(kept, k)
			}
		}
		keys[".tool"] = kept
		return keys
	}

	_, stdout, _ := runCmd(t, "verify", "--json", dir, legacy, garbage, filepath.Join(dir, "nope"))
	got := withoutVCS(objectKeys(t, stdout))
	want := map[string][]string{
		"":                      top,
		".tool":                 tool,
		".databases[0]":         database,
		".summary":              summary,
		".summary.verdicts":     verdicts,
		".summary.log_verdicts": logVerdicts,
		".databases[0].logs[0]": logFields,
		".path_errors[0]":       {"path", "error"},
		// 000007: a mismatch whose filter rejects none of the keys; its
		// filters are 64 bits, the same for bits/key 0 to 2, so that no
		// single bits/key is given
		".databases[0].tables[0]":                 cat(head, live, read, []string{"filter", "false_negatives", "options"}),
		".databases[0].tables[0].filter":          cat(filter, []string{"diff"}),
		".databases[0].tables[0].filter.params":   params,
		".databases[0].tables[0].filter.diff":     diff,
		".databases[0].tables[0].false_negatives": {"keys", "rejected"},
		// 000009: another table, unreadable at the size recorded
		".databases[0].tables[1]": cat(head, live, []string{"error", "status", "offset", "options"}),
		// 000012: ok
		".databases[0].tables[2]":               cat(head, live, read, []string{"filter", "options"}),
		".databases[0].tables[2].filter":        filter,
		".databases[0].tables[2].filter.params": params,
		// 000099: not live
		".databases[0].tables[3]": head,
		// legacy.ldb: a malformed legacy filter (every key matches)
		".tables[0]": cat(head, []string{"file_size"}, read, []string{"filter", "false_negatives", "options"}),
		// (its layout cannot be decoded: nothing to infer params from)
		".tables[0].filter":          {"policy", "hash", "offset", "size", "filters", "layout_error", "diff"},
		".tables[0].filter.diff":     diff,
		".tables[0].false_negatives": {"hash", "keys", "rejected"},
		// named like a table, and not one
		".tables[1]": cat(head, []string{"file_size", "error", "status", "offset", "options"}),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("verify --json: field names by object (-want +got):\n%s\n%s", diff, stdout)
	}
	// A filter that rejects keys of its table names the first.
	mk := func(name string) string {
		p := filepath.Join(t.TempDir(), name)
		_, data := openTable(t, filepath.Join(fixtures, "b10-bs4096-none", "000007.ldb"))
		out, err := tabletest.ReplaceFilter(data, bloom.PolicyName, []byte{0, 0, 0, 0, 0, 0, 0, 0, 6, 0, 0, 0, 0, 9, 0, 0, 0, 11})
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, p, out)
		return p
	}
	_, stdout, _ = runCmd(t, "verify", "--json", mk("000005.ldb"))
	if diff := cmp.Diff([]string{"keys", "rejected", "first_key", "first_data_block_offset"}, objectKeys(t, stdout)[".tables[0].false_negatives"]); diff != "" {
		t.Errorf("verify --json, false negatives: fields (-want +got):\n%s\n%s", diff, stdout)
	}

	_, stdout, _ = runCmd(t, "verify", "--json", badManifest)
	if diff := cmp.Diff([]string{"path", "opened", "status", "error", "manifest", "live_tables", "missing_tables", "logs", "detail", "tables"}, objectKeys(t, stdout)[".databases[0]"]); diff != "" {
		t.Errorf("verify --json, a database upstream cannot open: fields (-want +got):\n%s\n%s", diff, stdout)
	}

	_, stdout, _ = runCmd(t, "dump", "--json", "--samples", "100", filepath.Join(dir, "000012.ldb"), garbage)
	got = withoutVCS(objectKeys(t, stdout))
	want = map[string][]string{
		"":                             top,
		".tool":                        tool,
		".summary":                     summary,
		".summary.verdicts":            verdicts,
		".summary.log_verdicts":        logVerdicts,
		".tables[0]":                   cat(head, []string{"file_size"}, read, []string{"filter", "options", "layout", "fpr"}),
		".tables[0].filter":            filter,
		".tables[0].filter.params":     params,
		".tables[0].layout":            {"base_lg", "array_offset", "array_offset_in_filter_block", "filters", "empty_filters"},
		".tables[0].fpr":               {"samples", "false_positives", "measured", "expected", "independent_hash"},
		".tables[1]":                   cat(head, []string{"file_size", "error", "status", "offset", "options"}),
		".tables[0].layout.filters[0]": {"index", "offset", "offset_in_filter_block", "bytes", "keys", "k"},
	}
	for p := range got {
		if strings.HasPrefix(p, ".tables[0].layout.filters[") && p != ".tables[0].layout.filters[0]" {
			if diff := cmp.Diff(want[".tables[0].layout.filters[0]"], got[p]); diff != "" {
				t.Errorf("dump --json: %s: fields (-want +got):\n%s", p, diff)
			}
			delete(got, p)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("dump --json: field names by object (-want +got):\n%s\n%s", diff, stdout)
	}
	_, stdout, _ = runCmd(t, "dump", "--json", badManifest)
	got = objectKeys(t, stdout)
	if diff := cmp.Diff(top, got[""]); diff != "" || len(got[".databases[0]"]) != 10 {
		t.Errorf("dump --json, a database upstream cannot open: %d database fields, want 10; document's fields (-want +got):\n%s\n%s", len(got[".databases[0]"]), diff, stdout)
	}
}

// TestJSONValues checks that the JSON carries filtercheck's result
// unchanged: each field of a mismatch's Result, Params and Diff, read back
// from `verify --json`, equals what filtercheck.CompareTable says of the table.
func TestJSONValues(t *testing.T) {
	dir := copyDB(t, "b16-bs128-snappy")
	path := firstTable(t, dir)
	tamper(t, path)
	tb, _ := openTable(t, path)
	r, err := filtercheck.CompareTable(tb)
	if err != nil {
		t.Fatal(err)
	}
	if r.Diff == nil || r.Params == nil {
		t.Fatalf("tampered table checks %v", r.Match)
	}
	_, stdout, _ := runCmd(t, "verify", "--json", path)
	var v struct {
		Tables []struct {
			Verdict    string `json:"verdict"`
			DataBlocks int    `json:"data_blocks"`
			Keys       int    `json:"keys"`
			Filter     struct {
				Policy  string             `json:"policy"`
				Filters int                `json:"filters"`
				Offset  uint64             `json:"offset"`
				Size    int                `json:"size"`
				Params  map[string]any     `json:"params"`
				Diff    map[string]float64 `json:"diff"`
			} `json:"filter"`
		} `json:"tables"`
	}
	if err := json.Unmarshal([]byte(stdout), &v); err != nil || len(v.Tables) != 1 {
		t.Fatalf("%v\n%s", err, stdout)
	}
	j := v.Tables[0]
	if j.Verdict != string(r.Match) || j.Filter.Policy != r.Policy || j.DataBlocks != r.DataBlocks || j.Keys != r.Keys || j.Filter.Filters != r.Filters ||
		j.Filter.Offset != r.FilterBlockOffset || j.Filter.Size != r.FilterBlockSize {
		t.Errorf("JSON %+v, result %+v", j, r)
	}
	p := r.Params
	wantParams := map[string]any{"min_bits_per_key": float64(p.MinBitsPerKey),
		"max_bits_per_key": float64(p.MaxBitsPerKey), "k": float64(p.K), "filters_explained": float64(p.Explained),
		"filters_with_keys": float64(p.Constrained)}
	if p.MinBitsPerKey == p.MaxBitsPerKey {
		wantParams["bits_per_key"] = float64(p.BitsPerKey)
	}
	if diff := cmp.Diff(wantParams, j.Filter.Params); diff != "" {
		t.Errorf("params (-filtercheck +JSON):\n%s", diff)
	}
	d := r.Diff
	wantDiff := map[string]float64{"offset": float64(r.FilterBlockOffset + uint64(d.Offset)), "offset_in_filter_block": float64(d.Offset),
		"stored": float64(d.Stored), "rebuilt": float64(d.Rebuilt), "stored_size": float64(d.StoredLen), "rebuilt_size": float64(d.RebuiltLen)}
	if diff := cmp.Diff(wantDiff, j.Filter.Diff); diff != "" {
		t.Errorf("diff (-filtercheck +JSON):\n%s", diff)
	}
}

// TestJSONDamageFieldNames pins the fields of a damaged table and a
// damaged log: a bit flipped in a table's first data block and one in a
// log the open replays (the log written here as log::Writer frames
// records).
func TestJSONDamageFieldNames(t *testing.T) {
	dir := copyDB(t, "b10-bs4096-none")
	p := firstTable(t, dir)
	b := tabletest.ReadFile(t, p)
	b[100] ^= 0x01
	writeFile(t, p, b)
	logs, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	if len(logs) != 1 {
		t.Fatalf("%d logs", len(logs))
	}
	var w manifesttest.Log
	for i := uint64(1); i <= 3; i++ {
		w.Add(batch(1000+i, [2]string{fmt.Sprintf("k%d", i), "v"}))
	}
	lb := w.Bytes()
	lb[w.Offsets[1]+10] ^= 0x01
	writeFile(t, logs[0], lb)
	_, stdout, _ := runCmd(t, "verify", "--json", dir)
	got := objectKeys(t, stdout)
	for path, want := range map[string][]string{
		".databases[0].logs[0]": {"path", "number", "verdict", "detail", "options", "records", "bytes", "writes", "dropped_bytes", "drops",
			"first_drop_offset", "lost_writes", "drop_list", "other_options"},
		".databases[0].logs[0].drop_list[0]":                   {"offset", "bytes", "status", "records_lost", "flipped_bit"},
		".databases[0].logs[0].other_options":                  {"path", "number", "verdict", "detail", "options", "records", "bytes", "writes", "dropped_bytes", "drops", "first_drop_offset", "open_fails", "status", "lost_writes", "drop_list"},
		".databases[0].tables[0].damage":                       {"blocks", "known", "entries", "written", "wrong_values", "missing", "extra", "lookups_missing", "lookups_wrong", "first"},
		".databases[0].tables[0].damage.blocks[0]":             {"block", "offset", "size", "stored_checksum", "computed_checksum", "flipped_bit"},
		".databases[0].tables[0].damage.blocks[0].flipped_bit": {"offset", "bit", "field", "entry", "key"},
	} {
		if diff := cmp.Diff(want, got[path]); diff != "" {
			t.Errorf("%s (-want +got):\n%s", path, diff)
		}
	}
	if o := got[".databases[0].tables[0].other_options"]; len(o) == 0 || o[0] != "path" {
		t.Errorf("the table's other_options: %q\n%s", o, stdout)
	}
}
