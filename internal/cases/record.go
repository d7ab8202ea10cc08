package cases

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/ldbcompat/ldbcompat/internal/blockop"
)

// A Record is one line of a golden vector file, "kind name in out ans":
// what an implementation answered for one case. In identifies the inputs,
// Out is the bytes produced (EncodeBytes), Ans the answers to the case's
// queries (EncodeBools); an empty field is written "-".
type Record struct {
	Kind, Name, In, Out, Ans string
}

// String returns r as a line of a vector file, without the newline.
func (r Record) String() string {
	f := func(s string) string {
		if s == "" {
			return "-"
		}
		return s
	}
	return strings.Join([]string{r.Kind, r.Name, f(r.In), f(r.Out), f(r.Ans)}, " ")
}

// ParseRecord parses a line that Record.String wrote.
func ParseRecord(line string) (Record, error) {
	f := strings.Fields(line)
	if len(f) != 5 {
		return Record{}, fmt.Errorf("want 5 fields (kind name in out ans), have %d", len(f))
	}
	for i := range f {
		if f[i] == "-" {
			f[i] = ""
		}
	}
	return Record{f[0], f[1], f[2], f[3], f[4]}, nil
}

// inlineMax is the longest output written out in hex.
const inlineMax = 96

// EncodeBytes writes b as a record's Out: hex up to 96 bytes, else
// sha256:<digest>/<length>.
func EncodeBytes(b []byte) string {
	if len(b) <= inlineMax {
		return hex.EncodeToString(b)
	}
	sum := sha256.Sum256(b)
	return fmt.Sprintf("sha256:%x/%d", sum, len(b))
}

// EncodeList writes each of bs with EncodeBytes, separated by commas.
func EncodeList(bs [][]byte) string {
	parts := make([]string, len(bs))
	for i, b := range bs {
		parts[i] = EncodeBytes(b)
	}
	return strings.Join(parts, ",")
}

// EncodeBools writes answers as a string of 0 and 1.
func EncodeBools(bs []bool) string {
	var sb strings.Builder
	for _, b := range bs {
		if b {
			sb.WriteByte('1')
		} else {
			sb.WriteByte('0')
		}
	}
	return sb.String()
}

// raw recovers the bytes behind an encoded output: the hex itself, or
// candidate when its digest is the one recorded; else nil.
func raw(enc string, candidate []byte) []byte {
	if strings.HasPrefix(enc, "sha256:") {
		if candidate != nil && EncodeBytes(candidate) == enc {
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

// fingerprint hashes a case's inputs: 16 hex digits of SHA-256.
type fingerprint struct{ buf []byte }

func (f *fingerprint) u64(v uint64) *fingerprint {
	f.buf = binary.LittleEndian.AppendUint64(f.buf, v)
	return f
}

func (f *fingerprint) bytes(b []byte) *fingerprint {
	f.u64(uint64(len(b)))
	f.buf = append(f.buf, b...)
	return f
}

func (f *fingerprint) list(bs [][]byte) *fingerprint {
	f.u64(uint64(len(bs)))
	for _, b := range bs {
		f.bytes(b)
	}
	return f
}

func (f *fingerprint) policy(p Policy) *fingerprint {
	return f.bytes([]byte(p.String()))
}

func (f *fingerprint) queries(qs []blockop.Query) *fingerprint {
	f.u64(uint64(len(qs)))
	for _, q := range qs {
		f.u64(q.Offset).bytes(q.Key)
	}
	return f
}

func (f *fingerprint) ops(ops []blockop.Op) *fingerprint {
	f.u64(uint64(len(ops)))
	for _, op := range ops {
		f.u64(uint64(op.Kind)).u64(op.Offset).bytes(op.Key)
	}
	return f
}

func (f *fingerprint) String() string {
	sum := sha256.Sum256(f.buf)
	return hex.EncodeToString(sum[:8])
}

// In returns the case's In field: its seed and data.
func (c HashCase) In() string {
	d := hex.EncodeToString(c.Data)
	if d == "" {
		d = "_"
	}
	return fmt.Sprintf("%08x:%s", c.Seed, d)
}

// In returns the case's In field: the fingerprint of its inputs.
func (c FilterCase) In() string {
	return new(fingerprint).u64(uint64(c.BitsPerKey)).list(c.Keys).bytes(c.Dst).list(c.Queries).String()
}

// In returns the case's In field: the fingerprint of its inputs.
func (c MatchCase) In() string {
	return new(fingerprint).u64(uint64(c.BitsPerKey)).bytes(c.Filter).list(c.Queries).String()
}

// In returns the case's In field: the fingerprint of its inputs.
func (c BlockCase) In() string {
	return new(fingerprint).policy(c.Policy).ops(c.Ops).queries(c.Queries).String()
}

// In returns the case's In field: the fingerprint of its inputs.
func (c ReaderCase) In() string {
	return new(fingerprint).policy(c.Policy).bytes(c.Contents).queries(c.Queries).String()
}
