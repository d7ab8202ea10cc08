package cases

import (
	"bytes"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/internal/blockop"
)

// The golden vectors are a text file per kind of case: '#' lines of
// provenance, then a Record a line. Only `make vectors` writes them.

// VectorDir is where the golden vectors live, relative to the module root
// and in the module's embedded file system (ldbcompat.TestData).
const VectorDir = "testdata/vectors"

// LegacyVectorDir holds the golden vectors of LevelDB v1.17 on amd64: the
// answers of releases before v1.18 (google/leveldb#243) where plain char is
// signed. They are not embedded.
const LegacyVectorDir = "testdata/vectors-v1.17"

// vectorKinds names the kinds of record, one file (<kind>.txt) each.
var vectorKinds = []string{"hash", "filter", "match", "block", "reader"}

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

// Vectors is a set of parsed golden vectors.
type Vectors struct {
	prov    map[string]string // provenance lines of the first file
	records map[string]Record // by kind + " " + name
}

// Provenance returns the provenance the vectors' first file records.
func (v *Vectors) Provenance() Provenance {
	return Provenance{LevelDB: v.prov["leveldb"], TarballSHA256: v.prov["tarball-sha256"], GOARCH: v.prov["goarch"], Compiler: v.prov["compiler"]}
}

// Len returns how many records v holds.
func (v *Vectors) Len() int { return len(v.records) }

// LoadVectors reads the vector files in dir of fsys.
func LoadVectors(fsys fs.FS, dir string) (*Vectors, error) {
	vs := &Vectors{prov: map[string]string{}, records: map[string]Record{}}
	for _, kind := range vectorKinds {
		comments, err := readRecords(fsys, path.Join(dir, kind+".txt"), "golden vectors", kind, vs.records)
		if err != nil {
			return nil, err
		}
		for _, c := range comments {
			if k, v, ok := strings.Cut(strings.TrimPrefix(c, "# "), ": "); ok && kind == vectorKinds[0] {
				vs.prov[k] = v
			}
		}
	}
	return vs, nil
}

// readRecords adds the records of the vector file name of fsys to recs, by
// kind and name, and returns its '#' lines; kind, unless "", is the only
// kind it may hold. what names the vectors in errors.
func readRecords(fsys fs.FS, name, what, kind string, recs map[string]Record) (comments []string, err error) {
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	for i, t := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(t, "#") {
			comments = append(comments, t)
			continue
		}
		if strings.TrimSpace(t) == "" {
			continue
		}
		r, err := ParseRecord(t)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, i+1, err)
		}
		if kind != "" && r.Kind != kind {
			return nil, fmt.Errorf("%s:%d: a %s record in the %s file", name, i+1, r.Kind, kind)
		}
		recs[r.Kind+" "+r.Name] = r
	}
	return comments, nil
}

// Lookup returns the record of the case of kind and name, which must have
// the fingerprint in: an error says the vectors do not hold the case, or
// hold it with other inputs, and to regenerate them.
func (v *Vectors) Lookup(kind, name, in string) (Record, error) {
	return lookup(v.records, "golden vectors", kind, name, in)
}

func lookup(recs map[string]Record, what, kind, name, in string) (Record, error) {
	r, ok := recs[kind+" "+name]
	if !ok {
		return r, fmt.Errorf("%s have no %s case %q: regenerate them with `make vectors`", what, kind, name)
	}
	if r.In != in {
		return r, fmt.Errorf("%s' %s case %q has other inputs (fingerprint %s, cases now %s): regenerate them with `make vectors`", what, kind, name, r.In, in)
	}
	return r, nil
}

// Impl is an implementation the cases run on: upstream (Upstream, under
// the leveldb tag), package bloom, or a port.
type Impl interface {
	Hash(data []byte, seed uint32) uint32
	// CreateFilter appends the filter of keys to a copy of dst.
	CreateFilter(bitsPerKey int, keys [][]byte, dst []byte) []byte
	MatchAll(bitsPerKey int, keys [][]byte, filter []byte) []bool
	// BuildBlock runs ops on a new builder and returns the block of each
	// Finish.
	BuildBlock(p Policy, ops []blockop.Op) [][]byte
	ReadBlock(p Policy, contents []byte, qs []blockop.Query) []bool
}

// The record of each case for an implementation. Filter and block queries
// are asked of ref, the reference output (upstream's filter or block), so
// that a port is judged on upstream's bytes, not on its own.

// HashRecord runs c on im.
func HashRecord(im Impl, c HashCase) Record {
	return Record{"hash", c.Name, c.In(), fmt.Sprintf("%08x", im.Hash(c.Data, c.Seed)), ""}
}

// FilterOut returns the filter im creates for c, after c.Dst.
func FilterOut(im Impl, c FilterCase) []byte { return im.CreateFilter(c.BitsPerKey, c.Keys, c.Dst) }

// FilterRecord records out, im's filter for c, and im's answers to c's
// queries on ref (the reference filter, after c.Dst), if not nil.
func FilterRecord(im Impl, c FilterCase, out, ref []byte) Record {
	var ans []bool
	if ref != nil {
		ans = im.MatchAll(c.BitsPerKey, c.Queries, ref[len(c.Dst):])
	}
	return Record{"filter", c.Name, c.In(), EncodeBytes(out), EncodeBools(ans)}
}

// MatchRecord runs c on im.
func MatchRecord(im Impl, c MatchCase) Record {
	return Record{"match", c.Name, c.In(), "", EncodeBools(im.MatchAll(c.BitsPerKey, c.Queries, c.Filter))}
}

// BlockRecord records outs, im's blocks for c, and im's answers to c's
// queries on ref (the reference block), if not nil.
func BlockRecord(im Impl, c BlockCase, outs [][]byte, ref []byte) Record {
	var ans []bool
	if ref != nil {
		ans = im.ReadBlock(c.Policy, ref, c.Queries)
	}
	return Record{"block", c.Name, c.In(), EncodeList(outs), EncodeBools(ans)}
}

// ReaderRecord runs c on im.
func ReaderRecord(im Impl, c ReaderCase) Record {
	return Record{"reader", c.Name, c.In(), "", EncodeBools(im.ReadBlock(c.Policy, c.Contents, c.Queries))}
}

// LastFinish is the block a builder op sequence ends with.
func LastFinish(outs [][]byte) []byte {
	if len(outs) == 0 {
		return nil
	}
	return outs[len(outs)-1]
}

// RecordVectors runs every case of VectorSet on im and returns the vector
// files' contents, by file name.
func RecordVectors(im Impl, prov Provenance) map[string][]byte {
	cs := VectorSet()
	files := map[string]*bytes.Buffer{}
	for _, k := range vectorKinds {
		files[k] = bytes.NewBufferString(prov.header(k))
	}
	w := func(e Expected, _ error) { fmt.Fprintln(files[e.Rec.Kind], e.Rec) }
	o := implOracle{im}
	for _, c := range cs.Hash {
		w(o.Hash(c))
	}
	for _, c := range cs.Filter {
		w(o.Filter(c))
	}
	for _, c := range cs.Match {
		w(o.Match(c))
	}
	for _, c := range cs.Block {
		w(o.Block(c))
	}
	for _, c := range cs.Reader {
		w(o.Reader(c))
	}
	out := map[string][]byte{}
	for k, b := range files {
		out[k+".txt"] = b.Bytes()
	}
	return out
}

// Expected is upstream's answer for one case: its record and its outputs
// (the filter, or each Finish's block), nil when held only as a digest
// that could not be recovered.
type Expected struct {
	Rec Record
	Raw [][]byte
}

// An Oracle gives upstream's answer for each case: from the golden vectors
// (VectorOracle) or live (UpstreamOracle, under the leveldb tag).
type Oracle interface {
	Hash(c HashCase) (Expected, error)
	Filter(c FilterCase) (Expected, error)
	Match(c MatchCase) (Expected, error)
	Block(c BlockCase) (Expected, error)
	Reader(c ReaderCase) (Expected, error)
}

// implOracle answers by running the cases on im, its own reference.
type implOracle struct{ im Impl }

func (o implOracle) Hash(c HashCase) (Expected, error) {
	return Expected{Rec: HashRecord(o.im, c)}, nil
}

func (o implOracle) Filter(c FilterCase) (Expected, error) {
	out := FilterOut(o.im, c)
	return Expected{Rec: FilterRecord(o.im, c, out, out), Raw: [][]byte{out}}, nil
}

func (o implOracle) Match(c MatchCase) (Expected, error) {
	return Expected{Rec: MatchRecord(o.im, c)}, nil
}

func (o implOracle) Block(c BlockCase) (Expected, error) {
	outs := o.im.BuildBlock(c.Policy, c.Ops)
	return Expected{Rec: BlockRecord(o.im, c, outs, LastFinish(outs)), Raw: outs}, nil
}

func (o implOracle) Reader(c ReaderCase) (Expected, error) {
	return Expected{Rec: ReaderRecord(o.im, c)}, nil
}

// VectorOracle answers from golden vectors. An output recorded only as a
// digest is recovered from Ref when Ref's output has that digest.
type VectorOracle struct {
	V   *Vectors
	Ref Impl
	// Name is the bloom filter policy's name of the release that wrote V,
	// which V does not record; "" means bloom.PolicyName.
	Name string
}

// PolicyName returns the name of the bloom filter policy of the release
// that wrote the vectors.
func (o VectorOracle) PolicyName() string {
	if o.Name == "" {
		return bloom.PolicyName
	}
	return o.Name
}

func (o VectorOracle) rec(kind, name, in string) (Expected, error) {
	r, err := o.V.Lookup(kind, name, in)
	return Expected{Rec: r}, err
}

// Hash returns upstream's answer for c.
func (o VectorOracle) Hash(c HashCase) (Expected, error) { return o.rec("hash", c.Name, c.In()) }

// Filter returns upstream's answer for c, with its filter unless that is
// recorded as a digest Ref does not reproduce.
func (o VectorOracle) Filter(c FilterCase) (Expected, error) {
	return o.outputs("filter", c.Name, c.In(), func() [][]byte { return [][]byte{FilterOut(o.Ref, c)} })
}

// Match returns upstream's answer for c.
func (o VectorOracle) Match(c MatchCase) (Expected, error) { return o.rec("match", c.Name, c.In()) }

// Block returns upstream's answer for c, with every block it returned
// unless one is recorded as a digest Ref does not reproduce.
func (o VectorOracle) Block(c BlockCase) (Expected, error) {
	return o.outputs("block", c.Name, c.In(), func() [][]byte { return o.Ref.BuildBlock(c.Policy, c.Ops) })
}

// outputs returns the record of a case and its outputs, those recorded as
// digests recovered from refs (Ref's outputs), or none if one is not.
func (o VectorOracle) outputs(kind, name, in string, refs func() [][]byte) (Expected, error) {
	e, err := o.rec(kind, name, in)
	if err != nil {
		return Expected{}, err
	}
	encs := strings.Split(e.Rec.Out, ",")
	var cands [][]byte
	if strings.Contains(e.Rec.Out, "sha256:") {
		cands = refs()
	}
	outs := make([][]byte, 0, len(encs))
	for i, enc := range encs {
		var cand []byte
		if i < len(cands) {
			cand = cands[i]
		}
		b := raw(enc, cand)
		if b == nil {
			return e, nil
		}
		outs = append(outs, b)
	}
	e.Raw = outs
	return e, nil
}

// Reader returns upstream's answer for c.
func (o VectorOracle) Reader(c ReaderCase) (Expected, error) { return o.rec("reader", c.Name, c.In()) }

// The log vectors (log.txt) hold a "log" record a case: out is upstream's
// clean log (mostly a digest logfile.WriteLog recovers), ans what its
// log::Reader returns from the case's log (EncodeRecords).

// LogVectorFile is the name of the log cases' vector file in VectorDir.
const LogVectorFile = "log.txt"

// RecordLogVectors runs every case of LogCases on an implementation's
// log writer and reader and returns the vector file's contents.
func RecordLogVectors(write func([][]byte) []byte, read func([]byte) ([][]byte, error), prov Provenance) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(prov.header("log"))
	b.WriteString("# log: out is the clean log; ans the count of records log::Reader returns from the case's log and their fingerprint\n")
	for _, c := range LogCases() {
		log := write(c.Records)
		data, err := c.Damage(log)
		if err != nil {
			return nil, err
		}
		recs, err := read(data)
		if err != nil {
			return nil, fmt.Errorf("log case %q: %w", c.Name, err)
		}
		fmt.Fprintln(&b, Record{"log", c.Name, c.In(), EncodeBytes(log), EncodeRecords(recs)})
	}
	return b.Bytes(), nil
}

// LogVectors are the parsed log vectors, by kind and name.
type LogVectors map[string]Record

// LoadLogVectors reads the log vector file in dir of fsys.
func LoadLogVectors(fsys fs.FS, dir string) (LogVectors, error) {
	out := LogVectors{}
	_, err := readRecords(fsys, path.Join(dir, LogVectorFile), "golden vectors", "log", out)
	return out, err
}

// Lookup returns the record of c, which must hold c's inputs.
func (v LogVectors) Lookup(c LogCase) (Record, error) {
	return lookup(v, "golden vectors", "log", c.Name, c.In())
}

// Upstream returns upstream's clean log of c: candidate, the log a
// reference writer wrote, when its digest is the one recorded; else nil.
func (v LogVectors) Upstream(r Record, candidate []byte) []byte {
	if r.Out == "" {
		if len(candidate) == 0 {
			return []byte{}
		}
		return nil
	}
	return raw(r.Out, candidate)
}
