package compat

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/google/go-cmp/cmp"
)

// Failure is one divergence from upstream.
type Failure struct {
	Property string // hash, filter, match, block or reader
	Case     string // the case's name
	Detail   string // what differs, with the first differing byte and a diff
	Repro    string // the inputs, as a line to paste into a test
}

func (f Failure) String() string {
	s := fmt.Sprintf("%s %s: %s", f.Property, f.Case, f.Detail)
	if f.Repro != "" {
		s += "\n    reproduce: " + f.Repro
	}
	return s
}

// describeBytes explains how got differs from want: lengths, the first
// differing byte and a go-cmp diff of the bytes around it.
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
	window := func(b []byte) []string {
		var out []string
		for j := min(lo, len(b)); j < min(i+16, len(b)); j++ {
			out = append(out, fmt.Sprintf("%d: %02x", j, b[j]))
		}
		return out
	}
	fmt.Fprintf(&sb, "\n    bytes %d.. (-upstream +port):\n%s", lo, indent(cmp.Diff(window(want), window(got))))
	return sb.String()
}

// describeAnswers names the first query whose answer differs.
func describeAnswers(what string, want, got string, query func(i int) string) string {
	if want == got {
		return ""
	}
	n := 0
	first := -1
	for i := 0; i < len(want) && i < len(got); i++ {
		if want[i] != got[i] {
			n++
			if first < 0 {
				first = i
			}
		}
	}
	if len(want) != len(got) {
		return fmt.Sprintf("%s: %d answers, upstream gave %d", what, len(got), len(want))
	}
	return fmt.Sprintf("%s: %d of %d answers differ; first, query %d %s: upstream %v, port %v",
		what, n, len(want), first, query(first), want[first] == '1', got[first] == '1')
}

func indent(s string) string {
	return "      " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n      ")
}

// hexList writes keys as a Go [][]byte literal of hex strings, or names the
// case when that would be too long to paste.
func hexList(keys [][]byte) (string, bool) {
	total := 0
	for _, k := range keys {
		total += len(k)
	}
	if total > 2048 || len(keys) > 200 {
		return "", false
	}
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%q", hex.EncodeToString(k))
	}
	return "compat.HexKeys(" + strings.Join(parts, ", ") + ")", true
}

func hexArg(b []byte) string {
	if len(b) > 4096 {
		return fmt.Sprintf("<%d bytes>", len(b))
	}
	return fmt.Sprintf("compat.HexBytes(%q)", hex.EncodeToString(b))
}

func (c HashCase) repro() string {
	return fmt.Sprintf("Hash(%s, 0x%08x)", hexArg(c.Data), c.Seed)
}

func (c FilterCase) repro(generator string) string {
	if ks, ok := hexList(c.Keys); ok {
		return fmt.Sprintf("NewPolicy(%d).CreateFilter(%s, %s)", c.BitsPerKey, ks, hexArg(c.Dst))
	}
	return fmt.Sprintf("the case named %q of compat.%s", c.Name, generator)
}

func (c MatchCase) repro(i int) string {
	return fmt.Sprintf("NewPolicy(%d).KeyMayMatch(%s, %s)", c.BitsPerKey, hexArg(c.Queries[i]), hexArg(c.Filter))
}

func opsString(ops []Op) (string, bool) {
	if len(ops) > 100 {
		return "", false
	}
	parts := make([]string, len(ops))
	for i, op := range ops {
		switch op.Kind {
		case OpStartBlock:
			parts[i] = fmt.Sprintf("StartBlock(%d)", op.Offset)
		case OpAddKey:
			parts[i] = fmt.Sprintf("AddKey(%s)", hexArg(op.Key))
		case OpFinish:
			parts[i] = "Finish()"
		}
	}
	return strings.Join(parts, "; "), true
}

func (c BlockCase) repro(generator string) string {
	if s, ok := opsString(c.Ops); ok {
		return fmt.Sprintf("policy %v: %s", c.Policy, s)
	}
	return fmt.Sprintf("the case named %q of compat.%s", c.Name, generator)
}

func (c ReaderCase) repro(i int) string {
	q := c.Queries[i]
	return fmt.Sprintf("NewFilterBlockReader(policy %v, %s).KeyMayMatch(%d, %s)", c.Policy, hexArg(c.Contents), q.Offset, hexArg(q.Key))
}

func queryKey(keys [][]byte) func(int) string {
	return func(i int) string { return "key " + hex.EncodeToString(keys[i]) }
}

func queryAt(qs []Query) func(int) string {
	return func(i int) string {
		return fmt.Sprintf("offset %d key %s", qs[i].Offset, hex.EncodeToString(qs[i].Key))
	}
}
