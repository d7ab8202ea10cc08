// Package filterblock holds what package bloom and this module's readers of
// filter blocks share, so that neither imports the other: the core of
// table/filter_block.cc's builder (Builder, wrapped by
// bloom.FilterBlockBuilder and used by internal/filtercheck to rebuild from
// hashes) and util/bloom.cc's arithmetic that readers of stored filters
// need (FilterBits, FilterLen, Probes and their inverses, AppendFilterPrefix).
package filterblock
