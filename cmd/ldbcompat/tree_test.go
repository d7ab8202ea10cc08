package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ldbcompat/ldbcompat/internal/faultfs"
	"github.com/ldbcompat/ldbcompat/internal/verify"
)

// treeDBs is where TestVerifyTree puts each committed database, below its
// root: nested at several depths, as a browser profile or a node's data
// directory holds them, names with spaces included.
var treeDBs = map[string]string{
	"profile/Default/IndexedDB/https_example.org_0.indexeddb.leveldb": "../../testdata/tables/b10-bs4096-snappy",
	"profile/Default/Local Storage/leveldb":                           "../../testdata/tables/b1-bs128-none",
	"node/geth/chaindata":                                             "../../testdata/other/goleveldb",
	"node/blocks/index":                                               "../../testdata/other/java-compacted",
	"deep/a/b/c/d/e/plyvel":                                           "../../testdata/other/plyvel-b10-bs4096-snappy",
	"node/pebble":                                                     "../../testdata/foreign/pebble-v2",
	// A database inside another's directory, as Chromium keeps
	// shared_proto_db/metadata.
	"profile/Default/shared_proto_db":          "../../testdata/tables/b16-bs128-snappy",
	"profile/Default/shared_proto_db/metadata": "../../testdata/tables/b5-bs1024-snappy",
}

// buildTree lays out treeDBs under a new directory, with what a real tree
// also holds: a file that is no table, a table file outside any database,
// a symbolic link loop, a link to a database outside the tree, and an
// empty directory. It returns the root and the database outside.
func buildTree(t *testing.T) (root, outside string) {
	t.Helper()
	base := t.TempDir()
	root = filepath.Join(base, "tree")
	for rel, src := range treeDBs {
		copyTree(t, src, filepath.Join(root, rel))
	}
	writeFile(t, filepath.Join(root, "profile", "Local State"), []byte("{}\n"))
	loose, err := os.ReadFile("../../testdata/tables/b5-bs1024-snappy/000007.ldb")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "backup"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(root, "backup", "000007.ldb"), loose)
	if err := os.MkdirAll(filepath.Join(root, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(root, filepath.Join(root, "deep", "a", "loop")); err != nil {
		t.Fatal(err)
	}
	outside = filepath.Join(base, "elsewhere", "db")
	copyTree(t, "../../testdata/tables/b16-bs128-snappy", outside)
	if err := os.Symlink(outside, filepath.Join(root, "node", "linked")); err != nil {
		t.Fatal(err)
	}
	return root, outside
}

// treeJSON is what TestVerifyTree reads of `verify --json`.
type treeJSON struct {
	Databases []struct {
		Path   string `json:"path"`
		Opened bool   `json:"opened"`
		Kind   string `json:"kind"`
		Tables []struct {
			Path    string `json:"path"`
			Verdict string `json:"verdict"`
		} `json:"tables"`
	} `json:"databases"`
	PathErrors []struct {
		Path  string `json:"path"`
		Error string `json:"error"`
	} `json:"path_errors"`
	Notes []struct {
		Path string `json:"path"`
		Note string `json:"note"`
	} `json:"notes"`
	ExitCode int `json:"exit_code"`
}

// verdictsOf runs verify --json on paths in a child process and returns
// its exit code, the document and each table's verdict by path relative to
// rel.
func verdictsOf(t *testing.T, rel string, paths ...string) (int, treeJSON, map[string]string) {
	t.Helper()
	code, out, errOut := runChild(t, append([]string{"verify", "--json"}, paths...)...)
	var doc treeJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s%s", err, out, errOut)
	}
	v := map[string]string{}
	for _, d := range doc.Databases {
		for _, tb := range d.Tables {
			r, _ := filepath.Rel(rel, tb.Path)
			v[r] = tb.Verdict
		}
	}
	return code, doc, v
}

// TestVerifyTree: verify on a directory that is no database finds every
// database below it, at any depth (inside another database's directory
// too), and judges each as when named on its own; it follows no symbolic link (a loop ends nowhere, a link out of the
// tree gets a note), checks no table outside a database, exits with the
// highest status of all, reports a directory it cannot list and goes on,
// and writes nothing anywhere in the tree.
func TestVerifyTree(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped with -short: copies a tree of databases")
	}
	root, outside := buildTree(t)
	before := treeState(t, filepath.Dir(root))

	// Each database on its own: the verdicts the search must find.
	want := map[string]string{}
	wantCode := verify.ExitOK
	var dbs []string
	for rel := range treeDBs {
		dbs = append(dbs, rel)
		code, _, v := verdictsOf(t, root, filepath.Join(root, rel))
		wantCode = max(wantCode, code)
		for k, verdict := range v {
			want[k] = verdict
		}
	}
	if len(want) < 2*len(treeDBs) || wantCode != verify.ExitError {
		t.Fatalf("the databases on their own: %d tables, exit %d; want at least %d tables and exit %d (java-compacted's unreadable table, pebble's database)",
			len(want), wantCode, 2*len(treeDBs), verify.ExitError)
	}

	code, doc, got := verdictsOf(t, root, root)
	if code != wantCode || doc.ExitCode != code {
		t.Errorf("exit %d (JSON %d), want %d, the highest of the databases'", code, doc.ExitCode, wantCode)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("verdicts by table (-each database named +the tree searched):\n%s", diff)
	}
	var found []string
	for _, d := range doc.Databases {
		r, _ := filepath.Rel(root, d.Path)
		found = append(found, r)
	}
	sort.Strings(dbs)
	if diff := cmp.Diff(dbs, found); diff != "" {
		t.Errorf("databases found, in order (-want +got):\n%s", diff)
	}
	if len(doc.Notes) != 1 || doc.Notes[0].Path != filepath.Join(root, "node", "linked") || !strings.Contains(doc.Notes[0].Note, "not followed") {
		t.Errorf("notes %+v; want one, for the link out of the tree (%s)", doc.Notes, outside)
	}
	if len(doc.PathErrors) != 0 {
		t.Errorf("path errors %+v", doc.PathErrors)
	}

	// Text: one block per database, the summary over all.
	code, out, errOut := runChild(t, "verify", root)
	if code != wantCode || strings.Count(out, ": database: ") != len(treeDBs) || strings.Count(out, "\n\n") != len(treeDBs)-1 ||
		!strings.Contains(errOut, filepath.Join(root, "node", "linked")+": not followed") {
		t.Errorf("text: exit %d\n%s%s", code, out, errOut)
	}

	// A directory that cannot be listed: named, the rest still judged,
	// exit 3 (a path that could not be examined).
	f := faultfs.MountT(t, root)
	f.Set("node/geth", faultfs.Fault{ListErr: syscall.EACCES})
	code, doc, got = verdictsOf(t, f.Dir, f.Dir)
	if code != verify.ExitPath || len(doc.PathErrors) != 1 || doc.PathErrors[0].Path != filepath.Join(f.Dir, "node", "geth") ||
		!strings.Contains(doc.PathErrors[0].Error, "permission denied") {
		t.Errorf("an unreadable directory: exit %d, path errors %+v; want %d and node/geth named", code, doc.PathErrors, verify.ExitPath)
	}
	if len(doc.Databases) != len(treeDBs)-1 || len(got) == 0 {
		t.Errorf("an unreadable directory: %d databases judged, want %d", len(doc.Databases), len(treeDBs)-1)
	}
	if w := f.Writes(); len(w) > 0 {
		t.Errorf("requests that would write: %q", w)
	}

	// A tree without any database: exit 3, saying so.
	code, _, errOut = runChild(t, "verify", filepath.Join(root, "backup"))
	if code != verify.ExitPath || !strings.Contains(errOut, "no LevelDB database in it or below it") || !strings.Contains(errOut, "1 table file outside any database") {
		t.Errorf("no database: exit %d, stderr %q", code, errOut)
	}

	if diff := diffState(before, treeState(t, filepath.Dir(root))); diff != "" {
		t.Errorf("the tree changed:\n%s", diff)
	}
}
