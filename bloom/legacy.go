package bloom

// LegacyPolicyName is the name LevelDB releases v1.4 to v1.17 gave their
// bloom filter. Their filters use the same layout as NewPolicy's, but their
// hash read tail bytes as plain chars: signed on x86, unsigned on ARM.
const LegacyPolicyName = "leveldb.BuiltinBloomFilter"

// NewLegacyPolicy returns the bloom filter policy of LevelDB releases v1.4
// to v1.17, named "leveldb.BuiltinBloomFilter", for reading and checking
// tables they wrote. With signedTail the policy hashes as those releases
// did on x86 (HashSignedTail); without it, as they did on ARM (Hash).
// bitsPerKey is treated as in NewPolicy.
//
// Upstream renamed the filter when it fixed the hash, in v1.18 (2014-09-16,
// google/leveldb#243), so LevelDB 1.18 and later ignore these
// filters rather than misread them.
func NewLegacyPolicy(bitsPerKey int, signedTail bool) FilterPolicy {
	return newBloom(bitsPerKey, LegacyPolicyName, signedTail)
}
