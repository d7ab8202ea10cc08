package compat

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strings"
)

// A record is one line of a golden vector file: what an implementation
// answered for one case.
//
//	kind name in out ans
//
// in identifies the inputs (a fingerprint, or the inputs themselves when
// short), out is the bytes produced (hex when short, else
// sha256:<digest>/<length>), ans the answers to the case's queries as a
// string of 0 and 1. An empty field is written as "-".
type record struct {
	Kind, Name, In, Out, Ans string
}

func (r record) String() string {
	f := func(s string) string {
		if s == "" {
			return "-"
		}
		return s
	}
	return strings.Join([]string{r.Kind, r.Name, f(r.In), f(r.Out), f(r.Ans)}, " ")
}

func parseRecord(line string) (record, error) {
	f := strings.Fields(line)
	if len(f) != 5 {
		return record{}, fmt.Errorf("want 5 fields (kind name in out ans), have %d", len(f))
	}
	for i := range f {
		if f[i] == "-" {
			f[i] = ""
		}
	}
	return record{f[0], f[1], f[2], f[3], f[4]}, nil
}

// inlineMax is the longest output written out in hex.
const inlineMax = 96

func encodeBytes(b []byte) string {
	if len(b) <= inlineMax {
		return hex.EncodeToString(b)
	}
	sum := sha256.Sum256(b)
	return fmt.Sprintf("sha256:%x/%d", sum, len(b))
}

func encodeList(bs [][]byte) string {
	parts := make([]string, len(bs))
	for i, b := range bs {
		parts[i] = encodeBytes(b)
	}
	return strings.Join(parts, ",")
}

func encodeBools(bs []bool) string {
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

// fingerprint hashes a case's inputs: 16 hex digits of SHA-256 over a
// length-prefixed encoding.
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

func (f *fingerprint) policy(p PolicySpec) *fingerprint {
	return f.bytes([]byte(p.String()))
}

func (f *fingerprint) queries(qs []Query) *fingerprint {
	f.u64(uint64(len(qs)))
	for _, q := range qs {
		f.u64(q.Offset).bytes(q.Key)
	}
	return f
}

func (f *fingerprint) ops(ops []Op) *fingerprint {
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

func (c HashCase) in() string {
	d := hex.EncodeToString(c.Data)
	if d == "" {
		d = "_"
	}
	return fmt.Sprintf("%08x:%s", c.Seed, d)
}

func (c FilterCase) in() string {
	return new(fingerprint).u64(uint64(c.BitsPerKey)).list(c.Keys).bytes(c.Dst).list(c.Queries).String()
}

func (c MatchCase) in() string {
	return new(fingerprint).u64(uint64(c.BitsPerKey)).bytes(c.Filter).list(c.Queries).String()
}

func (c BlockCase) in() string {
	return new(fingerprint).policy(c.Policy).ops(c.Ops).queries(c.Queries).String()
}

func (c ReaderCase) in() string {
	return new(fingerprint).policy(c.Policy).bytes(c.Contents).queries(c.Queries).String()
}

// The record of each case for an implementation. Filter and block queries
// are asked of ref, the reference output (upstream's filter or block), so
// that a port is judged on upstream's bytes, not on its own.

func hashRecord(im impl, c HashCase) record {
	return record{"hash", c.Name, c.in(), fmt.Sprintf("%08x", im.hash(c.Data, c.Seed)), ""}
}

func filterOut(im impl, c FilterCase) []byte { return im.createFilter(c.BitsPerKey, c.Keys, c.Dst) }

func filterRecord(im impl, c FilterCase, out, ref []byte) record {
	var ans []bool
	if ref != nil {
		ans = im.matchAll(c.BitsPerKey, c.Queries, ref[len(c.Dst):])
	}
	return record{"filter", c.Name, c.in(), encodeBytes(out), encodeBools(ans)}
}

func matchRecord(im impl, c MatchCase) record {
	return record{"match", c.Name, c.in(), "", encodeBools(im.matchAll(c.BitsPerKey, c.Queries, c.Filter))}
}

func blockRecord(im impl, c BlockCase, outs [][]byte, ref []byte) record {
	var ans []bool
	if ref != nil {
		ans = im.readBlock(c.Policy, ref, c.Queries)
	}
	return record{"block", c.Name, c.in(), encodeList(outs), encodeBools(ans)}
}

func readerRecord(im impl, c ReaderCase) record {
	return record{"reader", c.Name, c.in(), "", encodeBools(im.readBlock(c.Policy, c.Contents, c.Queries))}
}

// lastFinish is the block a builder op sequence ends with.
func lastFinish(outs [][]byte) []byte {
	if len(outs) == 0 {
		return nil
	}
	return outs[len(outs)-1]
}
