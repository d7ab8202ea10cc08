package bloom

// LegacyPolicyName is v1.4 to v1.17's filter name: NewPolicy's layout, but
// tail bytes hashed as plain char (signed on x86, unsigned on ARM).
const LegacyPolicyName = "leveldb.BuiltinBloomFilter"

// NewLegacyPolicy returns the v1.4 to v1.17 policy, for reading their
// tables: signedTail hashes as on x86 (HashSignedTail), else as on ARM
// (Hash); bitsPerKey as in NewPolicy. v1.18 renamed the filter when it
// fixed the hash (google/leveldb#243), so later releases ignore these.
func NewLegacyPolicy(bitsPerKey int, signedTail bool) FilterPolicy {
	return newBloom(bitsPerKey, LegacyPolicyName, signedTail)
}
