package bloom

import "github.com/ldbcompat/ldbcompat/internal/filterblock"

// The arithmetic of util/bloom.cc: how many probes a bits-per-key setting
// gives and how large a filter of n keys is. It is internal/filterblock's,
// which readers of stored filters use too, with its inverses.

// ProbesFor is the number of probes, k, of util/bloom.cc's
// BloomFilterPolicy for bitsPerKey: int(bitsPerKey * 0.69), ln 2 rounded
// down, clamped to 1..30. A negative bitsPerKey is taken as 0, as by
// NewPolicy.
func ProbesFor(bitsPerKey int) int { return filterblock.Probes(bitsPerKey) }

// filterLen returns the length of a filter of n keys, k byte included:
// n times bits/key bits, at least 64, in whole bytes, and the k byte.
func (p *bloomPolicy) filterLen(n int) int { return filterblock.FilterLen(n, int(p.bitsPerKey)) }
