package ports

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/mod/modfile"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/compat"
	"github.com/ldbcompat/ldbcompat/internal/table"
	"github.com/ldbcompat/ldbcompat/ports/internal/sstcraft"
	"github.com/ldbcompat/ldbcompat/ports/internal/users"
)

// TestCraftedTable: the tables made around a filter block are valid
// LevelDB tables holding that block under its name and one index entry
// pointing at the offset asked (only offsets inside the file here: the
// strict reader checks that the data block lies in it).
func TestCraftedTable(t *testing.T) {
	block := []byte{1, 2, 3, 4, 0, 0, 0, 0, 4, 0, 0, 0, 11}
	for _, off := range []uint64{0, 1, 7} {
		file := sstcraft.Table("TestHashFilter", block, off)
		tb, err := table.Open("crafted", bytes.NewReader(file), int64(len(file)))
		if err != nil {
			t.Fatalf("offset %d: %v", off, err)
		}
		name, got, ok := tb.FilterBlock()
		if !ok || name != "TestHashFilter" || !bytes.Equal(got, block) {
			t.Errorf("offset %d: filter block %q %x, want TestHashFilter %x", off, name, got, block)
		}
		if ix := tb.Index(); len(ix) != 1 || ix[0].Handle.Offset != off || !bytes.Equal(ix[0].Separator, sstcraft.IndexKey) {
			t.Errorf("offset %d: index %+v", off, ix)
		}
	}
}

// TestReadersThroughTables: on a well-formed block whose filters are all
// non-empty, each adapter's reader, reached through the port's table
// reader, answers as upstream's reader does (package bloom): the harness
// itself adds no difference.
func TestReadersThroughTables(t *testing.T) {
	keys := map[uint64][]string{0: {"foo", "bar"}, 2048: {"box"}, 5000: {"hello", "world", "x"}}
	for _, p := range []bloom.FilterPolicy{compat.TestHashPolicy{}, bloom.NewPolicy(10)} {
		b := bloom.NewFilterBlockBuilder(p)
		for _, off := range []uint64{0, 2048, 5000} {
			b.StartBlock(off)
			for _, k := range keys[off] {
				b.AddKey([]byte(k))
			}
		}
		block := append([]byte(nil), b.Finish()...)
		want := bloom.NewFilterBlockReader(p, block)
		for _, a := range Adapters() {
			port := a.Port()
			if port.NewFilterBlockReader == nil {
				continue
			}
			r := port.NewFilterBlockReader(p, block)
			for _, off := range []uint64{0, 1, 2047, 2048, 4095, 5000, 6143, 1 << 30} {
				for _, k := range []string{"foo", "bar", "box", "hello", "world", "x", "absent", ""} {
					if got, w := r.KeyMayMatch(off, []byte(k)), want.KeyMayMatch(off, []byte(k)); got != w {
						t.Errorf("%s, policy %s: KeyMayMatch(%d, %q) = %v, upstream %v", a.Module, p.Name(), off, k, got, w)
					}
				}
			}
		}
	}
}

// TestPolicies: each adapter's policy finds the keys it filtered and
// appends to dst.
func TestPolicies(t *testing.T) {
	var keys [][]byte
	for i := range 100 {
		keys = append(keys, []byte(fmt.Sprintf("key%d", i)))
	}
	for _, a := range Adapters() {
		p := a.Port().NewPolicy(10)
		f := p.CreateFilter(keys, []byte("prefix"))
		if !bytes.HasPrefix(f, []byte("prefix")) {
			t.Errorf("%s: CreateFilter does not append to dst", a.Module)
			continue
		}
		for _, k := range keys {
			if !p.KeyMayMatch(k, f[len("prefix"):]) {
				t.Errorf("%s: key %q not found in its own filter", a.Module, k)
			}
		}
	}
}

// TestVersionModules: each module under versions/ is the module its
// Source names, builds this module's adapters from this checkout (replace
// by ../..) and ldbcompat from this checkout (../../..), and puts its
// version in place with one more replace, without a version on the left:
// Go applies a replace that names a version only to that version, and
// this module requires another one (the newest), so such a replace would
// leave the build with the newest.
func TestVersionModules(t *testing.T) {
	adapted := map[string]bool{}
	for _, a := range Adapters() {
		adapted[a.Module] = true
	}
	n := 0
	for _, s := range Sources() {
		if s.Adapter != nil {
			continue
		}
		n++
		mf := versionModFile(t, s.Dir)
		if want := "github.com/ldbcompat/ldbcompat/ports/" + s.Dir; mf.Module.Mod.Path != want {
			t.Errorf("%s: module %s, want %s", s.Dir, mf.Module.Mod.Path, want)
		}
		local := map[string]string{}
		var pinned []*modfile.Replace
		for _, r := range mf.Replace {
			if r.New.Version == "" {
				local[r.Old.Path] = r.New.Path
				continue
			}
			pinned = append(pinned, r)
		}
		if local["github.com/ldbcompat/ldbcompat"] != "../../.." || local["github.com/ldbcompat/ldbcompat/ports"] != "../.." {
			t.Errorf("%s: local replaces %v; want ldbcompat => ../../.. and its ports module => ../..", s.Dir, local)
		}
		if len(pinned) != 1 {
			t.Errorf("%s: %d replaces by a module version, want 1 (the version checked)", s.Dir, len(pinned))
			continue
		}
		r := pinned[0]
		if r.Old.Version != "" {
			t.Errorf("%s: replace %s %s => ...: it names a version, so it does not apply to the one the ports module requires", s.Dir, r.Old.Path, r.Old.Version)
		}
		if !adapted[r.Old.Path] {
			t.Errorf("%s: replaces %s, which no adapter of this module imports", s.Dir, r.Old.Path)
		}
		if _, err := os.Stat(filepath.Join(s.Dir, "main.go")); err != nil {
			t.Errorf("%s: %v", s.Dir, err)
		}
	}
	if n == 0 {
		t.Fatal("no module under versions/")
	}
}

// versionModFile returns the parsed go.mod of the module under versions/
// in dir.
func versionModFile(t *testing.T, dir string) *modfile.File {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	mf, err := modfile.Parse(dir+"/go.mod", data, nil)
	if err != nil {
		t.Fatal(err)
	}
	return mf
}

// TestUsersFacts: the committed facts of users.json are well formed, and
// each names a module that the ports check or a version of one: a typo
// in a module path would silently leave a row without its users.
func TestUsersFacts(t *testing.T) {
	f, err := Users()
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	for _, a := range Adapters() {
		known[a.Module] = true
	}
	for _, s := range Sources() {
		if s.Adapter != nil {
			continue
		}
		mf := versionModFile(t, s.Dir)
		for _, r := range mf.Replace {
			if r.New.Version != "" {
				known[r.New.Path] = true
			}
		}
	}
	if len(f.Facts) == 0 {
		t.Fatal("users.json holds no fact")
	}
	for _, x := range f.Facts {
		m := x.Module
		if x.Directive == users.Replace {
			m = x.By
		}
		if !known[m] {
			t.Errorf("fact about %s names %s, which no row checks (known: %v)", x.User, m, known)
		}
	}
}
