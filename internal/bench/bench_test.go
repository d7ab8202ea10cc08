package bench

import (
	"bytes"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ldbcompat/ldbcompat/internal/blockop"
)

func TestTableOps(t *testing.T) {
	ops := TableOps(Keys(250, 1))
	if ops[0].Kind != blockop.StartBlock || ops[0].Offset != 0 || ops[len(ops)-1].Kind != blockop.Finish {
		t.Fatalf("ops start with %+v and end with %+v", ops[0], ops[len(ops)-1])
	}
	var starts []uint64
	adds := 0
	for _, op := range ops {
		switch op.Kind {
		case blockop.StartBlock:
			starts = append(starts, op.Offset)
		case blockop.AddKey:
			adds++
		}
	}
	// StartBlock(0), then one after each of the 3 blocks (100, 100, 50 keys).
	want := []uint64{0, 4101, 8202, 12303}
	if adds != 250 || len(starts) != len(want) {
		t.Fatalf("%d keys and StartBlock at %v, want 250 keys and %v", adds, starts, want)
	}
	for i := range want {
		if starts[i] != want[i] {
			t.Fatalf("StartBlock at %v, want %v", starts, want)
		}
	}
}

// TestRun runs the harness on package bloom alone, twice under different
// names, and checks the table and the benchstat lines.
func TestRun(t *testing.T) {
	other := Go()
	other.Name = Reference
	other.BuiltBy = "g++ 1.2.3"
	impls := []Impl{Go(), other}
	results, err := Run(Config{N: 500, Rounds: 3, RunTime: time.Millisecond}, impls)
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != 2*len(Benchmarks) {
		t.Fatalf("%d results, want %d", len(results), 2*len(Benchmarks))
	}
	for _, r := range results {
		if len(r.NsPerKey) != 3 || r.Median() <= 0 || r.Allocs < 0 {
			t.Errorf("%s %s: samples %v, allocs %v", r.Bench, r.Impl, r.NsPerKey, r.Allocs)
		}
		if r.Bench == NameCreateFilter && r.Allocs != 0 {
			t.Errorf("CreateFilter allocates %v times", r.Allocs)
		}
	}
	var table, stat bytes.Buffer
	if err := WriteTable(&table, results, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(table.String(), "go/c++") || !strings.Contains(table.String(), "KeyMayMatchMiss") {
		t.Errorf("table:\n%s", table.String())
	}
	if err := WriteBenchstat(&stat, BuiltBy(impls), results, nil); err != nil {
		t.Fatal(err)
	}
	lines := 0
	for _, l := range strings.Split(stat.String(), "\n") {
		if strings.HasPrefix(l, "Benchmark") {
			lines++
			if f := strings.Fields(l); len(f) < 4 || f[3] != "ns/key" {
				t.Errorf("benchstat line %q", l)
			}
		}
	}
	if lines != 2*len(Benchmarks)*3 {
		t.Errorf("%d benchmark lines, want %d", lines, 2*len(Benchmarks)*3)
	}
	want := "\nbuilt-by: go " + runtime.Version() + ", " + Reference + " g++ 1.2.3\n"
	if !strings.Contains(stat.String(), want) {
		t.Errorf("benchstat header without %q:\n%s", want, stat.String())
	}
}

// TestRunDifferentFilter checks that Run refuses implementations that
// build different filters.
func TestRunDifferentFilter(t *testing.T) {
	bad := Go()
	bad.Name = "bad"
	create := bad.CreateFilter
	bad.CreateFilter = func(bitsPerKey int, keys [][]byte, iters int) ([]byte, int64) {
		f, ns := create(bitsPerKey, keys, iters)
		f = append([]byte(nil), f...)
		f[0] ^= 1
		return f, ns
	}
	if _, err := Run(Config{N: 100, Rounds: 1, RunTime: time.Millisecond}, []Impl{Go(), bad}); err == nil {
		t.Fatal("Run accepted a different filter")
	}
}

// TestCPUName checks the name given to the processors of /proc/cpuinfo's
// two layouts, x86 (vendor, family, model) and arm64 (implementer, part).
func TestCPUName(t *testing.T) {
	for _, c := range []struct {
		info map[string]string
		want string
	}{
		{map[string]string{"vendor_id": "AuthenticAMD", "cpu family": "25", "model": "17", "model name": "AMD EPYC"},
			"AMD EPYC (AuthenticAMD cpu family 25 model 17)"},
		{map[string]string{"vendor_id": "GenuineIntel", "cpu family": "6", "model": "207"},
			"GenuineIntel cpu family 6 model 207"},
		{map[string]string{"CPU implementer": "0x41", "CPU part": "0xd0c"},
			"cpu implementer 0x41 cpu part 0xd0c"},
		{map[string]string{"model name": "Some CPU"}, "Some CPU"},
		{map[string]string{}, "unknown"},
	} {
		if got := cpuName(c.info); got != c.want {
			t.Errorf("cpuName(%v) = %q, want %q", c.info, got, c.want)
		}
	}
}
