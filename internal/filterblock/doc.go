// Package filterblock holds what package bloom and this module's readers
// of filter blocks share, so that each imports it rather than the other:
// the filter block builder's core (Builder; bloom.FilterBlockBuilder wraps
// it, internal/filtercheck uses it to rebuild a table's block from hashes
// it computed while reading the keys) and the arithmetic of util/bloom.cc
// that readers of stored filters need (the bits/key a filter implies, a
// filter's first bytes).
//
//	builder.go  Builder, Policy, HashPolicy: table/filter_block.cc's builder
//	params.go   FilterBits, FilterLen, Probes and their inverses, AppendFilterPrefix: util/bloom.cc
package filterblock
