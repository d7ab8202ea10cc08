//go:build leveldb

package kit

import (
	"testing"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/cgo/upstream"
	"github.com/ldbcompat/ldbcompat/internal/cases"
	"github.com/ldbcompat/ldbcompat/internal/filtercheck"
)

// The live tests compare package bloom with the linked upstream as it is:
// 1.23's filter (bloom.NewPolicy) for v1.18 and later, and for v1.4 to
// v1.17 their own (bloom.NewLegacyPolicy), whose hash reads tail bytes as
// plain char, signed or unsigned as the target's C++ compiler has it.

// legacyLive reports whether the linked upstream is v1.4 to v1.17.
func legacyLive() bool { return upstream.LegacyBloom() }

// livePort is package bloom as the linked upstream's bloom filter. It logs
// which one for an old release.
func livePort(t testing.TB) Port {
	t.Helper()
	if !legacyLive() {
		return bloomPort()
	}
	p := legacyBloomPort(upstream.CharIsSigned())
	major, minor := upstream.Version()
	t.Logf("LevelDB %d.%d predates v1.18: compared with %s", major, minor, p.Name)
	return p
}

// liveRef is livePort as a cases.Impl.
func liveRef(t testing.TB) cases.Impl { return portImpl{livePort(t)} }

// livePolicy is the linked upstream's NewBloomFilterPolicy(bits) in Go.
func livePolicy(bits int) bloom.FilterPolicy { return upstream.GoBloomPolicy(bits) }

// liveHash is the linked upstream's leveldb::Hash in Go.
func liveHash(data []byte, seed uint32) uint32 { return upstream.GoHash(data, seed) }

// liveLegacyHash is the filtercheck.Comparison.Legacy an old release's tables
// must show: the signed-char hash where plain char is signed (x86), the
// unsigned one elsewhere (arm64); either one when no key tells them apart.
func liveLegacyHash() string {
	if upstream.CharIsSigned() {
		return filtercheck.LegacySigned
	}
	return filtercheck.LegacyUnsigned
}

// TestLiveUpstreamFilter names the filter the live tests compare with, and
// checks that an old release's hash is the one livePort assumes: the
// hash_test.cc case whose tail bytes are 0x80 and above.
func TestLiveUpstreamFilter(t *testing.T) {
	major, minor := upstream.Version()
	data := []byte{0xc3, 0x97} // util/hash_test.cc: 0x5b663814 from v1.18
	got := upstream.Hash(data, 0xbc9f1d34)
	t.Logf("LevelDB %d.%d (%q): filter %q, plain char signed: %v, Hash(c397) = %#x",
		major, minor, upstream.Release(), upstream.BloomName(10), upstream.CharIsSigned(), got)
	if want := liveHash(data, 0xbc9f1d34); got != want {
		t.Errorf("upstream Hash(c397) = %#x, the live tests' hash %#x", got, want)
	}
	if want := livePolicy(10).Name(); upstream.BloomName(10) != want {
		t.Errorf("upstream's filter is %q, the live tests' %q", upstream.BloomName(10), want)
	}
}
