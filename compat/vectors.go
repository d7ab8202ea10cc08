package compat

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"fmt"
	"io/fs"
	"path"
	"strings"
)

// The golden vectors are text files, one per kind of case, under
// testdata/vectors/. Each starts with '#' lines giving their provenance
// (LevelDB version, tarball SHA-256, architecture, compiler) and then holds
// one record per line:
//
//	kind name in out ans
//
// See record for the fields. `make vectors` writes them from upstream
// LevelDB; nothing else does.

// VectorDir is where the golden vectors live, relative to the module root
// and in the module's embedded file system.
const VectorDir = "testdata/vectors"

// vectorFiles names the file of each kind.
var vectorFiles = []string{"hash", "filter", "match", "block", "reader"}

// Provenance says where golden vectors came from.
type Provenance struct {
	LevelDB       string // LevelDB version
	TarballSHA256 string // SHA-256 of the release tarball it was built from
	GOARCH        string // architecture the generator ran on
	Compiler      string // C++ compiler that built LevelDB
}

func (p Provenance) header(kind string) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "# ldbcompat golden vectors (%s): upstream LevelDB's answers.\n", kind)
	sb.WriteString("# Written by `make vectors` from the C++ library; never edit by hand.\n")
	fmt.Fprintf(&sb, "# leveldb: %s\n# tarball-sha256: %s\n# goarch: %s\n# compiler: %s\n", p.LevelDB, p.TarballSHA256, p.GOARCH, p.Compiler)
	sb.WriteString("# columns: kind name in out ans (in: inputs or their fingerprint; out: output hex\n")
	sb.WriteString("# or sha256:<digest>/<length>; ans: answers to the case's queries; -: none)\n")
	return sb.String()
}

// vectorSet is the parsed golden vectors.
type vectorSet struct {
	prov    map[string]string // provenance fields of the first file
	records map[string]record // by kind + " " + name
}

func loadVectors(fsys fs.FS, dir string) (*vectorSet, error) {
	vs := &vectorSet{prov: map[string]string{}, records: map[string]record{}}
	for _, kind := range vectorFiles {
		name := path.Join(dir, kind+".txt")
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, fmt.Errorf("golden vectors: %w", err)
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 1<<20)
		for line := 1; sc.Scan(); line++ {
			t := sc.Text()
			if strings.HasPrefix(t, "#") {
				if k, v, ok := strings.Cut(strings.TrimPrefix(t, "# "), ": "); ok && kind == vectorFiles[0] {
					vs.prov[k] = v
				}
				continue
			}
			if strings.TrimSpace(t) == "" {
				continue
			}
			r, err := parseRecord(t)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %w", name, line, err)
			}
			vs.records[r.Kind+" "+r.Name] = r
		}
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	return vs, nil
}

// vectorOracle answers from the golden vectors. Outputs recorded only as a
// digest are recovered from this module's bloom package when its output has
// that digest (then it is upstream's output, byte for byte).
type vectorOracle struct {
	vs  *vectorSet
	ref impl
}

func (o vectorOracle) lookup(kind, name, in string) (record, error) {
	r, ok := o.vs.records[kind+" "+name]
	if !ok {
		return r, fmt.Errorf("golden vectors have no %s case %q: regenerate them with `make vectors`", kind, name)
	}
	if r.In != in {
		return r, fmt.Errorf("golden vectors' %s case %q has other inputs (fingerprint %s, cases now %s): regenerate them with `make vectors`", kind, name, r.In, in)
	}
	return r, nil
}

// raw recovers the bytes behind an encoded output.
func raw(enc string, candidate []byte) []byte {
	if strings.HasPrefix(enc, "sha256:") {
		if candidate != nil && encodeBytes(candidate) == enc {
			return candidate
		}
		return nil
	}
	b, err := hex.DecodeString(enc)
	if err != nil {
		return nil
	}
	return b
}

func (o vectorOracle) hash(c HashCase) (expected, error) {
	r, err := o.lookup("hash", c.Name, c.in())
	return expected{rec: r}, err
}

func (o vectorOracle) filter(c FilterCase) (expected, error) {
	r, err := o.lookup("filter", c.Name, c.in())
	if err != nil {
		return expected{}, err
	}
	e := expected{rec: r}
	var cand []byte
	if strings.HasPrefix(r.Out, "sha256:") {
		cand = filterOut(o.ref, c)
	}
	if b := raw(r.Out, cand); b != nil {
		e.raw = [][]byte{b}
	}
	return e, nil
}

func (o vectorOracle) match(c MatchCase) (expected, error) {
	r, err := o.lookup("match", c.Name, c.in())
	return expected{rec: r}, err
}

func (o vectorOracle) block(c BlockCase) (expected, error) {
	r, err := o.lookup("block", c.Name, c.in())
	if err != nil {
		return expected{}, err
	}
	e := expected{rec: r}
	encs := strings.Split(r.Out, ",")
	var cands [][]byte
	if strings.Contains(r.Out, "sha256:") {
		cands = o.ref.buildBlock(c.Policy, c.Ops)
	}
	for i, enc := range encs {
		var cand []byte
		if i < len(cands) {
			cand = cands[i]
		}
		b := raw(enc, cand)
		if b == nil {
			return e, nil
		}
		e.raw = append(e.raw, b)
	}
	return e, nil
}

func (o vectorOracle) reader(c ReaderCase) (expected, error) {
	r, err := o.lookup("reader", c.Name, c.in())
	return expected{rec: r}, err
}

// recordVectors runs every vector case on im (upstream) and returns the
// files' contents by kind.
func recordVectors(im impl, prov Provenance) map[string][]byte {
	cs := vectorCases()
	files := map[string]*bytes.Buffer{}
	for _, k := range vectorFiles {
		files[k] = bytes.NewBufferString(prov.header(k))
	}
	w := func(r record) { fmt.Fprintln(files[r.Kind], r) }
	for _, c := range cs.hash {
		w(hashRecord(im, c))
	}
	for _, c := range cs.filter {
		out := filterOut(im, c)
		w(filterRecord(im, c, out, out))
	}
	for _, c := range cs.match {
		w(matchRecord(im, c))
	}
	for _, c := range cs.block {
		outs := im.buildBlock(c.Policy, c.Ops)
		w(blockRecord(im, c, outs, lastFinish(outs)))
	}
	for _, c := range cs.reader {
		w(readerRecord(im, c))
	}
	out := map[string][]byte{}
	for k, b := range files {
		out[k+".txt"] = b.Bytes()
	}
	return out
}

// bloomRef is the module's own bloom package, used to recover outputs the
// vectors hold only as digests.
var bloomRef = portImpl{BloomPort()}
