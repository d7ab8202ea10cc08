package bloom

import "github.com/ldbcompat/ldbcompat/internal/filterblock"

// util/bloom.cc's arithmetic (internal/filterblock has it with inverses).

// ProbesFor is util/bloom.cc's k for bitsPerKey: int(bitsPerKey * 0.69),
// clamped to 1..30, negative taken as 0.
func ProbesFor(bitsPerKey int) int { return filterblock.Probes(bitsPerKey) }

// filterLen is a filter's length in bytes, k byte included.
func (p *bloomPolicy) filterLen(n int) int { return filterblock.FilterLen(n, int(p.bitsPerKey)) }
