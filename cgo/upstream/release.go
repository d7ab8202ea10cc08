//go:build leveldb

package upstream

import (
	"strings"

	"github.com/ldbcompat/ldbcompat/bloom"
)

// GoBloomPolicy returns package bloom's equivalent of the linked library's
// leveldb::NewBloomFilterPolicy(bitsPerKey): bloom.NewPolicy for v1.18 and
// later; for v1.4 to v1.17 bloom.NewLegacyPolicy, hashing tail bytes as
// this target's plain char does (CharIsSigned).
func GoBloomPolicy(bitsPerKey int) bloom.FilterPolicy {
	if LegacyBloom() {
		return bloom.NewLegacyPolicy(bitsPerKey, CharIsSigned())
	}
	return bloom.NewPolicy(bitsPerKey)
}

// GoHash returns package bloom's equivalent of the linked library's
// leveldb::Hash: bloom.HashSignedTail for v1.4 to v1.17 where plain char is
// signed, else bloom.Hash.
func GoHash(data []byte, seed uint32) uint32 {
	if LegacyBloom() && CharIsSigned() {
		return bloom.HashSignedTail(data, seed)
	}
	return bloom.Hash(data, seed)
}

// Reword returns status, the Status::ToString() that LevelDB 1.23 gives
// when it opens a table or recovers a MANIFEST (as ldbcompat's readers
// reproduce it), in the linked release's words:
//   - v1.4 to v1.17 call a file too short or without the magic number an
//     invalid argument; v1.18 made it a corruption.
//   - v1.4 and v1.5 write a comparator mismatch without the space before
//     "does not match existing comparator".
//   - v1.4 to v1.20 report a file that does not exist as an IO error (the
//     POSIX Env maps no errno to NotFound), and a CURRENT that names a
//     missing MANIFEST with that error alone; 1.21 made ENOENT NotFound and
//     wraps the latter in "Corruption: CURRENT points to a non-existent
//     file".
//   - main (after 1.23) names snappy in a snappy block's failure:
//     "corrupted snappy compressed block contents" (and "... length" where
//     the length does not decode, which 1.23's words do not tell apart).
//
// Other statuses are the same in every release since v1.4.
func Reword(status string) string {
	if strings.HasPrefix(Release(), "main") && status == "Corruption: corrupted compressed block contents" {
		return "Corruption: corrupted snappy compressed block contents"
	}
	_, minor := Version()
	if minor <= 5 {
		if i := strings.Index(status, " does not match existing comparator : "); strings.HasPrefix(status, "Invalid argument: ") && i >= 0 {
			status = status[:i] + status[i+1:]
		}
	}
	if minor <= 17 {
		for _, m := range []string{"file is too short to be an sstable", "not an sstable (bad magic number)"} {
			if status == "Corruption: "+m {
				return "Invalid argument: " + m
			}
		}
	}
	if minor <= 20 {
		status = strings.TrimPrefix(status, "Corruption: CURRENT points to a non-existent file: ")
		if rest, ok := strings.CutPrefix(status, "NotFound: "); ok && strings.HasSuffix(rest, ": No such file or directory") {
			return "IO error: " + rest
		}
	}
	return status
}
