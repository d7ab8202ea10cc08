// Package bench compares implementations of LevelDB's bloom filter and
// filter block on the same inputs, in one process, and prints nanoseconds
// per key with each one's ratio to upstream C++. Each Impl times its own
// loops (upstream's inside C++, so no cgo call counts); Run alternates
// them round by round, so a disturbed stretch of a shared machine hits all
// alike, and reports the median. `make bench` runs internal/cmd/benchcmp
// and, for the ports, ports/cmd/bench.
//
// Output is benchstat-compatible: one line per round and implementation,
//
//	BenchmarkCreateFilter/impl=go  50  6.12 ns/key
//
// so two runs can be compared with `benchstat old.txt new.txt`.
package bench

import (
	"cmp"
	"fmt"
	"io"
	"math/rand"
	"os"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ldbcompat/ldbcompat/internal/blockop"
)

// Default workload: upstream's recommended 10 bits per key, n random
// 16-byte keys.
const (
	DefaultN          = 10000
	DefaultBitsPerKey = 10
	KeyLen            = 16
	// KeysPerBlock and BlockSize shape the filter block workload.
	KeysPerBlock = 100
	BlockSize    = 4096
	blockTrailer = 5 // type and CRC
)

// Keys returns n random keys of KeyLen bytes from a fixed seed.
func Keys(n int, seed int64) [][]byte {
	rng := rand.New(rand.NewSource(seed))
	flat := make([]byte, n*KeyLen)
	rng.Read(flat)
	keys := make([][]byte, n)
	for i := range keys {
		keys[i] = flat[i*KeyLen : (i+1)*KeyLen : (i+1)*KeyLen]
	}
	return keys
}

// TableOps returns the calls table/table_builder.cc makes on its filter
// block builder while writing keys in data blocks of KeysPerBlock keys and
// BlockSize bytes.
func TableOps(keys [][]byte) []blockop.Op {
	ops := []blockop.Op{{Kind: blockop.StartBlock, Offset: 0}}
	var off uint64
	for i, k := range keys {
		ops = append(ops, blockop.Op{Kind: blockop.AddKey, Key: k})
		if (i+1)%KeysPerBlock == 0 || i == len(keys)-1 {
			off += BlockSize + blockTrailer
			ops = append(ops, blockop.Op{Kind: blockop.StartBlock, Offset: off})
		}
	}
	return append(ops, blockop.Op{Kind: blockop.Finish})
}

// Impl is one implementation under test. Each function runs its workload
// iters times and returns the total time of the loop in nanoseconds; a nil
// function means the implementation does not take part in that benchmark.
type Impl struct {
	Name string // in the table, and "impl=<Name>" in benchmark names
	// BuiltBy, when not empty, names the compiler of the timed code
	// ("go1.26.8", "g++ 12.2.0").
	BuiltBy string
	// CreateFilter builds a filter of keys with bitsPerKey, iters times,
	// reusing its output buffer, and returns the last filter.
	CreateFilter func(bitsPerKey int, keys [][]byte, iters int) (filter []byte, nanos int64)
	// KeyMayMatch asks whether each key may match filter, iters times
	// over keys, and returns the matches of one pass.
	KeyMayMatch func(bitsPerKey int, keys [][]byte, filter []byte, iters int) (hits int, nanos int64)
	// FilterBlock runs ops on a new filter block builder, iters times.
	FilterBlock func(bitsPerKey int, ops []blockop.Op, iters int) (nanos int64)
	// Allocs, when not nil, returns the heap allocations of one run of
	// the named benchmark.
	Allocs func(name string, bitsPerKey int, keys [][]byte, filter []byte, ops []blockop.Op) float64
}

// Benchmark names, in table order.
const (
	NameCreateFilter = "CreateFilter"
	NameMatchHit     = "KeyMayMatchHit"
	NameMatchMiss    = "KeyMayMatchMiss"
	NameFilterBlock  = "FilterBlockBuilder"
)

// Benchmarks lists the benchmark names Run measures.
var Benchmarks = []string{NameCreateFilter, NameMatchHit, NameMatchMiss, NameFilterBlock}

// Config selects the workload and how long to measure.
type Config struct {
	N          int           // keys per filter (DefaultN when 0)
	BitsPerKey int           // DefaultBitsPerKey when 0
	Rounds     int           // samples per benchmark and implementation; 9 when 0
	RunTime    time.Duration // target duration of one sample; 30ms when 0
}

func (c *Config) defaults() {
	c.N = cmp.Or(c.N, DefaultN)
	c.BitsPerKey = cmp.Or(c.BitsPerKey, DefaultBitsPerKey)
	c.Rounds = cmp.Or(c.Rounds, 9)
	c.RunTime = cmp.Or(c.RunTime, 30*time.Millisecond)
}

// Result holds the samples of one benchmark for one implementation.
type Result struct {
	Bench, Impl string
	Iters       int       // loop iterations of each sample
	NsPerKey    []float64 // one per round
	Allocs      float64   // allocations per iteration; -1 when unknown
}

// Median returns the median of r's samples.
func (r *Result) Median() float64 { return median(r.NsPerKey) }

// Min returns r's fastest sample.
func (r *Result) Min() float64 { return slices.Min(r.NsPerKey) }

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// Run measures every benchmark for every implementation that supports it
// and returns the results, benchmark by benchmark in Benchmarks order and
// implementation by implementation in impls order. It checks that all
// implementations build the same filter and give the same answers, and
// returns an error if they do not.
func Run(cfg Config, impls []Impl) ([]*Result, error) {
	cfg.defaults()
	keys := Keys(cfg.N, 1)
	misses := Keys(cfg.N, 2)
	ops := TableOps(Keys(cfg.N, 3))
	queries := func(name string) [][]byte {
		if name == NameMatchMiss {
			return misses
		}
		return keys
	}

	// One filter for everybody's KeyMayMatch, built by all alike.
	var filter []byte
	for _, im := range impls {
		if im.CreateFilter == nil {
			continue
		}
		f, _ := im.CreateFilter(cfg.BitsPerKey, keys, 1)
		if filter == nil {
			filter = slices.Clone(f)
		} else if string(f) != string(filter) {
			return nil, fmt.Errorf("bench: %s builds a different filter from %s", im.Name, impls[0].Name)
		}
	}
	hitsWant := map[string]int{}
	var mismatch error
	run := func(im Impl, name string, iters int) (ns int64, ok bool) {
		switch name {
		case NameCreateFilter:
			if im.CreateFilter == nil {
				return 0, false
			}
			_, ns = im.CreateFilter(cfg.BitsPerKey, keys, iters)
		case NameMatchHit, NameMatchMiss:
			if im.KeyMayMatch == nil || filter == nil {
				return 0, false
			}
			var hits int
			hits, ns = im.KeyMayMatch(cfg.BitsPerKey, queries(name), filter, iters)
			if w, seen := hitsWant[name]; seen && w != hits && mismatch == nil {
				mismatch = fmt.Errorf("bench: %s: %s matches %d keys, another implementation %d", name, im.Name, hits, w)
			}
			hitsWant[name] = hits
		case NameFilterBlock:
			if im.FilterBlock == nil {
				return 0, false
			}
			ns = im.FilterBlock(cfg.BitsPerKey, ops, iters)
		}
		return ns, true
	}

	var results []*Result
	for _, name := range Benchmarks {
		// The same iteration count for all: about RunTime for the slowest.
		iters := 0
		var byImpl []*Result
		var ran []Impl
		for _, im := range impls {
			ns, ok := run(im, name, 1)
			if !ok {
				continue
			}
			if n := int(cfg.RunTime.Nanoseconds() / max(ns, 1)); iters == 0 || n < iters {
				iters = n
			}
			byImpl = append(byImpl, &Result{Bench: name, Impl: im.Name, Allocs: -1})
			ran = append(ran, im)
		}
		iters = max(iters, 1)
		for r := 0; r < cfg.Rounds; r++ {
			// Alternate the order too, so neither goes first every time.
			for j := range byImpl {
				if r%2 == 1 {
					j = len(byImpl) - 1 - j
				}
				res := byImpl[j]
				ns, _ := run(ran[j], name, iters)
				res.Iters = iters
				res.NsPerKey = append(res.NsPerKey, float64(ns)/float64(iters)/float64(cfg.N))
			}
		}
		for j, res := range byImpl {
			if ran[j].Allocs != nil {
				res.Allocs = ran[j].Allocs(name, cfg.BitsPerKey, queries(name), filter, ops)
			}
		}
		if mismatch != nil {
			return nil, mismatch
		}
		results = append(results, byImpl...)
	}
	return results, nil
}

// Reference is the implementation that ratios are relative to.
const Reference = "c++"

// WriteTable prints results as a table: median ns/key of each
// implementation per benchmark, and each one's ratio to Reference.
func WriteTable(w io.Writer, results []*Result, extra []Extra) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	var impls, counted []string // all, and those that count allocations
	rows := map[string]map[string]*Result{}
	for _, r := range results {
		if !slices.Contains(impls, r.Impl) {
			impls = append(impls, r.Impl)
		}
		if r.Allocs >= 0 && !slices.Contains(counted, r.Impl) {
			counted = append(counted, r.Impl)
		}
		if rows[r.Bench] == nil {
			rows[r.Bench] = map[string]*Result{}
		}
		rows[r.Bench][r.Impl] = r
	}
	others := slices.DeleteFunc(slices.Clone(impls), func(im string) bool { return im == Reference })
	fmt.Fprint(tw, "benchmark\t")
	for _, im := range impls {
		fmt.Fprintf(tw, "%s ns/key\t", im)
	}
	for _, im := range others {
		fmt.Fprintf(tw, "%s/%s\t", im, Reference)
	}
	for _, im := range counted {
		fmt.Fprintf(tw, "%s allocs/op\t", im)
	}
	fmt.Fprint(tw, "\n")
	// cell prints f of the benchmark's result of im, or "-" when ok says
	// there is none.
	cell := func(r *Result, ok bool, format string, f func(*Result) float64) {
		if r != nil && ok {
			fmt.Fprintf(tw, format+"\t", f(r))
		} else {
			fmt.Fprint(tw, "-\t")
		}
	}
	for _, name := range Benchmarks {
		row := rows[name]
		if len(row) == 0 {
			continue
		}
		fmt.Fprintf(tw, "%s\t", name)
		for _, im := range impls {
			cell(row[im], true, "%.2f", (*Result).Median)
		}
		ref := row[Reference]
		for _, im := range others {
			cell(row[im], ref != nil, "%.2f", func(r *Result) float64 { return r.Median() / ref.Median() })
		}
		for _, im := range counted {
			cell(row[im], row[im] != nil && row[im].Allocs >= 0, "%.0f", func(r *Result) float64 { return r.Allocs })
		}
		fmt.Fprint(tw, "\n")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	// The fastest samples are the least disturbed on a busy machine.
	for _, im := range others {
		var parts []string
		for _, name := range Benchmarks {
			if r, ref := rows[name][im], rows[name][Reference]; r != nil && ref != nil {
				parts = append(parts, fmt.Sprintf("%s %.2f", name, r.Min()/ref.Min()))
			}
		}
		if len(parts) > 0 {
			if _, err := fmt.Fprintf(w, "fastest samples, %s/%s: %s\n", im, Reference, strings.Join(parts, ", ")); err != nil {
				return err
			}
		}
	}
	for _, e := range extra {
		if _, err := fmt.Fprintf(w, "%s: %s\n", e.Name, e.Text); err != nil {
			return err
		}
	}
	return nil
}

// Extra is a measurement outside the table, such as verify throughput.
type Extra struct {
	Name, Text string
	Lines      []string // benchstat lines ("BenchmarkX 1 2.5 MB/s")
}

// WriteBenchstat writes results in the Go benchmark format that benchstat
// reads: a header naming the machine (and builtBy), one line per sample.
func WriteBenchstat(w io.Writer, builtBy string, results []*Result, extra []Extra) error {
	var b strings.Builder
	fmt.Fprintf(&b, "goos: %s\ngoarch: %s\npkg: github.com/ldbcompat/ldbcompat/internal/bench\ncpu: %s\n",
		runtime.GOOS, runtime.GOARCH, CPUName())
	if builtBy != "" {
		fmt.Fprintf(&b, "built-by: %s\n", builtBy)
	}
	for _, r := range results {
		for _, ns := range r.NsPerKey {
			fmt.Fprintf(&b, "Benchmark%s/impl=%s \t%d\t%.3f ns/key", r.Bench, r.Impl, r.Iters, ns)
			if r.Allocs >= 0 {
				fmt.Fprintf(&b, "\t%.0f allocs/op", r.Allocs)
			}
			b.WriteByte('\n')
		}
	}
	for _, e := range extra {
		for _, l := range e.Lines {
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// BuiltBy names the compiler of each of impls that says which, in their
// order: "go go1.26.8, c++ g++ 12.2.0". It is empty when none does.
func BuiltBy(impls []Impl) string {
	var parts []string
	for _, im := range impls {
		if im.BuiltBy != "" {
			parts = append(parts, im.Name+" "+im.BuiltBy)
		}
	}
	return strings.Join(parts, ", ")
}

// CPUName names the processor as precisely as /proc/cpuinfo allows, e.g.
// "AMD EPYC (AuthenticAMD cpu family 25 model 17)": a virtual machine may
// mask the name but not the numbers.
func CPUName() string {
	return cpuName(CPUInfo())
}

func cpuName(info map[string]string) string {
	name := info["model name"]
	var ids []string
	if v := info["vendor_id"]; v != "" {
		ids = append(ids, v)
	}
	for _, f := range []string{"cpu family", "model", "CPU implementer", "CPU part"} {
		if v := info[f]; v != "" {
			ids = append(ids, strings.ToLower(f)+" "+v)
		}
	}
	switch {
	case name == "" && len(ids) == 0:
		return "unknown"
	case len(ids) == 0:
		return name
	case name == "":
		return strings.Join(ids, " ")
	}
	return name + " (" + strings.Join(ids, " ") + ")"
}

// CPUInfo returns the fields of the first processor in /proc/cpuinfo
// (none when it cannot be read).
func CPUInfo() map[string]string {
	info := map[string]string{}
	data, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return info
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(line) == "" && len(info) > 0 {
			break // the end of the first processor's block
		}
		if k, v, ok := strings.Cut(line, ":"); ok {
			info[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	return info
}
