package bench

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// ExtraFunc measures something outside the table (such as verify
// against upstream's scan) with the given number of rounds.
type ExtraFunc func(rounds int) ([]Extra, error)

// Main is the body of a comparison program: it parses the flags (-rounds,
// -time, -n, -bits, -out; with the leveldb tag, Verify's), runs impls and
// extras, prints the table and writes the benchstat file.
func Main(impls []Impl, extras ...ExtraFunc) {
	var cfg Config
	flag.IntVar(&cfg.Rounds, "rounds", 9, "samples per benchmark and implementation")
	flag.DurationVar(&cfg.RunTime, "time", 30*time.Millisecond, "target duration of one sample")
	flag.IntVar(&cfg.N, "n", DefaultN, "keys per filter")
	flag.IntVar(&cfg.BitsPerKey, "bits", DefaultBitsPerKey, "bits per key")
	out := flag.String("out", ".cache/bench/bench.txt", "benchstat output file, or empty for none")
	flag.Parse()
	if err := run(cfg, *out, impls, extras); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(cfg Config, out string, impls []Impl, extras []ExtraFunc) error {
	fmt.Printf("cpu: %s, %d keys of %d bytes, %d bits/key, median of %d rounds\n",
		CPUName(), cfg.N, KeyLen, cfg.BitsPerKey, cfg.Rounds)
	builtBy := BuiltBy(impls)
	if builtBy != "" {
		fmt.Printf("built by: %s\n", builtBy)
	}
	results, err := Run(cfg, impls)
	if err != nil {
		return err
	}
	var ex []Extra
	for _, f := range extras {
		e, err := f(cfg.Rounds)
		if err != nil {
			return err
		}
		ex = append(ex, e...)
	}
	if err := WriteTable(os.Stdout, results, ex); err != nil {
		return err
	}
	if out == "" {
		return nil
	}
	var b bytes.Buffer
	if err := WriteBenchstat(&b, builtBy, results, ex); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(out, b.Bytes(), 0o644); err != nil {
		return err
	}
	fmt.Printf("benchstat output: %s\n", out)
	return nil
}
