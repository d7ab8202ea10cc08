package kit

import (
	"bytes"
	"fmt"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/internal/cases"
	"github.com/ldbcompat/ldbcompat/internal/filterblock"
	"github.com/ldbcompat/ldbcompat/internal/plural"
)

// maxExplainedBits bounds the bits/key values an explanation names.
const maxExplainedBits = 1000

// explainFilter says why the port's filter differs from upstream's (both
// without dst), or "" when only the bit array does.
func explainFilter(bitsPerKey int, keys [][]byte, want, got []byte) string {
	if len(want) == 0 || len(got) == 0 {
		return ""
	}
	n := len(keys)
	if len(want) != len(got) {
		s := fmt.Sprintf("the filter's size differs: upstream %d bytes (%d bits and the k byte), port %d bytes; upstream sizes a filter n*bits/key bits, at least 64, rounded up to whole bytes (%s at %d bits/key: %d bits)",
			len(want), 8*(len(want)-1), len(got), plural.Count(n, "key"), bitsPerKey, 8*(len(want)-1))
		switch lo, hi, ok := filterblock.BitsPerKeyForLen(n, len(got)); {
		case len(got) < 9:
			s += "; the port's filter is under the 64-bit minimum"
		case ok && n > 0:
			s += fmt.Sprintf("; the port's size is what %s gives", bitsRange(lo, hi))
		default:
			s += "; no bits/key gives the port's size: it sizes filters by another rule"
		}
		return s
	}
	wk, gk := int(want[len(want)-1]), int(got[len(got)-1])
	if wk != gk {
		s := fmt.Sprintf("the k byte (the last one, the number of probes) differs: upstream k %d, port k %d; upstream's k is int(bits/key * 0.69) clamped to 1..30, %d for %d bits/key",
			wk, gk, bloom.ProbesFor(bitsPerKey), bitsPerKey)
		if lo, hi, ok := filterblock.BitsPerKeyForProbes(gk, maxExplainedBits); ok {
			s += fmt.Sprintf("; the port's k is what %s gives", bitsRange(lo, hi))
		} else {
			s += "; no bits/key gives the port's k"
		}
		return s
	}
	return fmt.Sprintf("same size and k (%d), other bits set: the probe positions differ (upstream's: h %% bits with bits 64-bit, then h += h rotated right by 17), or the hash does", wk)
}

// explainFilterOut is explainFilter for a case's outputs, which start with
// the case's dst: a port that changes those bytes is told so first.
func explainFilterOut(c cases.FilterCase, want, got []byte) string {
	n := len(c.Dst)
	if len(got) < n || !bytes.Equal(got[:n], want[:n]) {
		return "the port changed the bytes before the filter: CreateFilter must append to dst and leave dst[:len(dst)] as it was"
	}
	return explainFilter(c.BitsPerKey, c.Keys, want[n:], got[n:])
}

// bitsRange formats a range of bits/key values.
func bitsRange(lo, hi int) string {
	if lo == hi {
		return fmt.Sprintf("bits/key %d", lo)
	}
	if hi >= maxExplainedBits {
		return fmt.Sprintf("bits/key %d or more", lo)
	}
	return fmt.Sprintf("bits/key %d..%d", lo, hi)
}

// explainHash says which known hash gives got: tail bytes as signed char
// (v1.4 to v1.17 on x86) or unsigned (v1.18 on).
func explainHash(data []byte, seed uint32, want, got string) string {
	signed := fmt.Sprintf("%08x", bloom.HashSignedTail(data, seed))
	unsigned := fmt.Sprintf("%08x", bloom.Hash(data, seed))
	switch {
	case got == signed && want == unsigned:
		return "the port hashes the 1-3 tail bytes as signed char, as LevelDB v1.4 to v1.17 do on x86 (bloom.HashSignedTail gives the port's value); LevelDB 1.18 and later hash them unsigned (google/leveldb#243), so keys with a tail byte of 0x80 or more hash otherwise"
	case got == unsigned && want == signed:
		return "the port hashes the 1-3 tail bytes unsigned, as LevelDB 1.18 and later do (bloom.Hash gives the port's value); the upstream release checked hashes them as signed char"
	}
	return ""
}

// olderName says which LevelDB releases name their filter name, when one
// did.
func olderName(name string) string {
	if name == bloom.LegacyPolicyName {
		return " (the name LevelDB v1.4 to v1.17 gave the filter; 1.18 renamed it when it changed the hash)"
	}
	return ""
}
