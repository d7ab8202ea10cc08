package kit

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/internal/cases"
)

// TestCaseInputs: the Case functions give a case's inputs, and the filters
// and blocks upstream wrote for them: the golden vectors' records.
func TestCaseInputs(t *testing.T) {
	vs := loadTestVectors(t)
	cs := cases.VectorSet()
	for _, c := range cs.Filter {
		if c.Name != "bpk10/n100000" && c.Name != "dst64" {
			continue
		}
		if !equalKeys(CaseKeys(c.Name), c.Keys) {
			t.Errorf("CaseKeys(%q) are not the case's keys", c.Name)
		}
		r, err := vs.Lookup("filter", c.Name, c.In())
		if err != nil {
			t.Fatal(err)
		}
		if got := cases.EncodeBytes(append(append([]byte(nil), c.Dst...), CaseFilter(c.Name)...)); got != r.Out {
			t.Errorf("CaseFilter(%q) after the dst is %s, upstream's %s", c.Name, got, r.Out)
		}
		if last := len(c.Queries) - 1; !bytes.Equal(CaseQuery(c.Name, last), c.Queries[last]) {
			t.Errorf("CaseQuery(%q, %d) is not the case's query", c.Name, last)
		}
	}
	m := cs.Match[len(cs.Match)/2]
	if !bytes.Equal(CaseFilter(m.Name), m.Filter) || !bytes.Equal(CaseQuery(m.Name, 3), m.Queries[3]) {
		t.Errorf("CaseFilter(%q) or CaseQuery(%[1]q, 3) is not the match case's", m.Name)
	}
	// A long sequence of random calls, and one of millions of filters.
	long := 0
	for _, c := range cs.Block {
		if len(c.Ops) > maxCalls && long == 0 {
			long++
		} else if !strings.HasPrefix(c.Name, "huge-offset/1342") {
			continue
		}
		r, err := vs.Lookup("block", c.Name, c.In())
		if err != nil {
			t.Fatal(err)
		}
		var p bloom.FilterPolicy = TestHashPolicy{}
		if !c.Policy.Test {
			p = bloom.NewPolicy(c.Policy.BitsPerKey)
		}
		outs := CaseCalls(c.Name, bloom.NewFilterBlockBuilder(p))
		if got := cases.EncodeList(outs); got != r.Out {
			t.Errorf("CaseCalls(%q) on bloom's builder gives %s, upstream's builder %s", c.Name, got, r.Out)
		}
		if !bytes.Equal(CaseBlock(c.Name), cases.LastFinish(outs)) {
			t.Errorf("CaseBlock(%q) is not the block of the last Finish", c.Name)
		}
		if !bytes.Equal(CaseQuery(c.Name, 0), c.Queries[0].Key) {
			t.Errorf("CaseQuery(%q, 0) is not the case's first query", c.Name)
		}
	}
	rd := cs.Reader[len(cs.Reader)-1]
	if !bytes.Equal(CaseBlock(rd.Name), rd.Contents) || !bytes.Equal(CaseQuery(rd.Name, 5), rd.Queries[5].Key) {
		t.Errorf("CaseBlock(%q) or CaseQuery(%[1]q, 5) is not the reader case's", rd.Name)
	}
	for _, c := range cases.DBCases() {
		got := CaseKVs(c.Name)
		if len(got) != len(c.KVs) || !equalKeys(got[0][:], c.KVs[0][:]) || !equalKeys(got[len(got)-1][:], c.KVs[len(got)-1][:]) {
			t.Errorf("CaseKVs(%q) is not the case's", c.Name)
		}
	}
	// A case asked only live is found too.
	if n := len(CaseKeys("live/bpk1/n100000")); n != 100000 {
		t.Errorf("CaseKeys(%q) gives %d keys, want 100000", "live/bpk1/n100000", n)
	}
	for _, f := range []func(){
		func() { CaseKeys("no such case") },
		func() { CaseKeys(m.Name) }, // a match case has no keys
		func() { CaseKVs("no such case") },
		func() { CaseQuery("no such case", 0) },
	} {
		if !panics(f) {
			t.Errorf("a Case function does not panic on a name the kit does not have")
		}
	}
}

func equalKeys(a, b [][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

func panics(f func()) (p bool) {
	defer func() { p = recover() != nil }()
	f()
	return false
}

// TestUpstreamDB: a committed database is copied, and the keys the kit
// asks of it are its user keys then 200 it does not hold.
func TestUpstreamDB(t *testing.T) {
	const name = "testdata/tables/b10-bs4096-none"
	dir := UpstreamDB(t, name)
	if _, err := os.Stat(filepath.Join(dir, "CURRENT")); err != nil {
		t.Fatalf("UpstreamDB(%q) gave no database: %v", name, err)
	}
	keys := UpstreamDBKeys(name)
	contents, err := dbContents(os.DirFS(dir))
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != len(contents)+200 || !equalKeys(keys[:len(contents)], userKeys(contents)) {
		t.Errorf("UpstreamDBKeys(%q): %d keys, want the database's %d then 200", name, len(keys), len(contents))
	}
	if !equalKeys(UpstreamDBKeys(name), keys) {
		t.Errorf("UpstreamDBKeys(%q) gives other keys on a second call", name)
	}
}

// brokenEverywhere is a port that every property fails, on long inputs
// too: its filters have a byte too many and match nothing, its filter
// blocks have a byte too many, its reader matches nothing, its ReadDB
// finds nothing and its WriteDB fails.
func brokenEverywhere() Port {
	p := bloomPort()
	p.Name = "broken"
	p.NewPolicy = func(b int) bloom.FilterPolicy { return matchesNothing{bloom.NewPolicy(b)} }
	p.Hash = func(d []byte, s uint32) uint32 { return bloom.Hash(d, s) + 1 }
	p.NewFilterBlockBuilder = func(fp bloom.FilterPolicy) FilterBlockBuilder {
		return byteMoreBuilder{bloom.NewFilterBlockBuilder(fp)}
	}
	p.NewFilterBlockReader = func(bloom.FilterPolicy, []byte) FilterBlockReader { return noKeyReader{} }
	p.ReadDB = func(_ string, _ int, keys [][]byte) ([]bool, error) { return make([]bool, len(keys)), nil }
	p.WriteDB = func(string, [][2][]byte, int) error { return fmt.Errorf("cannot write") }
	return p
}

type matchesNothing struct{ bloom.FilterPolicy }

func (p matchesNothing) CreateFilter(keys [][]byte, dst []byte) []byte {
	return append(p.FilterPolicy.CreateFilter(keys, dst), 0)
}

func (matchesNothing) KeyMayMatch([]byte, []byte) bool { return false }

type byteMoreBuilder struct{ *bloom.FilterBlockBuilder }

func (b byteMoreBuilder) Finish() []byte { return append(b.FilterBlockBuilder.Finish(), 0) }

type noKeyReader struct{}

func (noKeyReader) KeyMayMatch(uint64, []byte) bool { return false }

// reproducers returns the reproducers the kit prints for broken ports: the
// first failures of each property (those TestPort shows) and the first
// that gets its input with each function of inputs.go.
func reproducers(t *testing.T) []string {
	tables := os.DirFS("../../testdata/tables")
	panicky := tablePort(bloom.NewPolicy, func(b int) bloom.FilterPolicy { return tagPolicy{bloom.NewPolicy(b)} })
	panicky.ReadDB = func(string, int, [][]byte) ([]bool, error) { panic("read") }
	var out, all []string
	for _, p := range []Port{brokenEverywhere(), panicky} {
		r := check(p, kitConfig{tables: tables})
		for _, res := range r.Results {
			for i, f := range res.Failures {
				if f.Repro == "" {
					continue
				}
				if i < MaxShown {
					out = append(out, f.Repro)
				}
				all = append(all, f.Repro)
			}
		}
	}
	for _, fn := range []string{"CaseKeys", "CaseQuery", "CaseFilter", "CaseBlock", "CaseCalls", "CaseKVs", "UpstreamDB", "UpstreamDBKeys"} {
		found := false
		for _, r := range all {
			if strings.Contains(r, "compat."+fn+"(") {
				out = append(out, r)
				found = true
				break
			}
		}
		if !found {
			t.Errorf("no reproducer calls compat.%s", fn)
		}
	}
	for _, r := range all {
		if strings.Contains(r, "internal/") || strings.Contains(r, "<") {
			t.Errorf("reproducer names what a port's module cannot reach: %s", r)
		}
	}
	return out
}

// goPart returns the Go statements of reproducer r, without the shell
// command or the words about upstream that may follow them.
func goPart(r string) string {
	for _, sep := range []string{"; go run ", "; then "} {
		if i := strings.Index(r, sep); i >= 0 {
			r = r[:i]
		}
	}
	return r
}

// portStub is the package of a port with every function reproducers call,
// as a port's module has them.
const portStub = `package port

import "github.com/ldbcompat/ldbcompat/bloom"

func NewPolicy(bits int) bloom.FilterPolicy { return bloom.NewPolicy(bits) }

func Hash(data []byte, seed uint32) uint32 { return bloom.Hash(data, seed) }

func NewFilterBlockBuilder(p bloom.FilterPolicy) *bloom.FilterBlockBuilder {
	return bloom.NewFilterBlockBuilder(p)
}

func NewFilterBlockReader(p bloom.FilterPolicy, contents []byte) *bloom.FilterBlockReader {
	return bloom.NewFilterBlockReader(p, contents)
}

func ReadDB(dir string, bitsPerKey int, keys [][]byte) ([]bool, error) { return make([]bool, len(keys)), nil }

func WriteDB(dir string, kvs [][2][]byte, bitsPerKey int) error { return nil }
`

// TestReproducersPasteable: no reproducer names this module's internal
// packages or an input in words, and the reproducers of broken ports, each
// pasted into a test of a port's own module that requires this one
// through a replace directive, build and run there.
func TestReproducersPasteable(t *testing.T) {
	repros := reproducers(t)
	var test strings.Builder
	for _, r := range repros {
		fmt.Fprintf(&test, "\t{\n\t\t%s\n\t}\n", goPart(r))
	}
	runInPortModule(t, portStub, test.String())
}

// runInPortModule builds and runs body, the statements of a test, in a
// port's own module (its package port.go) that requires this one through
// a replace directive, offline: what a port author pasting a reproducer
// does.
func runInPortModule(t *testing.T, port, body string) {
	t.Helper()
	if testing.Short() {
		t.Skip("building a port's module: not with -short")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	test := "package port\n\nimport (\n\t\"testing\"\n\n\t\"github.com/ldbcompat/ldbcompat/compat\"\n)\n\nvar _ = compat.HexBytes\n\n" +
		"func TestRepro(t *testing.T) {\n" + body + "}\n"
	mod := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/port\n\ngo 1.22\n\nrequire github.com/ldbcompat/ldbcompat v0.0.0\n\n" +
			"replace github.com/ldbcompat/ldbcompat => " + root + "\n",
		"go.sum":       string(sum),
		"port.go":      port,
		"port_test.go": test,
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(mod, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(goBin, "test", "-count=1", "-run", "TestRepro", ".")
	cmd.Dir = mod
	// Offline: this module's requirements come from the module cache.
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off", "GOTOOLCHAIN=local")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the reproducers do not build and run in a port's module: %v\n%s\n%s", err, out, test)
	}
}
