package versions

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestClassify(t *testing.T) {
	for _, c := range []struct {
		n, u, s int
		want    string
	}{
		{10, 10, 0, Unsigned},
		{10, 0, 10, Signed},
		{10, 9, 0, Neither},
		{10, 0, 9, Neither},
		{10, 10, 1, Neither}, // an input both models answer alike proves nothing
		{10, 5, 5, Neither},
		{0, 0, 0, Neither},
	} {
		if got := Classify(c.n, c.u, c.s); got.Variant != c.want || got.Inputs != c.n || got.Unsigned != c.u || got.Signed != c.s {
			t.Errorf("Classify(%d, %d, %d) = %+v, want variant %s", c.n, c.u, c.s, got, c.want)
		}
	}
}

func TestReadPinned(t *testing.T) {
	ps, err := ReadPinned("../../docker/leveldb-versions.tsv")
	if err != nil {
		t.Fatal(err)
	}
	commit := regexp.MustCompile(`^[0-9a-f]{40}$`)
	date := regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
	seen := map[string]bool{}
	for _, p := range ps {
		if !commit.MatchString(p.Commit) || !date.MatchString(p.CommitDate) || len(p.Digest) != 64 || seen[p.Version] {
			t.Errorf("bad or repeated line: %+v", p)
		}
		seen[p.Version] = true
	}
	if !seen["1.23"] || !seen["1.4"] || ps[len(ps)-1].Tag != "main" {
		t.Errorf("the table lacks 1.4, 1.23 or main (last): %+v", ps)
	}
	if got := ps[len(ps)-1].Name(); !strings.HasPrefix(got, "main at ") || len(got) != len("main at ")+7 {
		t.Errorf("main's Name() = %q, want main at <7 hex digits>", got)
	}
	for _, bad := range []string{"", "# only a comment\n", "1.4\tv1.4\tabc\n"} {
		p := filepath.Join(t.TempDir(), "t.tsv")
		if err := os.WriteFile(p, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadPinned(p); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("ReadPinned(%q) = %v, want an error naming the file", bad, err)
		}
	}
}

func TestReadStatus(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "status")
	write := func(s string) {
		t.Helper()
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("recipe=make\nbuild=cached\nbuild_seconds=1\nbuilt_seconds=31\nsuite=fail\nsuite_seconds=90\npackages=./...\nfailed_packages=compat;cgo/upstream [build failed]\n")
	s, err := ReadStatus(p)
	if err != nil {
		t.Fatal(err)
	}
	want := Status{Recipe: "make", Build: "cached", BuildSeconds: 1, BuiltSeconds: 31, Suite: "fail", SuiteSeconds: 90,
		Packages: "./...", FailedPackages: []string{"compat", "cgo/upstream [build failed]"}}
	if s.Recipe != want.Recipe || s.Build != want.Build || s.BuildSeconds != 1 || s.BuiltSeconds != 31 || s.Suite != want.Suite ||
		s.SuiteSeconds != 90 || s.Packages != want.Packages || strings.Join(s.FailedPackages, "|") != strings.Join(want.FailedPackages, "|") {
		t.Errorf("ReadStatus = %+v, want %+v", *s, want)
	}
	for _, bad := range []string{"recipe make\n", "colour=blue\n", "build_seconds=soon\n"} {
		write(bad)
		if _, err := ReadStatus(p); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("ReadStatus of %q = %v, want an error naming the file", bad, err)
		}
	}
}

func TestLoadAndRender(t *testing.T) {
	dir := t.TempDir()
	pinned := []Pinned{
		{Version: "1.17", Tag: "v1.17", Commit: strings.Repeat("e", 40), CommitDate: "2014-05-01"},
		{Version: "1.23", Tag: "1.23", Commit: strings.Repeat("9", 40), CommitDate: "2021-02-23"},
		{Version: "main-78a352f", Tag: "main", Commit: "78a352f" + strings.Repeat("0", 33), CommitDate: "2026-03-06"},
		{Version: "1.4", Tag: "v1.4", Commit: strings.Repeat("8", 40), CommitDate: "2012-04-17"},
	}
	put := func(version, name, data string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(dir, version), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, version, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// 1.17 passes; 1.23's suite fails; main's build fails; 1.4 was not run.
	put("1.17", "status", "recipe=make\nbuild=built\nbuild_seconds=40\nsuite=pass\nsuite_seconds=95\npackages=./...\nfailed_packages=\n")
	legacy := &Facts{Release: "1.17", Header: "1.17", GOARCH: "amd64", CharIsSigned: true, FilterName: "leveldb.BuiltinBloomFilter",
		Hash: Classify(4, 0, 4), Filter: Classify(2, 0, 2),
		Vectors: []VectorMatch{
			{Dir: "testdata/vectors", Present: true, LevelDB: "1.23", Records: 10, Equal: 7, Fresh: 10, FirstDiff: "hash x"},
			{Dir: "testdata/vectors-v1.17", Present: true, LevelDB: "1.17", Records: 10, Equal: 10, Fresh: 10},
		},
		DB: &DBCheck{Options: "b10-bs1024-snappy", Summary: "3 tables: 3 old-filter", Legacy: []string{Signed}, Exit: 0}}
	if err := WriteFacts(filepath.Join(dir, "1.17", "facts.json"), legacy); err != nil {
		t.Fatal(err)
	}
	put("1.23", "status", "recipe=cmake\nbuild=cached\nbuild_seconds=0\nbuilt_seconds=35\nsuite=fail\nsuite_seconds=80\npackages=./...\nfailed_packages=compat;a;b;c\n")
	put("main-78a352f", "status", "recipe=cmake-cxx17\nbuild=failed\nbuild_seconds=12\nsuite=not run\n")

	rs := Load(dir, pinned)
	if len(rs) != 4 || rs[0].Facts == nil || rs[0].Facts.DB.Summary != legacy.DB.Summary || rs[0].Err != nil {
		t.Fatalf("Load = %+v, want 1.17's facts read back", rs)
	}
	for i, want := range []bool{true, false, false, false} {
		if rs[i].Passed() != want {
			t.Errorf("%s: Passed() = %v, want %v", rs[i].Pinned.Version, rs[i].Passed(), want)
		}
	}
	h := Header{Date: "2026-01-02", CPU: "2 × Some CPU", Platform: "linux/amd64", Go: "go1.26", Compiler: "c++ 12", Command: "make versions", Packages: "./...", Seconds: 300}
	var a, b bytes.Buffer
	if err := Render(&a, h, rs); err != nil {
		t.Fatal(err)
	}
	if err := Render(&b, h, Load(dir, pinned)); err != nil {
		t.Fatal(err)
	}
	if a.String() != b.String() {
		t.Errorf("two renderings of the same results differ")
	}
	page := a.String()
	for _, want := range []string{
		"`make versions`, 300 s in all, on 2 × Some CPU (linux/amd64)",
		"**1 of 4 versions pass; failed: 1.23, main at 78a352f, v1.4.**",
		"| v1.17 | 2014-05-01 | `make` | `leveldb.BuiltinBloomFilter` | signed | identical to 1.17's (vectors-v1.17) | 3 tables: 3 old-filter (signed-char hash); exit 0 | pass | 40 s | 95 s |",
		"| 1.23 | 2021-02-23 | `cmake` | — | — | — | — | **FAILED**: compat, a, b and 1 more | cached (35 s) | 80 s |",
		"| main at 78a352f | 2026-03-06 | `cmake-cxx17` | — | — | — | — | **FAILED** (build) | 12 s | — |",
		"| v1.4 | 2012-04-17 | ? | — | — | — | — | **not run** | — | — |",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q:\n%s", want, page)
		}
	}
}

func TestVectorsCell(t *testing.T) {
	f := &Facts{Vectors: []VectorMatch{
		{Dir: "testdata/vectors", Present: true, LevelDB: "1.23", Records: 10, Equal: 7, Fresh: 10},
		{Dir: "testdata/vectors-v1.17"},
	}}
	if got, want := vectors(f), "neither (vectors: 7 of 10 records; vectors-v1.17 absent)"; got != want {
		t.Errorf("vectors() = %q, want %q", got, want)
	}
	// A set upstream answers more cases of than it holds is not identical.
	f.Vectors[0] = VectorMatch{Dir: "testdata/vectors", Present: true, LevelDB: "1.23", Records: 10, Equal: 10, Fresh: 11}
	if f.Vectors[0].Identical() {
		t.Errorf("Identical() with an answer the set lacks")
	}
}
