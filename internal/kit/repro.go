package kit

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/ldbcompat/ldbcompat/internal/blockop"
	"github.com/ldbcompat/ldbcompat/internal/cases"
)

// maxHexArg is the longest input written out in hex.
const maxHexArg = 4096

// describeBytes says how got differs from want, with the bytes around the
// first difference; "" when equal.
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
	return hexCall(b)
}

// hexCall writes b as a HexBytes call, however long.
func hexCall(b []byte) string { return fmt.Sprintf("compat.HexBytes(%q)", hex.EncodeToString(b)) }

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

// caseInput writes a Case call getting an input too long for a line; the
// kit's own tests' sets name theirs.
func caseInput(origin, call, what, name string) string {
	switch origin {
	case cases.VectorOrigin, cases.LiveOrigin, cases.WideOrigin:
		return call
	}
	return fmt.Sprintf("<%s of case %q of %s>", what, name, origin)
}

// policyExpr writes the policy p as the port's call or TestHashPolicy.
func policyExpr(p cases.Policy) string {
	if p.Test {
		return "compat.TestHashPolicy{}"
	}
	return fmt.Sprintf("NewPolicy(%d)", p.BitsPerKey)
}

// reproHash writes c's call; hash inputs are short (64 bytes at most).
func reproHash(c cases.HashCase) string {
	return fmt.Sprintf("Hash(%s, 0x%08x)", hexCall(c.Data), c.Seed)
}

func reproFilter(c cases.FilterCase, origin string) string {
	return fmt.Sprintf("NewPolicy(%d).CreateFilter(%s, %s)", c.BitsPerKey,
		hexList(c.Keys, caseInput(origin, fmt.Sprintf("compat.CaseKeys(%q)", c.Name), "the keys", c.Name)), hexCall(c.Dst))
}

// queryArg writes query i of case name, key, as an argument.
func queryArg(origin, name string, i int, key []byte) string {
	return hexArg(key, caseInput(origin, fmt.Sprintf("compat.CaseQuery(%q, %d)", name, i), fmt.Sprintf("query %d", i), name))
}

// reproMatchOn asks KeyMayMatch of query i of case name on filter, which
// compat.CaseFilter(name) returns.
func reproMatchOn(origin, name string, bitsPerKey int, i int, key, filter []byte) string {
	return fmt.Sprintf("NewPolicy(%d).KeyMayMatch(%s, %s)", bitsPerKey, queryArg(origin, name, i, key),
		hexArg(filter, caseInput(origin, fmt.Sprintf("compat.CaseFilter(%q)", name), "the filter", name)))
}

// maxCalls is the most builder calls a reproducer writes out.
const maxCalls = 100

func reproBlock(c cases.BlockCase, origin string) string {
	total := 0
	for _, op := range c.Ops {
		total += len(op.Key)
	}
	if len(c.Ops) > maxCalls || total > maxHexArg {
		builder := fmt.Sprintf("NewFilterBlockBuilder(%s)", policyExpr(c.Policy))
		return caseInput(origin, fmt.Sprintf("compat.CaseCalls(%q, %s)", c.Name, builder), "the calls on "+builder, c.Name)
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
			parts = append(parts, fmt.Sprintf("b.AddKey(%s)", hexCall(op.Key)))
		case blockop.Finish:
			parts = append(parts, "b.Finish()")
		}
	}
	return strings.Join(parts, "; ")
}

// reproReaderOn asks a reader over contents, which compat.CaseBlock(name)
// returns, query i of case name, q.
func reproReaderOn(origin, name string, p cases.Policy, contents []byte, i int, q blockop.Query) string {
	return fmt.Sprintf("NewFilterBlockReader(%s, %s).KeyMayMatch(%d, %s)", policyExpr(p),
		hexArg(contents, caseInput(origin, fmt.Sprintf("compat.CaseBlock(%q)", name), "the block", name)), q.Offset, queryArg(origin, name, i, q.Key))
}
