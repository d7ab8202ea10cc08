package compat

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/ldbcompat/ldbcompat/internal/blockop"
	"github.com/ldbcompat/ldbcompat/internal/cases"
)

// What a failure prints: how the bytes differ, and a reproducer. A
// reproducer is a line to paste into a port's test, calling the port's own
// functions (NewPolicy, NewFilterBlockBuilder, ...) on the inputs written
// with HexBytes and HexKeys; inputs too long for a line are named instead,
// as a case of package internal/cases of this module.

// modulePath is this module, where internal/cases lives.
const modulePath = "github.com/ldbcompat/ldbcompat"

// maxHexArg is the longest input written out in hex.
const maxHexArg = 4096

// HexBytes decodes a hex string, panicking on bad input; reproducers are
// written with it.
func HexBytes(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

// HexKeys decodes hex strings into keys, panicking on bad input;
// reproducers are written with it.
func HexKeys(ss ...string) [][]byte {
	out := make([][]byte, len(ss))
	for i, s := range ss {
		out[i] = HexBytes(s)
	}
	return out
}

// describeBytes explains how got differs from want: lengths, the first
// differing byte, and the bytes around it from both, one above the other.
// It returns "" when they are equal.
func describeBytes(what string, want, got []byte) string {
	if bytes.Equal(want, got) {
		return ""
	}
	i := 0
	for i < len(want) && i < len(got) && want[i] == got[i] {
		i++
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s differs from upstream: upstream %d bytes, port %d bytes; first difference at byte %d", what, len(want), len(got), i)
	switch {
	case i < len(want) && i < len(got):
		fmt.Fprintf(&sb, " (upstream 0x%02x, port 0x%02x)", want[i], got[i])
	case i < len(want):
		fmt.Fprintf(&sb, " (port ends; upstream 0x%02x)", want[i])
	default:
		fmt.Fprintf(&sb, " (upstream ends; port 0x%02x)", got[i])
	}
	lo := max(0, i-8)
	row := func(b []byte) string {
		var parts []string
		for j := min(lo, len(b)); j < min(i+8, len(b)); j++ {
			parts = append(parts, fmt.Sprintf("%02x", b[j]))
		}
		if len(parts) == 0 {
			return "(none)"
		}
		return strings.Join(parts, " ")
	}
	fmt.Fprintf(&sb, "\n    bytes %d..:\n      upstream %s\n      port     %s\n               %s^^ byte %d",
		lo, row(want), row(got), strings.Repeat(" ", 3*(i-lo)), i)
	return sb.String()
}

// queryKey names query i of keys.
func queryKey(keys [][]byte) func(int) string {
	return func(i int) string { return "key " + hex.EncodeToString(keys[i]) }
}

// queryAt names query i of qs.
func queryAt(qs []blockop.Query) func(int) string {
	return func(i int) string {
		return fmt.Sprintf("offset %d key %s", qs[i].Offset, hex.EncodeToString(qs[i].Key))
	}
}

// hexArg writes b as a HexBytes call, or alt when b is too long for a
// line.
func hexArg(b []byte, alt string) string {
	if len(b) > maxHexArg {
		return alt
	}
	return fmt.Sprintf("compat.HexBytes(%q)", hex.EncodeToString(b))
}

// hexList writes keys as a HexKeys call, or alt when that would be too
// long to paste.
func hexList(keys [][]byte, alt string) string {
	total := 0
	for _, k := range keys {
		total += len(k)
	}
	if total > 2048 || len(keys) > 200 {
		return alt
	}
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%q", hex.EncodeToString(k))
	}
	return "compat.HexKeys(" + strings.Join(parts, ", ") + ")"
}

// caseInput names part of a case that is too long to write out.
func caseInput(what, name, set string) string {
	return fmt.Sprintf("<%s of case %q of %s in %s>", what, name, set, modulePath)
}

// policyExpr writes the policy p as the port's call or TestHashPolicy.
func policyExpr(p cases.Policy) string {
	if p.Test {
		return "compat.TestHashPolicy{}"
	}
	return fmt.Sprintf("NewPolicy(%d)", p.BitsPerKey)
}

func reproHash(c cases.HashCase) string {
	return fmt.Sprintf("Hash(%s, 0x%08x)", hexArg(c.Data, "<its data>"), c.Seed)
}

func reproFilter(c cases.FilterCase, origin string) string {
	return fmt.Sprintf("NewPolicy(%d).CreateFilter(%s, %s)", c.BitsPerKey,
		hexList(c.Keys, caseInput("the keys", c.Name, origin+".Filter")),
		hexArg(c.Dst, caseInput("the dst", c.Name, origin+".Filter")))
}

// reproMatchOn asks KeyMayMatch of key on filter (alt when too long).
func reproMatchOn(bitsPerKey int, key, filter []byte, alt string) string {
	return fmt.Sprintf("NewPolicy(%d).KeyMayMatch(%s, %s)", bitsPerKey, hexArg(key, "<its key>"), hexArg(filter, alt))
}

func reproBlock(c cases.BlockCase, origin string) string {
	if len(c.Ops) > 100 {
		return fmt.Sprintf("%s on NewFilterBlockBuilder(%s)", caseInput("the calls", c.Name, origin+".Block"), policyExpr(c.Policy))
	}
	return builderCalls(c.Policy, c.Ops)
}

// builderCalls writes ops as calls on a new builder with policy p.
func builderCalls(p cases.Policy, ops []blockop.Op) string {
	parts := []string{fmt.Sprintf("b := NewFilterBlockBuilder(%s)", policyExpr(p))}
	for _, op := range ops {
		switch op.Kind {
		case blockop.StartBlock:
			parts = append(parts, fmt.Sprintf("b.StartBlock(%d)", op.Offset))
		case blockop.AddKey:
			parts = append(parts, fmt.Sprintf("b.AddKey(%s)", hexArg(op.Key, "<its key>")))
		case blockop.Finish:
			parts = append(parts, "b.Finish()")
		}
	}
	return strings.Join(parts, "; ")
}

// reproReaderOn asks a reader over contents (alt when too long) query q.
func reproReaderOn(p cases.Policy, contents []byte, q blockop.Query, alt string) string {
	return fmt.Sprintf("NewFilterBlockReader(%s, %s).KeyMayMatch(%d, %s)", policyExpr(p), hexArg(contents, alt), q.Offset, hexArg(q.Key, "<its key>"))
}
