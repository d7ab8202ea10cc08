package verify_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/internal/filtercheck"
	"github.com/ldbcompat/ldbcompat/internal/manifest/manifesttest"
	"github.com/ldbcompat/ldbcompat/internal/table"
	"github.com/ldbcompat/ldbcompat/internal/table/tabletest"
	"github.com/ldbcompat/ldbcompat/internal/verify"
)

// The renderings of what verify finds: dump's and verify's text and JSON.
// Their expected values come from the tables themselves, read here with
// internal/table and filtercheck's layout, not from verify.

// dumpTables returns table files to dump, by name: upstream's fixtures,
// and tables built here with each kind of filter block.
func dumpTables(t *testing.T) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	for p, data := range tabletest.ReadFiles(t, "../../testdata/tables/*/*.ldb") {
		files[filepath.Base(filepath.Dir(p))+"/"+filepath.Base(p)] = data
	}
	plain := tabletest.Build(entries(), tabletest.Options{BlockSize: 300})
	blocks := blocksOf(t, plain)
	current := filtercheck.Build(blocks, bloom.NewPolicy(10))
	damaged := bytes.Clone(current)
	damaged[5] ^= 0x10
	for name, meta := range map[string][]metaEntry{
		"signed":    {{name: bloom.LegacyPolicyName, contents: filtercheck.Build(blocks, bloom.NewLegacyPolicy(10, true))}},
		"unsigned":  {{name: bloom.LegacyPolicyName, contents: filtercheck.Build(blocks, bloom.NewLegacyPolicy(12, false))}},
		"mismatch":  {{name: bloom.PolicyName, contents: damaged}},
		"malformed": {{name: bloom.PolicyName, contents: []byte{1, 2, 3, 4, 5, 6, 7}}},
		"other":     {{name: "my.Filter", contents: []byte("x")}},
		"none":      nil,
	} {
		files[name] = withMeta(t, plain, meta, false)
	}
	// A block with empty filters between full ones: keys in the first and
	// the fifth 2 KiB ranges only.
	var es []table.Entry
	for i := 0; i < 40; i++ {
		v := []byte("v")
		if i == 19 {
			v = bytes.Repeat([]byte("w"), 9000)
		}
		es = append(es, table.Entry{Key: table.InternalKey{UserKey: []byte(fmt.Sprintf("k%03d", i)), Seq: 1, Kind: table.KindValue}, Value: v})
	}
	files["gaps"] = tabletest.Build(es, tabletest.Options{BlockSize: 200, Policy: bloom.NewPolicy(10)})
	// A bit more set: a mismatch that rejects no key.
	l, err := filtercheck.ParseLayout(current)
	if err != nil {
		t.Fatal(err)
	}
	oneMore := bytes.Clone(current)
	for i := l.Filters[0].Offset; ; i++ {
		if oneMore[i] != 0xff {
			oneMore[i] |= oneMore[i] + 1 // the lowest clear bit
			break
		}
	}
	files["bit more"] = withMeta(t, plain, []metaEntry{{name: bloom.PolicyName, contents: oneMore}}, false)
	// No filters at all; and, for a table of one 2 KiB range, a filter
	// for it that is empty, or one more filter, for a range without keys.
	files["no filters"] = withMeta(t, plain, []metaEntry{{name: bloom.PolicyName, contents: []byte{0, 0, 0, 0, 11}}}, false)
	one := tabletest.Build([]table.Entry{{Key: table.InternalKey{UserKey: []byte("k"), Seq: 1, Kind: table.KindValue}, Value: []byte("v")}}, tabletest.Options{})
	files["empty filter with keys"] = withMeta(t, one, []metaEntry{{name: bloom.PolicyName, contents: filterBlockOf(nil)}}, false)
	files["filter without keys"] = withMeta(t, one, []metaEntry{{name: bloom.PolicyName, contents: filterBlockOf(bloom.NewPolicy(10).CreateFilter([][]byte{[]byte("k")}, nil), append(make([]byte, 8), 6))}}, false)
	files["unreadable"] = []byte("not a table, although named one")
	return files
}

// dumpOf writes file as a table, examines it as dump does and returns the
// dump with its text and JSON renderings.
func dumpOf(t *testing.T, file []byte) (path string, d *verify.Dump, text string, doc map[string]any) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "000005.ldb")
	if err := os.WriteFile(path, file, 0o644); err != nil {
		t.Fatal(err)
	}
	it := verify.Item{Table: &verify.Target{Path: path}, Path: path}
	d = verify.NewDump(verify.Examine(it.Table, verify.Options{Keep: true}), 2000, 3)
	d.PerFilter = true // cmd/ldbcompat TestDump checks the text without
	var out, errs bytes.Buffer
	(&verify.TextWriter{Out: &out, Err: &errs}).Dump(it, d)
	var j verify.DumpJSON
	j.Add(it, d)
	var js bytes.Buffer
	if err := j.Write(&js, "test", verify.Summary{}, 0); err != nil {
		t.Fatal(err)
	}
	var top map[string]any
	if err := json.Unmarshal(js.Bytes(), &top); err != nil {
		t.Fatal(err)
	}
	tables := top["tables"].([]any)
	if len(tables) != 1 || errs.Len() != 0 {
		t.Fatalf("dump JSON holds %d tables, stderr %q", len(tables), errs.String())
	}
	return path, d, out.String(), tables[0].(map[string]any)
}

// num reads a JSON number at the path of keys in doc.
func num(t *testing.T, doc any, keys ...string) float64 {
	t.Helper()
	v := doc
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("no object at %s", k)
		}
		v = m[k]
	}
	f, ok := v.(float64)
	if !ok {
		t.Fatalf("%v: %v is not a number", keys, v)
	}
	return f
}

// TestDump: dump's text and JSON describe a table's filter block as the
// table holds it: where the block and each filter are in the file, each
// filter's keys (the data blocks starting in its 2 KiB range), bytes, k and
// bits per key; the false-positive rate, the same in both.
func TestDump(t *testing.T) {
	for name, file := range dumpTables(t) {
		t.Run(name, func(t *testing.T) {
			path, d, text, doc := dumpOf(t, file)
			lines := strings.Split(strings.TrimSuffix(text, "\n\n"), "\n")
			if lines[0] != path || !strings.HasSuffix(text, "\n\n") {
				t.Fatalf("dump text does not start with the path and end with a blank line:\n%s", text)
			}
			if doc["path"] != path || doc["verdict"] != string(d.Verdict) || doc["detail"] != d.Detail() {
				t.Errorf("JSON path %v, verdict %v, detail %v; want %s, %s, %s", doc["path"], doc["verdict"], doc["detail"], path, d.Verdict, d.Detail())
			}
			tb, err := table.Open(path, bytes.NewReader(file), int64(len(file)))
			var policy string
			var contents []byte
			ok := err == nil
			if ok {
				policy, contents, ok = tb.FilterBlock()
			}
			if !ok || policy != bloom.PolicyName && policy != bloom.LegacyPolicyName {
				// Unreadable, no filter, another policy's: nothing checked.
				if d.Comparison != nil || len(lines) != 2 || lines[1] != fmt.Sprintf("  %s: %s", d.Verdict, d.Detail()) ||
					doc["filter"] != nil || doc["layout"] != nil || doc["fpr"] != nil {
					t.Errorf("dump of a table whose filter is not checked:\n%s\n%v", text, doc)
				}
				return
			}
			h, _ := tb.FilterHandle()
			verdict := string(d.Verdict)
			if c := d.Comparison; c.Diff != nil {
				verdict += " at filter block " + c.Diff.String()
				if got := num(t, doc, "filter", "diff", "offset"); got != float64(h.Offset)+float64(c.Diff.Offset) {
					t.Errorf("diff at file offset %v, want %d + %d", got, h.Offset, c.Diff.Offset)
				}
			}
			if d.Comparison.Legacy != "" {
				verdict += "; " + d.Comparison.Legacy + " hash"
			}
			if want := fmt.Sprintf("  filter policy    %s (verify: %s)", policy, verdict); lines[1] != want {
				t.Errorf("line %q, want %q", lines[1], want)
			}
			rest := lines[2:]
			if p := d.Comparison.Params; p != nil && d.Comparison.LayoutError == "" {
				if want := "  implies          " + p.String(); rest[0] != want {
					t.Errorf("line %q, want %q", rest[0], want)
				}
				rest = rest[1:]
			}
			l, err := filtercheck.ParseLayout(contents)
			if err != nil {
				if want := fmt.Sprintf("  filter block     %d bytes at offset %d: %s", len(contents), h.Offset, err); len(rest) != 1 || rest[0] != want {
					t.Errorf("lines %q, want %q alone", rest, want)
				}
				if doc["layout"] != nil || doc["fpr"] != nil {
					t.Errorf("a malformed block has a layout in JSON: %v", doc)
				}
				return
			}
			checkLayout(t, tb, contents, h, l, rest, doc)
			checkTableJSON(t, doc, d.TableReport)
			checkFPR(t, tb, contents, l, d, doc)
		})
	}
}

// checkLayout checks the lines of a dump after the policy and params, and
// its JSON, against the layout l of the filter block contents at h in
// table tb.
func checkLayout(t *testing.T, tb *table.Table, contents []byte, h table.BlockHandle, l *filtercheck.Layout, lines []string, doc map[string]any) {
	t.Helper()
	blocks, err := filtercheck.ReadKeys(tb)
	if err != nil {
		t.Fatal(err)
	}
	keys := filtercheck.KeysPerFilter(blocks, l.BaseLg, len(l.Filters))
	total, empty, withKeys, sum, lo, hi := 0, 0, 0, 0, -1, 0
	for _, b := range blocks {
		total += len(b.Keys)
	}
	for i, f := range l.Filters {
		if f.Len == 0 {
			empty++
		}
		if keys[i] > 0 {
			withKeys++
			sum += keys[i]
			if lo < 0 || keys[i] < lo {
				lo = keys[i]
			}
			hi = max(hi, keys[i])
		}
	}
	span := 1 << l.BaseLg
	want := []string{fmt.Sprintf("  filter block     %d bytes at offset %d; %d filters (%d empty), one per %d bytes of data-block offsets", len(contents), h.Offset, len(l.Filters), empty, span)}
	k := fmt.Sprintf("  keys             %d in %d data blocks", total, len(blocks))
	if withKeys > 0 {
		k += fmt.Sprintf("; per filter with keys: min %d, mean %.1f, max %d", lo, float64(sum)/float64(withKeys), hi)
	}
	want = append(want, k)
	eligible := false
	for i, f := range l.Filters {
		eligible = eligible || f.Len > 1 && keys[i] > 0
	}
	if fpr, ok := doc["fpr"].(map[string]any); ok && num(t, fpr, "samples") > 0 {
		line := fmt.Sprintf("  false positives  measured %.3f%% (%d of %d absent keys); expected of LevelDB's probe scheme ", 100*num(t, fpr, "measured"), int(num(t, fpr, "false_positives")), int(num(t, fpr, "samples")))
		if _, ok := fpr["expected"]; ok {
			line += fmt.Sprintf("%.3f%%", 100*num(t, fpr, "expected"))
		} else {
			line += "not computed (the filter block is not what its policy writes)"
		}
		want = append(want, line+fmt.Sprintf(" (simulated); independent-hash formula %.3f%%", 100*num(t, fpr, "independent_hash")))
	}
	if fpr, ok := doc["fpr"].(map[string]any); !ok || num(t, fpr, "samples") != map[bool]float64{true: 2000, false: 0}[eligible] {
		t.Errorf("JSON fpr %v; want 2000 samples when a filter holds keys, else none", doc["fpr"])
	}
	want = append(want, fmt.Sprintf("  %6s  %-23s %6s %6s %3s %8s", "filter", "data offsets", "keys", "bytes", "k", "bits/key"))
	for i, f := range l.Filters {
		k, bpk := "-", "-"
		if f.Len > 0 {
			k = strconv.Itoa(int(contents[f.Offset+f.Len-1]))
			if keys[i] > 0 {
				bpk = fmt.Sprintf("%.1f", float64(8*(f.Len-1))/float64(keys[i]))
			}
		}
		want = append(want, fmt.Sprintf("  %6d  %-23s %6d %6d %3s %8s", i, fmt.Sprintf("%d..%d", i*span, (i+1)*span-1), keys[i], f.Len, k, bpk))
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("dump lines:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}

	layout := doc["layout"].(map[string]any)
	if num(t, layout, "base_lg") != float64(l.BaseLg) || num(t, layout, "array_offset") != float64(h.Offset)+float64(l.ArrayOffset) ||
		num(t, layout, "array_offset_in_filter_block") != float64(l.ArrayOffset) || num(t, layout, "empty_filters") != float64(empty) {
		t.Errorf("JSON layout %v; want base lg %d, array at %d + %d, %d empty", layout, l.BaseLg, h.Offset, l.ArrayOffset, empty)
	}
	fs := layout["filters"].([]any)
	if len(fs) != len(l.Filters) {
		t.Fatalf("JSON has %d filters, want %d", len(fs), len(l.Filters))
	}
	for i, f := range l.Filters {
		k := -1
		if f.Len > 0 {
			k = int(contents[f.Offset+f.Len-1])
		}
		jf := fs[i]
		if num(t, jf, "index") != float64(i) || num(t, jf, "offset") != float64(h.Offset)+float64(f.Offset) || num(t, jf, "offset_in_filter_block") != float64(f.Offset) ||
			num(t, jf, "bytes") != float64(f.Len) || num(t, jf, "keys") != float64(keys[i]) || num(t, jf, "k") != float64(k) {
			t.Errorf("JSON filter %d: %v; want offset %d + %d, %d bytes, %d keys, k %d", i, jf, h.Offset, f.Offset, f.Len, keys[i], k)
		}
	}
	if num(t, doc, "filter", "offset") != float64(h.Offset) || num(t, doc, "filter", "size") != float64(len(contents)) || num(t, doc, "filter", "filters") != float64(len(l.Filters)) ||
		num(t, doc, "keys") != float64(total) || num(t, doc, "data_blocks") != float64(len(blocks)) {
		t.Errorf("JSON filter %v, %v keys in %v blocks; want offset %d, %d bytes, %d filters, %d keys in %d blocks", doc["filter"], doc["keys"], doc["data_blocks"], h.Offset, len(contents), len(l.Filters), total, len(blocks))
	}
	if fpr, ok := doc["fpr"].(map[string]any); ok {
		if m := num(t, fpr, "measured"); math.Abs(m-num(t, fpr, "false_positives")/num(t, fpr, "samples")) > 1e-12 {
			t.Errorf("measured %v, not false positives / samples", m)
		}
	}
}

// copyFixtureTo copies the committed database name to dir.
func copyFixtureTo(t *testing.T, name, dir string) {
	t.Helper()
	src := filepath.Join("../../testdata/tables", name)
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		writeTo(t, filepath.Join(dir, e.Name()), data)
	}
}

func writeTo(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestVerifyOutput runs verify on a tree of databases of each kind and on
// paths of each kind, and checks its text and JSON: one line per database
// (a blank line between two) and per table, an error line per path that
// could not be examined, the summary's counts, and the JSON's nesting of
// tables under their databases, with the MANIFEST's record of each live
// table and the fields of its report.
func TestVerifyOutput(t *testing.T) {
	root := t.TempDir()
	tree := filepath.Join(root, "tree")
	// A database upstream wrote, with a table file it does not list.
	copyFixtureTo(t, "b10-bs4096-snappy", filepath.Join(tree, "a-ok"))
	table7, _ := os.ReadFile(filepath.Join(tree, "a-ok", "000007.ldb"))
	writeTo(t, filepath.Join(tree, "a-ok", "000099.ldb"), table7)
	// A MANIFEST listing seven tables, none there; and one not listed.
	var live []manifesttest.Table
	for n := uint64(11); n <= 17; n++ {
		live = append(live, manifesttest.Table{Level: 1, Number: n, Size: 1000})
	}
	if err := os.MkdirAll(filepath.Join(tree, "b-missing"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := manifesttest.WriteDB(filepath.Join(tree, "b-missing"), 2, live...); err != nil {
		t.Fatal(err)
	}
	writeTo(t, filepath.Join(tree, "b-missing", "000020.ldb"), table7)
	// A MANIFEST that names no comparator.
	{
		var w manifesttest.Log
		w.Add(new(manifesttest.Edit).Counters(3, 10, 100).B)
		writeTo(t, filepath.Join(tree, "e-nocomparator", "MANIFEST-000002"), w.Bytes())
		writeTo(t, filepath.Join(tree, "e-nocomparator", "CURRENT"), []byte("MANIFEST-000002\n"))
	}
	// Table files shorter and longer than the MANIFEST records.
	copyFixtureTo(t, "b1-bs128-none", filepath.Join(tree, "c-sizes"))
	short, _ := os.ReadFile(filepath.Join(tree, "c-sizes", "000007.ldb"))
	writeTo(t, filepath.Join(tree, "c-sizes", "000007.ldb"), short[:len(short)-1])
	long, _ := os.ReadFile(filepath.Join(tree, "c-sizes", "000009.ldb"))
	writeTo(t, filepath.Join(tree, "c-sizes", "000009.ldb"), append(long, make([]byte, 10)...))
	emptied, _ := os.ReadFile(filepath.Join(tree, "c-sizes", "000012.ldb"))
	writeTo(t, filepath.Join(tree, "c-sizes", "000012.ldb"), nil)
	// A link to a directory outside the tree: a note.
	if err := os.Symlink(root, filepath.Join(tree, "f-out")); err != nil {
		t.Fatal(err)
	}
	// A database that lost CURRENT.
	copyFixtureTo(t, "b16-bs128-snappy", filepath.Join(tree, "d-lost", "db"))
	if err := os.Remove(filepath.Join(tree, "d-lost", "db", "CURRENT")); err != nil {
		t.Fatal(err)
	}
	// Named directly: a table under another name, a file that is no
	// table, a short file, a path that does not exist, and a tree without
	// databases.
	odd := filepath.Join(root, "table.bin")
	writeTo(t, odd, table7)
	notTable := filepath.Join(root, "notes.txt")
	writeTo(t, notTable, []byte("some notes, long enough to have a last 8 bytes"))
	tiny := filepath.Join(root, "tiny")
	writeTo(t, tiny, []byte("abc"))
	empty := filepath.Join(root, "empty.ldb")
	writeTo(t, empty, nil)
	none := filepath.Join(root, "nonexistent")
	loose := filepath.Join(root, "loose")
	writeTo(t, filepath.Join(loose, "sub", "000005.ldb"), table7)
	writeTo(t, filepath.Join(loose, "000006.sst"), table7)

	paths := []string{tree, odd, notTable, tiny, empty, none, loose}
	res := verify.Run(paths, verify.Options{})
	var out, errs bytes.Buffer
	w := &verify.TextWriter{Out: &out, Err: &errs}
	var j verify.VerifyJSON
	for i, it := range res.Items {
		w.Item(it, res.Reports[i])
		j.Add(it, res.Reports[i])
	}

	// The text: what each item prints, in order.
	var wantOut, wantErr []string
	dbs, opened := 0, 0
	for i, it := range res.Items {
		switch {
		case it.Database != nil:
			if dbs > 0 {
				wantOut = append(wantOut, "")
			}
			dbs++
			if it.Database.Opens() {
				opened++
			}
			wantOut = append(wantOut, it.Database.Dir+": database: "+it.Database.Detail())
			for _, l := range it.Database.Logs {
				wantOut = append(wantOut, l.Path+": "+string(l.Verdict)+": "+l.Detail())
			}
		case it.PathErr != nil:
			wantErr = append(wantErr, "ldbcompat: "+it.PathErr.Error())
		case it.Note != "":
			wantErr = append(wantErr, "ldbcompat: "+it.Path+": "+it.Note)
		default:
			r := res.Reports[i]
			verdict := string(r.Verdict)
			if verdict == "" {
				verdict = "skipped"
			}
			wantOut = append(wantOut, r.Path+": "+verdict+": "+r.Detail())
		}
	}
	if got := strings.TrimSuffix(out.String(), "\n"); got != strings.Join(wantOut, "\n") {
		t.Errorf("stdout:\n%s\nwant:\n%s", got, strings.Join(wantOut, "\n"))
	}
	if got := strings.TrimSuffix(errs.String(), "\n"); got != strings.Join(wantErr, "\n") {
		t.Errorf("stderr:\n%s\nwant:\n%s", got, strings.Join(wantErr, "\n"))
	}
	if dbs != 5 || opened != 3 {
		t.Errorf("%d databases, %d opened; want 5, of which 3 open", dbs, opened)
	}

	// What each database and table says, from what the tree holds.
	byPath := map[string]*verify.TableReport{}
	var dbDetail = map[string]string{}
	for i, it := range res.Items {
		if it.Database != nil {
			dbDetail[filepath.Base(it.Database.Dir)] = it.Database.Detail()
		}
		if r := res.Reports[i]; r != nil {
			byPath[r.Path] = r
		}
	}
	for db, wants := range map[string][]string{
		"a-ok":           {"upstream opens it; MANIFEST-000002, comparator leveldb.BytewiseComparator, 3 live tables"},
		"b-missing":      {"upstream cannot open it: Corruption: 7 missing files; e.g.: " + filepath.Join(tree, "b-missing", "000011.ldb"), "000011.ldb, 000012.ldb, 000013.ldb, 000014.ldb, 000015.ldb, and 2 more", "7 live tables"},
		"db":             {"upstream cannot open it", "no CURRENT file, although MANIFEST-000002 is there", "every table file in it is checked, at its own size"},
		"e-nocomparator": {"upstream opens it; MANIFEST-000002, no comparator recorded, 0 live tables"},
	} {
		for _, w := range wants {
			if !strings.Contains(dbDetail[db], w) {
				t.Errorf("database %s: %q lacks %q", db, dbDetail[db], w)
			}
		}
	}
	for path, want := range map[string]string{
		filepath.Join(tree, "a-ok", "000099.ldb"):         "skipped",
		filepath.Join(tree, "b-missing", "000011.ldb"):    "missing",
		filepath.Join(tree, "c-sizes", "000007.ldb"):      "unreadable",
		filepath.Join(tree, "c-sizes", "000009.ldb"):      "ok",
		filepath.Join(tree, "d-lost", "db", "000012.ldb"): "ok",
		odd:      "ok",
		notTable: "skipped",
		tiny:     "skipped",
	} {
		r := byPath[path]
		if r == nil {
			t.Errorf("no report for %s", path)
			continue
		}
		if got := string(r.Verdict); got != want && !(got == "" && want == "skipped") {
			t.Errorf("%s: verdict %q, want %s", path, got, want)
		}
	}
	if r := byPath[filepath.Join(tree, "c-sizes", "000007.ldb")]; r != nil {
		want := fmt.Sprintf("the file has %d bytes, but MANIFEST-000002 records %d for table 7 (upstream opens it at %d bytes)", len(short)-1, len(short), len(short))
		if !strings.HasSuffix(r.Detail(), "; "+want) {
			t.Errorf("shorter file: %q lacks %q at its end", r.Detail(), want)
		}
	}
	if r := byPath[filepath.Join(tree, "c-sizes", "000012.ldb")]; r != nil {
		want := fmt.Sprintf("; the file has 0 bytes, but MANIFEST-000002 records %d for table 12 (upstream opens it at %d bytes)", len(emptied), len(emptied))
		if !strings.HasSuffix(r.Detail(), want) {
			t.Errorf("emptied file: %q lacks %q at its end", r.Detail(), want)
		}
	}
	if r := byPath[filepath.Join(tree, "c-sizes", "000009.ldb")]; r != nil {
		want := fmt.Sprintf("; note: the file has %d bytes, but MANIFEST-000002 records %d for table 9 (upstream opens it at %d bytes, ignoring the 10 after)", len(long)+10, len(long), len(long))
		if !strings.HasSuffix(r.Detail(), want) {
			t.Errorf("longer file: %q lacks %q at its end", r.Detail(), want)
		}
	}
	for _, it := range res.Items {
		if it.Path == loose && (it.PathErr == nil || !strings.HasSuffix(it.PathErr.Error(), "(a database is a directory with a CURRENT file; 2 directories searched); 2 table files outside any database: name them to check them")) {
			t.Errorf("%s: %v; want no database found, 2 directories searched and 2 table files outside any", loose, it.PathErr)
		}
	}
	if r := byPath[filepath.Join(tree, "b-missing", "000011.ldb")]; r == nil ||
		!strings.HasSuffix(r.Detail(), "; upstream cannot open the database (Corruption: 7 missing files; e.g.: "+filepath.Join(tree, "b-missing", "000011.ldb")+")") {
		t.Errorf("a missing table's detail: %v", r)
	}
	if r := byPath[notTable]; r == nil || !r.NotTable {
		t.Errorf("%s: %+v; want no table", notTable, r)
	}

	// The summary.
	s := res.Summary
	if s.Databases != 5 || s.NotOpened != 2 || s.Skipped != 2 || s.NotTables != 2 || s.PathErrors != 2 {
		t.Errorf("summary %+v; want 5 databases, 2 not opened, 2 table files skipped, 2 files no tables, 2 path errors", s)
	}
	if s.Tables != 3+7+3+3+1+1 || s.Verdicts[verify.Missing] != 7 || s.Verdicts[verify.Unreadable] != 3 {
		t.Errorf("summary %+v; want 18 tables, 7 missing, 3 unreadable", s)
	}
	if r := byPath[empty]; r == nil || r.FileSize != 0 || r.Verdict != verify.Unreadable {
		t.Errorf("%s: %+v; want unreadable, 0 bytes", empty, r)
	}
	if s.ExitCode() != verify.ExitPath {
		t.Errorf("exit code %d, want %d for paths not examined", s.ExitCode(), verify.ExitPath)
	}

	// The JSON.
	var js bytes.Buffer
	if err := j.Write(&js, map[string]string{"name": "test"}, s, s.ExitCode()); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Schema    int
		Databases []struct {
			Path          string
			Opened        bool
			Status        string
			Error         string
			LiveTables    int      `json:"live_tables"`
			MissingTables []uint64 `json:"missing_tables"`
			Detail        string
			Tables        []map[string]any
		}
		Tables     []map[string]any
		PathErrors []struct{ Path, Error string } `json:"path_errors"`
		Notes      []struct{ Path, Note string }
		Summary    map[string]any
		ExitCode   int `json:"exit_code"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Schema != verify.JSONSchema || doc.ExitCode != verify.ExitPath || len(doc.Databases) != 5 || len(doc.PathErrors) != 2 || len(doc.Notes) != 1 ||
		doc.Notes[0].Path != filepath.Join(tree, "f-out") || !strings.HasPrefix(doc.Notes[0].Note, "not followed: a symbolic link to a directory outside the tree") {
		t.Fatalf("JSON schema %d, exit %d, %d databases, %d path errors, notes %+v", doc.Schema, doc.ExitCode, len(doc.Databases), len(doc.PathErrors), doc.Notes)
	}
	tables := 0
	for _, d := range doc.Databases {
		if d.Detail != dbDetail[filepath.Base(d.Path)] {
			t.Errorf("JSON database %s: detail %q, want %q", d.Path, d.Detail, dbDetail[filepath.Base(d.Path)])
		}
		switch filepath.Base(d.Path) {
		case "b-missing":
			if d.Opened || d.Status == "" || d.Error == "" || fmt.Sprint(d.MissingTables) != "[11 12 13 14 15 16 17]" || d.LiveTables != 7 {
				t.Errorf("JSON database %+v; want not opened, 7 live tables missing", d)
			}
		case "a-ok":
			if !d.Opened || d.Status != "" || d.Error != "" || len(d.MissingTables) != 0 || d.MissingTables == nil || d.LiveTables != 3 {
				t.Errorf("JSON database %+v; want opened, 3 live tables, none missing", d)
			}
		}
		for _, tj := range d.Tables {
			tables++
			r := byPath[tj["path"].(string)]
			checkTableJSON(t, tj, r)
			if r != nil && (r.DB == nil || r.DB.Dir != d.Path) {
				t.Errorf("JSON lists %s under database %s", r.Path, d.Path)
			}
		}
	}
	for _, tj := range doc.Tables {
		tables++
		r := byPath[tj["path"].(string)]
		checkTableJSON(t, tj, r)
		if r != nil && r.DB != nil {
			t.Errorf("JSON lists %s, of database %s, as a table named directly", r.Path, r.DB.Dir)
		}
	}
	if tables != len(byPath) {
		t.Errorf("JSON holds %d tables, want %d", tables, len(byPath))
	}
	for k, v := range map[string]int{"tables": s.Tables, "skipped_not_live": s.Skipped, "skipped_not_tables": s.NotTables, "databases": s.Databases, "databases_not_opened": s.NotOpened, "path_errors": s.PathErrors} {
		if num(t, doc.Summary, k) != float64(v) {
			t.Errorf("JSON summary %s = %v, want %d", k, doc.Summary[k], v)
		}
	}
	for _, v := range verify.Verdicts {
		if got := num(t, doc.Summary, "verdicts", string(v.Verdict)); got != float64(s.Verdicts[v.Verdict]) {
			t.Errorf("JSON summary: %v tables %s, want %d", got, v.Verdict, s.Verdicts[v.Verdict])
		}
	}
}

// checkTableJSON checks one table of verify's JSON against its report.
func checkTableJSON(t *testing.T, j map[string]any, r *verify.TableReport) {
	t.Helper()
	if r == nil {
		t.Errorf("JSON table %v has no report", j["path"])
		return
	}
	verdict := string(r.Verdict)
	if verdict == "" {
		verdict = "skipped"
	}
	if j["verdict"] != verdict || j["detail"] != r.Detail() {
		t.Errorf("%s: JSON verdict %v, detail %v; want %s, %s", r.Path, j["verdict"], j["detail"], verdict, r.Detail())
	}
	if f := r.Live; f != nil {
		if num(t, j, "level") != float64(f.Level) || num(t, j, "number") != float64(f.Number) || num(t, j, "manifest_size") != float64(f.Size) {
			t.Errorf("%s: JSON level %v, number %v, size %v; want the MANIFEST's %+v", r.Path, j["level"], j["number"], j["manifest_size"], f)
		}
	} else if j["level"] != nil || j["number"] != nil || j["manifest_size"] != nil {
		t.Errorf("%s: JSON has a MANIFEST record, the table is not live", r.Path)
	}
	if r.FileSize >= 0 {
		if num(t, j, "file_size") != float64(r.FileSize) {
			t.Errorf("%s: JSON file size %v, want %d", r.Path, j["file_size"], r.FileSize)
		}
	} else if j["file_size"] != nil {
		t.Errorf("%s: JSON file size %v for a file not opened", r.Path, j["file_size"])
	}
	if off, ok := r.Offset(); ok != (j["offset"] != nil) || ok && num(t, j, "offset") != float64(off) {
		t.Errorf("%s: JSON offset %v, want %d (%v)", r.Path, j["offset"], off, ok)
	}
	read := r.Verdict == verify.OK || r.Verdict == verify.OldFilter || r.Verdict == verify.NoFilter || r.Verdict == verify.OtherFilter || r.Verdict == verify.FilterUnusable || r.Verdict == verify.Mismatch
	if read != (j["keys"] != nil) || read && (num(t, j, "keys") != float64(r.Keys) || num(t, j, "data_blocks") != float64(r.DataBlocks)) {
		t.Errorf("%s (%s): JSON keys %v in %v data blocks; want %d in %d", r.Path, r.Verdict, j["keys"], j["data_blocks"], r.Keys, r.DataBlocks)
	}
	if (r.Err != nil) != (j["error"] != nil) || r.Err != nil && j["error"] != r.Err.Error() {
		t.Errorf("%s: JSON error %v, want %v", r.Path, j["error"], r.Err)
	}
	if r.Verdict == verify.Missing && (r.FileSize != -1 || j["file_size"] != nil) {
		t.Errorf("%s: a missing table has a file size: %d, JSON %v", r.Path, r.FileSize, j["file_size"])
	}
	if c := r.Comparison; c != nil {
		if num(t, j, "filter", "offset") != float64(c.FilterBlockOffset) || num(t, j, "filter", "size") != float64(c.FilterBlockSize) || num(t, j, "filter", "filters") != float64(c.Filters) {
			t.Errorf("%s: JSON filter %v; want %+v", r.Path, j["filter"], c)
		}
		fj := j["filter"].(map[string]any)
		if p := c.Params; p != nil && p.Known {
			pj, _ := fj["params"].(map[string]any)
			if pj == nil || num(t, pj, "min_bits_per_key") != float64(p.MinBitsPerKey) || num(t, pj, "max_bits_per_key") != float64(p.MaxBitsPerKey) ||
				num(t, pj, "k") != float64(p.K) || num(t, pj, "filters_explained") != float64(p.Explained) || num(t, pj, "filters_with_keys") != float64(p.Constrained) ||
				(pj["bits_per_key"] != nil) != (p.MinBitsPerKey == p.MaxBitsPerKey) || pj["bits_per_key"] != nil && num(t, pj, "bits_per_key") != float64(p.BitsPerKey) {
				t.Errorf("%s: JSON params %v; want %+v, bits_per_key only when min = max", r.Path, pj, p)
			}
		} else if fj["params"] != nil {
			t.Errorf("%s: JSON params %v, none inferred", r.Path, fj["params"])
		}
		if (fj["hash"] != nil) != (c.Legacy != "") || c.Legacy != "" && fj["hash"] != c.Legacy {
			t.Errorf("%s: JSON hash %v, want %q", r.Path, fj["hash"], c.Legacy)
		}
		if d := c.Diff; d != nil {
			dj := fj["diff"].(map[string]any)
			if num(t, dj, "offset") != float64(c.FilterBlockOffset)+float64(d.Offset) || num(t, dj, "offset_in_filter_block") != float64(d.Offset) ||
				num(t, dj, "stored") != float64(d.Stored) || num(t, dj, "rebuilt") != float64(d.Rebuilt) || num(t, dj, "stored_size") != float64(d.StoredLen) || num(t, dj, "rebuilt_size") != float64(d.RebuiltLen) {
				t.Errorf("%s: JSON diff %v; want %+v at %d", r.Path, dj, d, c.FilterBlockOffset)
			}
		} else if fj["diff"] != nil {
			t.Errorf("%s: JSON diff %v, none found", r.Path, fj["diff"])
		}
	} else if j["filter"] != nil {
		t.Errorf("%s: JSON filter %v without a comparison", r.Path, j["filter"])
	}
	if fn := r.FalseNegatives; fn != nil {
		fj, _ := j["false_negatives"].(map[string]any)
		if fj == nil || num(t, fj, "keys") != float64(fn.Keys) || num(t, fj, "rejected") != float64(fn.Rejected) || (fj["hash"] != nil) != (r.FNHash != "") {
			t.Fatalf("%s: JSON false negatives %v; want %+v, hash %q", r.Path, fj, fn, r.FNHash)
		}
		if fn.Rejected > 0 {
			if fj["first_key"] != fmt.Sprintf("%x", fn.FirstKey) || num(t, fj, "first_data_block_offset") != float64(fn.FirstBlock.Offset) {
				t.Errorf("%s: JSON first rejected key %v in the block at %v; want %x at %d", r.Path, fj["first_key"], fj["first_data_block_offset"], fn.FirstKey, fn.FirstBlock.Offset)
			}
		} else if fj["first_key"] != nil || fj["first_data_block_offset"] != nil {
			t.Errorf("%s: JSON names a first rejected key, none is", r.Path)
		}
	} else if j["false_negatives"] != nil {
		t.Errorf("%s: JSON false negatives %v, none counted", r.Path, j["false_negatives"])
	}
}

// TestSearch: a search follows no symbolic link, notes one to a directory
// outside the tree, counts the directories it searched, and says so when
// it finds no database; its progress comes every 256 directories, and at
// the end.
func TestSearch(t *testing.T) {
	root := t.TempDir()
	table7, err := os.ReadFile("../../testdata/tables/b10-bs4096-snappy/000007.ldb")
	if err != nil {
		t.Fatal(err)
	}
	one := filepath.Join(root, "one")
	writeTo(t, filepath.Join(one, "000005.ldb"), table7)
	if got := verify.Resolve([]string{one}); len(got) != 1 || got[0].PathErr == nil ||
		!strings.HasSuffix(got[0].PathErr.Error(), "(a database is a directory with a CURRENT file; 1 directory searched); 1 table file outside any database: name it to check it") {
		t.Errorf("one directory, one table file: %+v", got)
	}
	empty := filepath.Join(root, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := verify.Resolve([]string{empty}); len(got) != 1 || got[0].PathErr == nil || !strings.HasSuffix(got[0].PathErr.Error(), "1 directory searched)") {
		t.Errorf("an empty directory: %+v", got)
	}

	tree := filepath.Join(root, "tree")
	copyFixtureTo(t, "b10-bs4096-snappy", filepath.Join(tree, "x", "db"))
	outside := filepath.Join(root, "outside")
	copyFixtureTo(t, "b1-bs128-none", filepath.Join(outside, "db"))
	for link, to := range map[string]string{
		filepath.Join(tree, "a-loop"):   tree,                     // back into the tree: not followed, no note
		filepath.Join(tree, "b-inside"): filepath.Join(tree, "x"), // within it: not followed either
		filepath.Join(tree, "c-out"):    outside,                  // out of it: a note
		filepath.Join(tree, "d-table"):  filepath.Join(tree, "x", "db", "000007.ldb"),
		filepath.Join(tree, "e-broken"): filepath.Join(root, "nothing"),
	} {
		if err := os.Symlink(to, link); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 300; i++ {
		if err := os.MkdirAll(filepath.Join(tree, "y", fmt.Sprintf("d%03d", i)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	var progress [][2]int
	items := verify.ResolveWith([]string{tree}, func(dirs, dbs int) { progress = append(progress, [2]int{dirs, dbs}) })
	var got []string
	for _, it := range items {
		switch {
		case it.Note != "":
			got = append(got, "note "+it.Path+": "+it.Note)
		case it.Database != nil:
			got = append(got, "database "+it.Database.Dir)
		case it.Table != nil:
			got = append(got, "table "+it.Table.Path)
		case it.PathErr != nil:
			got = append(got, "error "+it.PathErr.Error())
		}
	}
	db := filepath.Join(tree, "x", "db")
	want := []string{
		"note " + filepath.Join(tree, "c-out") + ": not followed: a symbolic link to a directory outside the tree (name it to check what it leads to)",
		"database " + db,
		"table " + filepath.Join(db, "000007.ldb"), "table " + filepath.Join(db, "000009.ldb"), "table " + filepath.Join(db, "000012.ldb"),
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("search found:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The tree, x, the database (whose subdirectories are searched too),
	// y and y's 300 directories: 304, with progress at 256 and at the end.
	if fmt.Sprint(progress) != "[[256 1] [304 1]]" {
		t.Errorf("progress %v, want [[256 1] [304 1]]", progress)
	}
}

// TestDetail: each verdict's line says what the table holds, counted from
// the table (one of a thing, or several), and what upstream does with
// paranoid checks (TestDamageDetail: with the default options).
func TestDetail(t *testing.T) {
	one := []table.Entry{{Key: table.InternalKey{UserKey: []byte("only"), Seq: 1, Kind: table.KindValue}, Value: []byte("v")}}
	plain := tabletest.Build(entries(), tabletest.Options{BlockSize: 300})
	blocks := blocksOf(t, plain)
	current := filtercheck.Build(blocks, bloom.NewPolicy(10))
	damaged := bytes.Clone(current)
	damaged[7] ^= 0x01
	layout, _ := filtercheck.ParseLayout(current)
	for _, tc := range []struct {
		name string
		file []byte
		want func(tb *table.Table) string // the whole detail
	}{
		{"one key, filtered", tabletest.Build(one, tabletest.Options{Policy: bloom.NewPolicy(10)}), func(*table.Table) string {
			// 64 bits (the least) whatever the bits/key; k 6 at 9 and 10.
			return "leveldb.BuiltinBloomFilter2, bits/key 9..10, k 6, 1 filter, 1 key; upstream uses the filter"
		}},
		{"one key, no filter", tabletest.Build(one, tabletest.Options{}), func(*table.Table) string {
			return "no filter block, 1 data block, 1 key; upstream reads the table without a filter"
		}},
		{"no filter", plain, func(*table.Table) string {
			return fmt.Sprintf("no filter block, %d data blocks, 400 keys; upstream reads the table without a filter", len(blocks))
		}},
		{"another policy", withMeta(t, plain, []metaEntry{{name: "b.Filter", contents: []byte("x")}, {name: "c.Filter", contents: []byte("y")}}, false), func(*table.Table) string {
			return fmt.Sprintf(`filter of another policy, "b.Filter", "c.Filter" (not checked), %d data blocks, 400 keys; upstream, with its bloom filter policy, ignores it and reads the table without a filter`, len(blocks))
		}},
		{"old filter", withMeta(t, plain, []metaEntry{{name: bloom.LegacyPolicyName, contents: filtercheck.Build(blocks, bloom.NewLegacyPolicy(10, true))}}, false), func(*table.Table) string {
			return fmt.Sprintf("leveldb.BuiltinBloomFilter (signed-char hash: LevelDB v1.17 or older on x86), bits/key 10, k 6, %d filters, 400 keys; LevelDB 1.18 and later ignore it (they look up leveldb.BuiltinBloomFilter2): every lookup of an absent key reads a data block", len(layout.Filters))
		}},
		{"mismatch", withMeta(t, plain, []metaEntry{{name: bloom.PolicyName, contents: damaged}}, false), func(tb *table.Table) string {
			h, _ := tb.FilterHandle()
			d := filtercheck.FirstDiff(damaged, current)
			return fmt.Sprintf("leveldb.BuiltinBloomFilter2, bits/key 10, k 6, %d filters, 400 keys; first difference at filter block %s (file offset %d); the stored filter rejects ",
				len(layout.Filters), d, h.Offset+uint64(d.Offset))
		}},
		{"malformed", withMeta(t, plain, []metaEntry{{name: bloom.PolicyName, contents: []byte{9, 9, 9, 9, 9}}}, false), func(*table.Table) string {
			_, err := filtercheck.ParseLayout([]byte{9, 9, 9, 9, 9})
			return fmt.Sprintf("leveldb.BuiltinBloomFilter2, 0 filters, 400 keys; malformed filter block: %v; first difference at filter block byte 0", err)
		}},
		{"unusable old filter", withMeta(t, plain, []metaEntry{{name: bloom.LegacyPolicyName, contents: current, badCRC: true}}, false), func(*table.Table) string {
			return "filter leveldb.BuiltinBloomFilter that upstream cannot read: "
		}},
		{"unusable filter", withMeta(t, plain, []metaEntry{{name: bloom.PolicyName, contents: current, badCRC: true}}, false), func(*table.Table) string {
			return "filter leveldb.BuiltinBloomFilter2 that upstream cannot read: "
		}},
		{"damaged metaindex", withMeta(t, plain, []metaEntry{{name: bloom.PolicyName, contents: current}}, true), func(*table.Table) string {
			return "damaged metaindex block, where upstream finds no filter: "
		}},
		// Upstream opens the table (footer, index, metaindex) and its
		// scan fails at the damaged data block.
		{"scan fails", func() []byte {
			f := bytes.Clone(plain)
			f[blocks[1].Handle.Offset+3] ^= 0x40
			return f
		}(), func(*table.Table) string {
			return "upstream opens it, but its full scan fails: Corruption: block checksum mismatch; "
		}},
		// The legacy hashes reject keys alike when a filter is all
		// zero: the count is the unsigned hash's; where the signed hash
		// wrote the block, it rejects fewer, and its count is given.
		{"old filter, zeroed", withMeta(t, plain, []metaEntry{{name: bloom.LegacyPolicyName, contents: zeroFilters(t, filtercheck.Build(blocks, bloom.NewLegacyPolicy(10, true)))}}, false), func(*table.Table) string {
			return "mismatch"
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tb, err := table.Open("t", bytes.NewReader(tc.file), int64(len(tc.file)))
			if err != nil {
				t.Fatal(err)
			}
			r := checkFileWith(t, tc.file, verify.Options{Paranoid: true})
			if tc.name == "old filter, zeroed" {
				if r.FalseNegatives == nil || r.FalseNegatives.Rejected != 400 || r.FNHash != filtercheck.LegacyUnsigned ||
					!strings.Contains(r.Detail(), "the stored filter with the unsigned hash rejects 400 of the table's 400 keys") {
					t.Errorf("every key rejected by both hashes: %+v, %q: %s", r.FalseNegatives, r.FNHash, r.Detail())
				}
				return
			}
			c := *r
			c.Other = nil // the other option set's words come last: TestDamageDetail
			got, want := c.Detail(), tc.want(tb)
			if got != want && !strings.HasPrefix(got, want) {
				t.Errorf("detail:\n%s\nwant (at its start):\n%s", got, want)
			}
			// An unusable filter of the old name: LevelDB 1.18 and later
			// would not use it anyway.
			if r.Verdict == verify.FilterUnusable && r.Policy != "" {
				const anyway = "; upstream silently reads the table without its filter (LevelDB 1.18 and later ignore a filter of that name anyway)"
				if legacy := r.Policy == bloom.LegacyPolicyName; strings.HasSuffix(got, anyway) != legacy {
					t.Errorf("%s: %q: says they ignore it anyway: %v, want %v", r.Policy, got, !legacy, legacy)
				}
			}
		})
	}
}

// checkFPR checks dump's false-positive rate against filtercheck's, asked
// with the policy that wrote the block: NewPolicy at the inferred bits per
// key, or the legacy policy with the hash that reproduces the block
// (either, when both do); the expectation only for a block its policy
// writes.
func checkFPR(t *testing.T, tb *table.Table, contents []byte, l *filtercheck.Layout, d *verify.Dump, doc map[string]any) {
	t.Helper()
	c := d.Comparison
	blocks, err := filtercheck.ReadKeys(tb)
	if err != nil {
		t.Fatal(err)
	}
	var p bloom.FilterPolicy
	switch c.Policy {
	case bloom.PolicyName:
		p = bloom.NewPolicy(c.Params.BitsPerKey)
	default:
		p = bloom.NewLegacyPolicy(c.Params.BitsPerKey, c.Legacy == filtercheck.LegacySigned)
	}
	want := filtercheck.MeasureFPR(contents, l, blocks, p, 2000, 3)
	if c.Match == filtercheck.MatchOK {
		filtercheck.ExpectFilters(&want, contents, l, blocks, p, 3)
	}
	fpr, _ := doc["fpr"].(map[string]any)
	if fpr == nil || num(t, fpr, "samples") != float64(want.Samples) || num(t, fpr, "false_positives") != float64(want.FalsePositives) ||
		num(t, fpr, "independent_hash") != want.Theoretical || (fpr["expected"] != nil) != !math.IsNaN(want.Expected) ||
		fpr["expected"] != nil && num(t, fpr, "expected") != want.Expected {
		t.Errorf("JSON fpr %v; want %+v", fpr, want)
	}
	if c.Match != filtercheck.MatchOK && fpr != nil && fpr["expected"] != nil {
		t.Errorf("an expectation for a block its policy does not write: %v", fpr)
	}
}

// zeroFilters clears every filter's bits in a filter block, keeping the k
// bytes: every key is rejected.
func zeroFilters(t *testing.T, block []byte) []byte {
	t.Helper()
	b := bytes.Clone(block)
	l, err := filtercheck.ParseLayout(b)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range l.Filters {
		if f.Len > 0 {
			clear(b[f.Offset : f.Offset+f.Len-1])
		}
	}
	return b
}

// TestSummaryExitCode: a verdict counted zero times raises nothing;
// tables skipped count as something examined.
func TestSummaryExitCode(t *testing.T) {
	for _, tc := range []struct {
		s    verify.Summary
		want int
	}{
		{verify.Summary{Tables: 1, Verdicts: map[verify.Verdict]int{verify.OK: 1, verify.Unreadable: 0}}, verify.ExitOK},
		{verify.Summary{Tables: 1, Skipped: 1, Verdicts: map[verify.Verdict]int{verify.OK: 1}}, verify.ExitOK},
		{verify.Summary{Skipped: 1}, verify.ExitOK},
		{verify.Summary{Databases: 1}, verify.ExitOK},
		{verify.Summary{}, verify.ExitPath},
		{verify.Summary{Tables: 2, Verdicts: map[verify.Verdict]int{verify.OK: 1, verify.Mismatch: 1}}, verify.ExitDamage},
	} {
		if got := tc.s.ExitCode(); got != tc.want {
			t.Errorf("%+v: exit %d, want %d", tc.s, got, tc.want)
		}
	}
}

// TestDumpOfOthers: dump prints a database's line followed by a blank
// line, and a path's error on stderr.
func TestDumpOfOthers(t *testing.T) {
	dir := t.TempDir()
	copyFixtureTo(t, "b10-bs4096-snappy", dir)
	items := verify.Resolve([]string{dir, filepath.Join(dir, "nothing")})
	var out, errs bytes.Buffer
	w := &verify.TextWriter{Out: &out, Err: &errs}
	w.Dump(items[0], nil)
	want := dir + ": database: " + items[0].Database.Detail() + "\n"
	for _, l := range items[0].Database.Logs {
		want += l.Line() + "\n"
	}
	if want += "\n"; out.String() != want {
		t.Errorf("stdout %q, want %q", out.String(), want)
	}
	out.Reset()
	w.Dump(items[len(items)-1], nil)
	if out.Len() != 0 {
		t.Errorf("a path's error printed %q on stdout", out.String())
	}
	if want := "ldbcompat: " + items[len(items)-1].PathErr.Error() + "\n"; errs.String() != want {
		t.Errorf("stderr %q, want %q", errs.String(), want)
	}
}

// TestNamedFiles: a file named on the command line is a table when named
// like one or when its last 8 bytes are a table's magic number, even
// with nothing before them.
func TestNamedFiles(t *testing.T) {
	dir := t.TempDir()
	magic := binary.LittleEndian.AppendUint64(nil, table.Magic)
	foreign, _ := filepath.Glob("../../testdata/foreign/*/*.sst")
	if len(foreign) == 0 {
		t.Fatal("no foreign tables")
	}
	rocks, err := os.ReadFile(foreign[0])
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		data  []byte
		table bool
	}{
		"magic8":  {magic, true},
		"magic7":  {magic[1:], false},
		"foreign": {rocks, true},
		"text":    {[]byte("not a table at all, but long"), false},
	} {
		p := filepath.Join(dir, name)
		writeTo(t, p, tc.data)
		items := verify.Resolve([]string{p})
		if len(items) != 1 || items[0].Table == nil || items[0].Table.NotTable == tc.table {
			t.Errorf("%s: %+v; want a table %v", name, items, tc.table)
		}
	}
}

// TestSearchThroughLink: a tree named through a symbolic link is the
// tree: links within it are within it.
func TestSearchThroughLink(t *testing.T) {
	root := t.TempDir()
	tree := filepath.Join(root, "tree")
	copyFixtureTo(t, "b10-bs4096-snappy", filepath.Join(tree, "x", "db"))
	if err := os.Symlink(filepath.Join(tree, "x"), filepath.Join(tree, "back")); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(root, "link")
	if err := os.Symlink(tree, link); err != nil {
		t.Fatal(err)
	}
	for _, it := range verify.Resolve([]string{link}) {
		if it.Note != "" || it.PathErr != nil {
			t.Errorf("through a link to the tree: %s: %s%v", it.Path, it.Note, it.PathErr)
		}
	}
}

// TestDumpNoSamples: with no absent keys to ask, dump measures nothing and
// expects nothing: no line of false positives, no expectation in JSON.
func TestDumpNoSamples(t *testing.T) {
	p := filepath.Join(t.TempDir(), "000005.ldb")
	writeTo(t, p, tabletest.Build(entries(), tabletest.Options{BlockSize: 300, Policy: bloom.NewPolicy(10)}))
	it := verify.Item{Table: &verify.Target{Path: p}, Path: p}
	d := verify.NewDump(verify.Examine(it.Table, verify.Options{Keep: true}), 0, 1)
	var out bytes.Buffer
	(&verify.TextWriter{Out: &out, Err: &out}).Dump(it, d)
	if strings.Contains(out.String(), "false positives") {
		t.Errorf("a line of false positives for no samples:\n%s", out.String())
	}
	var j verify.DumpJSON
	j.Add(it, d)
	var js bytes.Buffer
	if err := j.Write(&js, "test", verify.Summary{}, 0); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Tables []struct{ FPR map[string]any }
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if f := doc.Tables[0].FPR; f == nil || f["samples"] != 0.0 || f["expected"] != nil {
		t.Errorf("JSON fpr %v; want 0 samples and no expectation", f)
	}
}

// filterBlockOf lays out filters as a filter block of base lg 11.
func filterBlockOf(filters ...[]byte) []byte {
	var b, offs []byte
	for _, f := range filters {
		offs = binary.LittleEndian.AppendUint32(offs, uint32(len(b)))
		b = append(b, f...)
	}
	arr := uint32(len(b))
	b = append(b, offs...)
	b = binary.LittleEndian.AppendUint32(b, arr)
	return append(b, 11)
}

// TestMetaindexDamagedPastTheSeek: upstream's seek for its filter's entry
// stops at the first entry not less than it, before a damaged one: it
// finds no filter and reads the table without one, as verify says
// (filter-unusable, the damage named) rather than no-filter.
func TestMetaindexDamagedPastTheSeek(t *testing.T) {
	plain := tabletest.Build(entries(), tabletest.Options{BlockSize: 300})
	tb, err := table.Open("base", bytes.NewReader(plain), int64(len(plain)))
	if err != nil {
		t.Fatal(err)
	}
	out := append([]byte(nil), plain[:tb.MetaindexHandle().Offset]...)
	out, h := tabletest.AppendBlock(out, []byte("x"), table.NoCompression)
	handle := table.AppendBlockHandle(nil, h)
	first := table.FilterPrefix + bloom.PolicyName + "3" // after the bloom filter's name
	meta := tabletest.EncodeBlock([]tabletest.KV{{Key: []byte(first), Value: handle}, {Key: []byte(table.FilterPrefix + "zz"), Value: handle}}, 16)
	second := 3 + len(first) + len(handle) // the first entry: three one-byte varints, key, value
	if meta[second] != byte(len(table.FilterPrefix)) {
		t.Fatalf("setup: the second entry shares %d bytes, want %d", meta[second], len(table.FilterPrefix))
	}
	meta[second] = 0x7f // shares more than the first key has
	out, mh := tabletest.AppendBlock(out, meta, table.NoCompression)
	ih := tb.IndexHandle()
	newIH := table.BlockHandle{Offset: uint64(len(out)), Size: ih.Size}
	out = append(out, plain[ih.Offset:ih.End()]...)
	r := checkFile(t, tabletest.AppendFooter(out, mh, newIH))
	if r.Verdict != verify.FilterUnusable || r.Policy != "" || r.UnusableErr == nil || !strings.HasPrefix(r.Detail(), "damaged metaindex block, where upstream finds no filter: ") {
		t.Errorf("%s, policy %q, %v: %s", r.Verdict, r.Policy, r.UnusableErr, r.Detail())
	}
}
