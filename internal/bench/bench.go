// Package bench compares implementations of LevelDB's bloom filter and
// filter block on the same inputs, in one process, and prints a table of
// nanoseconds per key with the ratio of each implementation to upstream C++.
//
// An implementation is an Impl: a set of functions that each run one
// workload a given number of times and return the time the loop took,
// measured by the implementation itself (upstream's loops are timed inside
// C++, so no cgo call is counted). Run alternates the implementations round
// by round, so that a slower or faster stretch of a shared machine hits all
// of them alike, and reports the median of the rounds.
//
// `make bench` runs internal/cmd/benchcmp, which compares package bloom
// with upstream LevelDB 1.23 (package cgo/upstream, build tag leveldb).
// A Go port of LevelDB joins the comparison by passing its own Impl to
// Main; the ports module does this from ports/cmd/bench, which `make bench`
// runs when it exists. Both also run Verify: `ldbcompat verify`'s CPU time
// beside upstream's own full scan of the same databases, as a ratio.
//
// Output is benchstat-compatible: one line per round and implementation,
//
//	BenchmarkCreateFilter/impl=go  50  6.12 ns/key
//
// so two runs can be compared with `benchstat old.txt new.txt`.
package bench

import (
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
	// KeysPerBlock and BlockSize shape the filter block workload: a table
	// of 4 KiB data blocks holding about 100 keys each.
	KeysPerBlock = 100
	BlockSize    = 4096
	// blockTrailer is the 5 bytes (type and CRC) that follow each block.
	blockTrailer = 5
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
// block builder while writing a table of keys in data blocks of
// KeysPerBlock keys, each BlockSize bytes long: StartBlock(0), the keys of
// each block followed by StartBlock with the offset just past that block's
// trailer, then Finish.
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
	// Name appears in the table and as "impl=<Name>" in benchmark names.
	Name string
	// BuiltBy, when not empty, names the compiler of the Impl's timed code
	// ("go1.26.8", "g++ 12.2.0"), which Main prints under the CPU.
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
	// the named benchmark (see Benchmarks); Main prints them.
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
	if c.N == 0 {
		c.N = DefaultN
	}
	if c.BitsPerKey == 0 {
		c.BitsPerKey = DefaultBitsPerKey
	}
	if c.Rounds == 0 {
		c.Rounds = 9
	}
	if c.RunTime == 0 {
		c.RunTime = 30 * time.Millisecond
	}
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
	perIter := map[string]int{
		NameCreateFilter: cfg.N, NameMatchHit: cfg.N, NameMatchMiss: cfg.N, NameFilterBlock: cfg.N,
	}

	// One filter for everybody's KeyMayMatch, and a check that everybody
	// builds it byte for byte.
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
			q := keys
			if name == NameMatchMiss {
				q = misses
			}
			var hits int
			hits, ns = im.KeyMayMatch(cfg.BitsPerKey, q, filter, iters)
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
		// Calibrate: the iteration count that takes about RunTime for
		// the slowest implementation, the same for all of them.
		iters := 0
		var byImpl []*Result
		for _, im := range impls {
			ns, ok := run(im, name, 1)
			if !ok {
				continue
			}
			if ns <= 0 {
				ns = 1
			}
			if n := int(cfg.RunTime.Nanoseconds() / ns); iters == 0 || n < iters {
				iters = n
			}
			byImpl = append(byImpl, &Result{Bench: name, Impl: im.Name, Allocs: -1})
		}
		iters = max(iters, 1)
		for r := 0; r < cfg.Rounds; r++ {
			// Alternate the order too, so neither goes first every time.
			for j := range byImpl {
				if r%2 == 1 {
					j = len(byImpl) - 1 - j
				}
				res := byImpl[j]
				ns, _ := run(implNamed(impls, res.Impl), name, iters)
				res.Iters = iters
				res.NsPerKey = append(res.NsPerKey, float64(ns)/float64(iters)/float64(perIter[name]))
			}
		}
		for _, res := range byImpl {
			if im := implNamed(impls, res.Impl); im.Allocs != nil {
				q := keys
				if name == NameMatchMiss {
					q = misses
				}
				res.Allocs = im.Allocs(name, cfg.BitsPerKey, q, filter, ops)
			}
		}
		if mismatch != nil {
			return nil, mismatch
		}
		results = append(results, byImpl...)
	}
	return results, nil
}

func implNamed(impls []Impl, name string) Impl {
	for _, im := range impls {
		if im.Name == name {
			return im
		}
	}
	panic("bench: no implementation " + name)
}

// Reference is the implementation that ratios are relative to.
const Reference = "c++"

// WriteTable prints results as a table: median ns/key of each
// implementation per benchmark, and each one's ratio to Reference.
func WriteTable(w io.Writer, results []*Result, extra []Extra) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	var impls, counted []string // all, and those that count allocations
	for _, r := range results {
		if !slices.Contains(impls, r.Impl) {
			impls = append(impls, r.Impl)
		}
		if r.Allocs >= 0 && !slices.Contains(counted, r.Impl) {
			counted = append(counted, r.Impl)
		}
	}
	fmt.Fprint(tw, "benchmark\t")
	for _, im := range impls {
		fmt.Fprintf(tw, "%s ns/key\t", im)
	}
	for _, im := range impls {
		if im != Reference {
			fmt.Fprintf(tw, "%s/%s\t", im, Reference)
		}
	}
	for _, im := range counted {
		fmt.Fprintf(tw, "%s allocs/op\t", im)
	}
	fmt.Fprint(tw, "\n")
	for _, name := range Benchmarks {
		row := map[string]*Result{}
		for _, r := range results {
			if r.Bench == name {
				row[r.Impl] = r
			}
		}
		if len(row) == 0 {
			continue
		}
		fmt.Fprintf(tw, "%s\t", name)
		for _, im := range impls {
			if r := row[im]; r != nil {
				fmt.Fprintf(tw, "%.2f\t", r.Median())
			} else {
				fmt.Fprint(tw, "-\t")
			}
		}
		ref := row[Reference]
		for _, im := range impls {
			if im == Reference {
				continue
			}
			if r := row[im]; r != nil && ref != nil {
				fmt.Fprintf(tw, "%.2f\t", r.Median()/ref.Median())
			} else {
				fmt.Fprint(tw, "-\t")
			}
		}
		for _, im := range counted {
			if r := row[im]; r != nil && r.Allocs >= 0 {
				fmt.Fprintf(tw, "%.0f\t", r.Allocs)
			} else {
				fmt.Fprint(tw, "-\t")
			}
		}
		fmt.Fprint(tw, "\n")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	// On a busy machine the median can still hold disturbed samples; the
	// fastest sample of each is the least disturbed, so its ratio is given
	// too.
	err := writePerImpl(w, impls, results, "fastest samples, %s/%s", ", ", func(name string, r, ref *Result) string {
		return fmt.Sprintf("%s %.2f", name, r.Min()/ref.Min())
	})
	if err != nil {
		return err
	}
	for _, e := range extra {
		if _, err := fmt.Fprintf(w, "%s: %s\n", e.Name, e.Text); err != nil {
			return err
		}
	}
	return nil
}

// writePerImpl prints a line for each implementation of impls but
// Reference that gives something: label (formatted with the
// implementation's name and Reference's), a colon, and part's text for
// each benchmark both ran, joined by sep; part returns "" to leave a
// benchmark out.
func writePerImpl(w io.Writer, impls []string, results []*Result, label, sep string, part func(name string, r, ref *Result) string) error {
	for _, im := range impls {
		if im == Reference {
			continue
		}
		var parts []string
		for _, name := range Benchmarks {
			r, ref := resultOf(results, name, im), resultOf(results, name, Reference)
			if r == nil || ref == nil {
				continue
			}
			if p := part(name, r, ref); p != "" {
				parts = append(parts, p)
			}
		}
		if len(parts) > 0 {
			if _, err := fmt.Fprintf(w, label+": %s\n", im, Reference, strings.Join(parts, sep)); err != nil {
				return err
			}
		}
	}
	return nil
}

// resultOf returns the result of benchmark bench for implementation
// impl, or nil.
func resultOf(results []*Result, bench, impl string) *Result {
	for _, r := range results {
		if r.Bench == bench && r.Impl == impl {
			return r
		}
	}
	return nil
}

// Extra is a measurement outside the table, such as verify throughput.
type Extra struct {
	Name string
	Text string
	// Lines are benchstat lines ("BenchmarkX 1 2.5 MB/s") for the file.
	Lines []string
}

// WriteBenchstat writes results in the Go benchmark format that benchstat
// reads: a header naming the machine (and the compilers, builtBy, when not
// empty: see BuiltBy), then one line per sample.
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

// CPUName names the processor as precisely as /proc/cpuinfo allows: the
// model name, then the vendor, family and model numbers, which a virtual
// machine shows even where it masks the name, e.g. "AMD EPYC (AuthenticAMD
// cpu family 25 model 17)"; on arm64, the implementer and part numbers.
func CPUName() string {
	return cpuName(cpuInfo())
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

// cpuInfo returns the fields of the first processor in /proc/cpuinfo
// (none when it cannot be read).
func cpuInfo() map[string]string {
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
