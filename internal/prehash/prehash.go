// Package prehash lets this module's own packages hand a
// bloom.FilterBlockBuilder the hashes of keys instead of the keys, where
// they hashed the keys earlier (filtercheck hashes each key as it reads it
// from its data block, while the key is in the processor's cache, and
// rebuilds filter blocks later from the hashes). It is not part of package
// bloom's API: bloom sets AddHashes when it is initialised.
package prehash

// Seed is the seed util/bloom.cc's BloomHash passes to Hash: the hash a
// bloom filter of LevelDB 1.18 and later is made of is
// bloom.Hash(key, Seed).
const Seed = 0xbc9f1d34

// AddHashes adds keys to fb, a *bloom.FilterBlockBuilder, given their
// hashes bloom.Hash(key, Seed), as fb.AddKey would add each key. It adds
// nothing and returns false when fb's policy does not build its filters
// from that hash (a policy of another package, or the legacy policy hashing
// tail bytes signed); the caller then adds the keys.
var AddHashes func(fb any, hashes []uint32) bool
