package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
)

// kitOutside is the code of bloom beyond compat.Port's hooks, which
// bloom's own tests judge.
var kitOutside = []outside{
	{Func: "HashSignedTail", Why: legacyWhy},
	{Func: "NewLegacyPolicy", Why: legacyWhy},
	{Func: "(*bloomPolicy).KeyMayMatch", Text: "int32(int8(b))", Why: legacyWhy},
	{Func: "(*bloomPolicy).SeedHash", Why: hashesWhy},
}

// blockOutside is the same for internal/filterblock: what only
// filtercheck uses.
var blockOutside = []outside{
	{Func: "BitsPerKeyForProbes", Why: inverseWhy},
	{Func: "BitsPerKeyForLen", Why: inverseWhy},
	{Func: "AppendFilterPrefix", Why: inverseWhy},
	{Func: "(*Builder).AddHashes", Why: hashesWhy},
}

// logOutside is the code of internal/logfile beyond a port's log writer
// and reader: verify's, which logfile's own tests judge.
var logOutside = []outside{
	{File: "recover.go", Why: logRecoverWhy},
	{File: "batch.go", Why: logRecoverWhy},
	{File: "walk.go", Why: logRecoverWhy},
	{File: "diagnose.go", Why: logDiagnoseWhy},
	{File: "seek_linux.go", Why: logSeekWhy},
	{File: "seek_other.go", Why: logSeekWhy},
	{Func: "(*Reader).skipHole", Why: logSeekWhy},
	{Func: "(*Reader).readPhysical", Text: "r.zeros", Why: logSeekWhy},
	{Func: "NewReader", Text: "opts.Type == base.NoFile", Why: logTypeWhy},
	{Func: "TypeString", Why: logReportWhy},
	{Func: "(*Reader).Next", Text: "inFragment && r.scratchLen > 0", Why: logReportWhy},
	{Func: "(*Reader).Next", Text: "zeros := r.hType == TypeZero", Why: logReportWhy},
	{Func: "(*Reader).Next", Text: "d.Start, d.Bytes, d.Records =", Why: logReportWhy},
	{Func: "(*Reader).readPhysical", Text: "r.hType, r.hLen = -1, 0", Why: logReportWhy},
	{Func: "(*Reader).readPhysical", Text: "typ == TypeBad && r.opts.OnSkip != nil", Why: logReportWhy},
	{Func: "(*Reader).readPhysical", Text: "r.opts.OnSkip(Skip{Kind: SkipBadType", Why: logReportWhy},
	{Func: "(*Reader).readPhysical", Text: `status == ""`, Why: logIOWhy},
	{Func: "(*Reader).readPhysical", Text: `status = "IO error: "`, Why: logIOWhy},
	{Func: "(*Reader).readPhysical", Text: "Status: status, Err: err", Why: logIOWhy},
	{Func: "(*Reader).readPhysical", Text: "at = r.end - int64(len(r.buf))", Why: logOffsetWhy},
	{Func: "NewReader", Text: "End{Pending: -1}", Why: logEndWhy},
	{Func: "(*Reader).readPhysical", Text: "r.ended.Offset = r.end - int64(len(r.buf))", Why: logEndWhy},
	{Func: "(*Reader).readPhysical", Text: "if len(r.buf) > 0 {", Why: logEndWhy},
	{Func: "(*Reader).readPhysical", Text: "if typ == TypeEOF {", Why: logEndWhy},
	{Func: "(*Reader).finish", Why: logEndWhy},
	{Func: "(*Reader).assemble", Text: "r.scratchLen <= r.opts.MaxRecord", Why: logMaxWhy},
}

// tableOutside is the code of internal/table beyond a port's table writer
// and its reader of every entry: verify's, which the table targets judge.
var tableOutside = []outside{
	{File: "get.go", Why: tableGetWhy},
	{File: "filter.go", Why: tableGetWhy},
	{File: "checksum.go", Why: tableChecksumWhy},
	{File: "file.go", Why: tableFileWhy},
	{Func: "(*blockIter).seek", Why: tableGetWhy},
	{Func: "(*recordingPolicy).KeyMayMatch", Why: tableGetWhy},
	{Func: "(*Table).readMetaindex", Why: tableMetaWhy},
	{Func: "(*Table).MetaindexError", Why: tableMetaWhy},
	{Func: "(*Table).walkKeys", Why: tableKeysWhy},
	{Func: "(*Table).ReadDataBlock", Why: tableKeysWhy},
	{Func: "(*Table).BlockKeys", Why: tableKeysWhy},
	{Func: "(*Table).DataBlocks", Why: tableKeysWhy},
	{Func: "(*Table).DataKeys", Why: tableKeysWhy},
	{Func: "newKeyBudget", Why: tableKeysWhy},
	{Func: "(*keyBudget).take", Why: tableKeysWhy},
	{Func: "verdict", Why: tableKeysWhy},
	{Func: "ParseInternalKey", Why: tableKeysWhy},
	{Func: "(*Table).ReadBlock", Why: tableKeysWhy},
	{Func: "OpenBytesReusingWith", Text: "prev == nil", Why: tableReuseWhy},
	{Func: "(*Table).readIndex", Text: "e.Separator == nil", Why: tableSepWhy},
	{Func: "BlockHandle.End", Why: tableEndWhy},
	{Func: "named", Why: tableMsgWhy},
	{Func: "blockName.String", Why: tableMsgWhy},
	{Func: "handleText", Why: tableMsgWhy},
	{Func: "truncate", Why: tableMsgWhy},
	{Func: "(*Table).readFooter", Text: "ForeignTable(magic); kind != \"\"", Why: tableMsgWhy},
	{Func: "(*Table).readFooter", Text: "msg += \" (\"", Why: tableMsgWhy},
	{Func: "(*Table).readFooter", Text: "off+FooterSize-8", Why: tableOffsetWhy},
	{Func: "(*Table).readFooter", Text: "off+uint64(n), statusBadHandle", Why: tableOffsetWhy},
	{Func: "(*Table).blockErrorf", Why: tableOffsetWhy},
	{Func: "(*blockIter).valueAt", Why: tableOffsetWhy},
	{Func: "(*Table).Scan", Text: "if w.b.Compression == NoCompression {", Why: tableOffsetWhy},
	{Func: "(*blockIter).parseNext", Text: "it.index++", Why: tableOffsetWhy},
	{Func: "(*Table).readBlock", Text: "claims to decode to", Why: tableOffsetWhy},
	{Func: "(*Table).readBlock", Text: "t.statusErrorf(h.Offset+n, statusBlockType", Why: tableOffsetWhy},
	{Func: "(*Table).readBlock", Text: "t.noteChecksumFailure(", Why: tableChecksumWhy},
	{Func: "(*Table).readBlock", Text: "allocHook(", Why: tableAllocWhy},
	{Func: "compareInternal", Why: tableOrderWhy},
	{Func: "(*Writer).Add", Text: "compareInternal(key, w.lastKey); c <= 0", Why: tableOrderWhy},
	{Func: "(*Writer).Add", Text: "w.entries++", Why: tableOrderWhy},
	// survivors.txt cannot quote this line (it holds " | ").
	{Func: "snappyTags", Text: "length = length<<8 | uint64(src[s+i])", Why: tableSlowLiteralWhy},
}

// Why code lies outside the kit's judgement.
const (
	legacyWhy  = "the policy of LevelDB v1.4 to v1.17 (NewLegacyPolicy, its signed-char hash), which 1.23 ignores and the kit does not check: a port is checked for 1.23's filter"
	inverseWhy = "filtercheck's arithmetic on filters already written (the bits/key a stored filter implies, a filter's first bytes), which a port does not have"
	hashesWhy  = "filtercheck's way of handing the builder hashes it computed itself, which a port does not have"

	logRecoverWhy  = "what verify makes of a log's records (RecoverLogFile's batches, sequence gaps, the walk dump prints), beyond the records a port's reader returns: logfile's own tests judge it"
	logDiagnoseWhy = "verify's account of dropped bytes (the flipped bit, the records lost in them), which a port's reader does not give: logfile's own tests judge it"
	logSeekWhy     = "skipping a sparse file's holes, a reader of files on disk; the kit hands ReadLog bytes"
	logReportWhy   = "what the reader reports to OnDrop (upstream's Reporter: a drop's bytes, type, status) and OnSkip (what upstream skips unreported), not the records it returns, all ReadLog gives: logfile's live tests hold the reports to upstream's"
	logEndWhy      = "how reading ended (End: where, a torn tail, a type 5 marker, a pending record), verify's account once the records are returned: logfile's own tests judge it"
	logOffsetWhy   = "a physical record's offset (Record.Offset, upstream's LastRecordOffset, and the reports'), which ReadLog does not return: logfile's live tests hold it to upstream's"
	logIOWhy       = "the report of a read that fails, which bytes in memory (all the kit hands ReadLog) never do: verify's fault tests fail reads"
	logTypeWhy     = "the file type the reader's errors name (a log or a MANIFEST), which ReadLog's records do not show"
	logMaxWhy      = "the most the reader holds of one record (Options.MaxRecord, 256 MiB by default), a bound of this reader that upstream does not have, far past the kit's records"

	tableGetWhy         = "point lookups through the index and the filter (Table.Get), which ReadTable, a scan of every entry, does not make: internal/table's own tests and the database properties judge them"
	tableChecksumWhy    = "verify's account of checksum failures under LevelDB's defaults (which block, which bit flipped), beyond the error a port's reader returns"
	tableFileWhy        = "opening and mapping table files on disk; the kit hands ReadTable bytes"
	tableMetaWhy        = "the metaindex, which names the filter block only Get uses: Table::Open ignores its errors (ReadMeta), so no entry of a scan depends on it"
	tableKeysWhy        = "verify's readers of the keys it keeps (DataKeys, DataBlocks, ReadDataBlock, BlockKeys, ReadBlock: keys parsed as internal keys, a memory bound), which the scan ReadTable makes does not call: internal/table's own tests judge them"
	tableReuseWhy       = "reopening a table in a previous one's buffers, verify's way of checking many tables; OpenBytes does not"
	tableSepWhy         = "the index entries' separators as verify lists them; a scan follows the index's handles only"
	tableEndWhy         = "where a block's trailer ends, which only verify's reports use (and the kit's damage, through the unmutated module)"
	tableMsgWhy         = "the words and bytes an error message shows, not whether reading fails or which entries it returns"
	tableOffsetWhy      = "the file offset or entry number an error or a ScanEntry names (upstream has none of them), not whether reading fails or which entries it returns"
	tableAllocWhy       = "a test hook told of each allocation upstream's ReadBlock makes (internal/table's bounds tests), which does nothing in a scan"
	tableSlowLiteralWhy = "the slow loop's literal of over 60 bytes, which needs one of 61 to 63 bytes ending a block's stream: upstream ends each block with its restart array, whose offsets its compressor matches against the entries' bytes, so the kit's tables have none (internal/table's own tests decode crafted ones)"
	tableOrderWhy       = "the writer's check that its input is in internal key order, which the kit's entries always are (upstream's TableBuilder::Add only asserts it): the bytes of a table are the same"
)

// kitPackages returns the packages, by their directory here and in the
// scratch module, that t's module copies: bloom with internal/filterblock,
// which it wraps, or t's package alone.
func kitPackages(t target) [][2]string {
	if t.Pkg == "bloom" || t.Pkg == "internal/filterblock" {
		return [][2]string{{"bloom", "bloom"}, {"internal/filterblock", "filterblock"}}
	}
	return [][2]string{{t.Pkg, path.Base(t.Pkg)}}
}

// kitImport rewrites the import of internal/filterblock to the copy's, on
// the same line, so that a mutant's position stays.
func kitImport(b []byte) []byte {
	return bytes.ReplaceAll(b, []byte(`"github.com/ldbcompat/ldbcompat/internal/filterblock"`), []byte(`"`+kitModulePath+`/filterblock"`))
}

// kitModule writes the scratch module of t: a line-for-line copy of its
// packages' files and kitTest in each, and returns its directory. With
// diff it is a git repository of two commits, the packages as at the
// merge base of diff and HEAD, then as now, for gremlins' diff to HEAD~1.
func kitModule(root, diff string, t target) (string, error) {
	dir := filepath.Join(root, ".cache", "mutants", "kit")
	if err := os.RemoveAll(dir); err != nil {
		return "", err
	}
	gomod := fmt.Sprintf("module %s\n\ngo 1.22\n\nrequire github.com/ldbcompat/ldbcompat v0.0.0\n\nreplace github.com/ldbcompat/ldbcompat => %s\n", kitModulePath, root)
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		return "", err
	}
	files := map[string][]byte{"go.mod": []byte(gomod), "go.sum": sum}
	for _, p := range kitPackages(t) {
		if err := os.MkdirAll(filepath.Join(dir, p[1]), 0o755); err != nil {
			return "", err
		}
		files[p[1]+"/kit_test.go"] = []byte(kitTest(p[1]))
	}
	if err := writeFiles(dir, files); err != nil {
		return "", err
	}
	if diff != "" {
		base, err := git(root, "merge-base", diff, "HEAD")
		if err != nil {
			return "", err
		}
		base = strings.TrimSpace(base)
		old := map[string][]byte{}
		for _, p := range kitPackages(t) {
			names, err := git(root, "ls-tree", "--name-only", base, p[0]+"/")
			if err != nil {
				return "", err
			}
			for _, n := range strings.Fields(names) {
				if !kitSource(path.Base(n)) {
					continue
				}
				b, err := git(root, "show", base+":"+n)
				if err != nil {
					return "", err
				}
				old[p[1]+"/"+path.Base(n)] = kitImport([]byte(b))
			}
		}
		if err := writeFiles(dir, old); err != nil {
			return "", err
		}
		if err := kitCommit(dir, "the packages at "+base, true); err != nil {
			return "", err
		}
		for n := range old {
			if err := os.Remove(filepath.Join(dir, filepath.FromSlash(n))); err != nil {
				return "", err
			}
		}
	}
	now := map[string][]byte{}
	for _, p := range kitPackages(t) {
		src := filepath.Join(root, filepath.FromSlash(p[0]))
		ents, err := os.ReadDir(src)
		if err != nil {
			return "", err
		}
		for _, e := range ents {
			if e.IsDir() || !kitSource(e.Name()) {
				continue
			}
			b, err := os.ReadFile(filepath.Join(src, e.Name()))
			if err != nil {
				return "", err
			}
			now[p[1]+"/"+e.Name()] = kitImport(b)
		}
	}
	if err := writeFiles(dir, now); err != nil {
		return "", err
	}
	if diff != "" {
		if err := kitCommit(dir, "the packages now", false); err != nil {
			return "", err
		}
	}
	return dir, nil
}

// writeFiles writes files, by their slash-separated names under dir.
func writeFiles(dir string, files map[string][]byte) error {
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(name)), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// kitSource tells whether name is a file the kit mutates or builds: Go
// files and assembly, not tests.
func kitSource(name string) bool {
	return !strings.HasSuffix(name, "_test.go") && (strings.HasSuffix(name, ".go") || strings.HasSuffix(name, ".s"))
}

// kitCommit commits everything in dir, making it a repository first if
// init.
func kitCommit(dir, msg string, init bool) error {
	if init {
		if _, err := git(dir, "init", "-q"); err != nil {
			return err
		}
	}
	if _, err := git(dir, "add", "-A"); err != nil {
		return err
	}
	_, err := git(dir, "-c", "user.name=make mutants", "-c", "user.email=mutants@localhost", "commit", "-q", "--allow-empty", "--no-verify", "-m", msg)
	return err
}

// git runs git with args in dir and returns its output.
func git(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s (in %s): %w: %s", strings.Join(args, " "), dir, err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}

// kitModulePath is under this module's path, so that the kit test may use
// its internal packages.
const kitModulePath = "github.com/ldbcompat/ldbcompat/mutants/kit"

// kitTest is the test of the copy of package pkg in the scratch module:
// the kit with every hook the copy can serve (filterblock's through the
// copy of bloom).
func kitTest(pkg string) string {
	port, std, imports, run, hooks := "bloom", "", kitTableDBImports, "compat.TestPort", kitBloomHooks
	switch pkg {
	case "logfile":
		port, std, imports, run, hooks = pkg, "\t\"bytes\"\n\t\"errors\"\n\t\"io\"\n", kitKitImport, "kit.TestPortEndToEnd", kitLogHooks
	case "table":
		port, std, imports, run, hooks = pkg, "", kitKitImport, "kit.TestPortEndToEnd", kitTableHooks
	}
	return fmt.Sprintf(`package %[1]s_test

import (
%[3]s	"testing"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/compat"
%[4]s	port "%[6]s/%[2]s"
)

func TestKit(t *testing.T) {
	%[5]s(t, compat.Port{
		Name:      "%[2]s (mutated)",
%[7]s	})
}
`, pkg, port, std, imports, run, kitModulePath, hooks)
}

// The imports of the kit tests beyond bloom and compat.
const (
	kitKitImport      = "\t\"github.com/ldbcompat/ldbcompat/internal/kit\"\n"
	kitTableDBImports = "\t\"github.com/ldbcompat/ldbcompat/internal/table/tabletest\"\n\t\"github.com/ldbcompat/ldbcompat/internal/tabledb\"\n"
)

// kitBloomHooks are the copy of bloom's policy, filter block builder and
// reader, and ReadDB and WriteDB putting them around a minimal table
// reader and writer (internal/tabledb).
const kitBloomHooks = `		Hash:      port.Hash,
		NewPolicy: func(b int) bloom.FilterPolicy { return port.NewPolicy(b) },
		NewFilterBlockBuilder: func(p bloom.FilterPolicy) compat.FilterBlockBuilder {
			return port.NewFilterBlockBuilder(p)
		},
		NewFilterBlockReader: func(p bloom.FilterPolicy, c []byte) compat.FilterBlockReader {
			return port.NewFilterBlockReader(p, c)
		},
		ReadDB: func(dir string, bits int, keys [][]byte) ([]bool, error) {
			return tabledb.Read(dir, port.NewPolicy(bits), func(p bloom.FilterPolicy, c []byte) tabledb.FilterBlockReader {
				return port.NewFilterBlockReader(p, c)
			}, keys)
		},
		WriteDB: func(dir string, kvs [][2][]byte, bits int) error {
			return tabledb.Write(dir, kvs, port.NewPolicy(bits), func(p bloom.FilterPolicy) tabletest.FilterBlockBuilder {
				return port.NewFilterBlockBuilder(p)
			})
		},
`

// kitTableHooks are internal/table's writer, with bloom's policy, and its
// reader scanning every entry, checksums verified.
const kitTableHooks = `		NewPolicy: bloom.NewPolicy,
		WriteTable: func(entries []compat.Entry, o compat.TableOptions) ([]byte, error) {
			wo := port.WriterOptions{BlockSize: o.BlockSize, RestartInterval: o.RestartInterval, Snappy: o.Snappy}
			if o.BitsPerKey > 0 {
				wo.Policy = bloom.NewPolicy(o.BitsPerKey)
			}
			w, err := port.NewWriter(wo)
			if err != nil {
				return nil, err
			}
			for _, e := range entries {
				if err := w.Add(e.Key, e.Value); err != nil {
					return nil, err
				}
			}
			return w.Finish(), nil
		},
		ReadTable: func(contents []byte) ([]compat.Entry, error) {
			tb, err := port.OpenBytes("table", contents, int64(len(contents)))
			if err != nil {
				return nil, err
			}
			var out []compat.Entry
			err = tb.Scan(func(e port.ScanEntry) error {
				out = append(out, compat.Entry{Key: append([]byte(nil), e.Key...), Value: append([]byte(nil), e.Value...)})
				return nil
			})
			return out, err
		},
`

// kitLogHooks are internal/logfile's writer and reader, with checksums
// verified and nothing but records asked.
const kitLogHooks = `		NewPolicy: bloom.NewPolicy,
		WriteLog:  func(recs [][]byte) ([]byte, error) { return port.WriteLog(recs), nil },
		ReadLog: func(data []byte) ([][]byte, error) {
			r := port.NewReader(bytes.NewReader(data), "log", port.Options{NoDiagnosis: true})
			var recs [][]byte
			for {
				rec, err := r.Next()
				if errors.Is(err, io.EOF) {
					return recs, nil
				}
				if err != nil {
					return recs, err
				}
				recs = append(recs, bytes.Clone(rec.Data))
			}
		},
`
