package verify

import (
	"math/rand/v2"
	"regexp"
	"testing"
)

// The expressions the hand-written matchers of tree.go stand for: RE2's
// meaning of them is the specification, and the test holds the matchers to
// it on crafted and random names and OPTIONS files.
var (
	pebbleMarkerRE = regexp.MustCompile(`(?i)^marker\.manifest\.[0-9]+\.`)
	optionsFileRE  = regexp.MustCompile(`^OPTIONS-[0-9]+$`)
	storeVersionRE = regexp.MustCompile(`(?m)^\s*(rocksdb_version|pebble_version)\s*=\s*(\S+)`)
)

// storeInputs returns the crafted inputs, then n random ones made of the
// pieces the expressions look for, so that near misses are common.
func storeInputs(n int) []string {
	in := []string{
		"", "marker.manifest.000001.MANIFEST-000001", "MARKER.Manifest.1.", "marker.manifest..x",
		"marker.manifest.12", "marker.manifest.12x.", "mar\u212aer.manife\u017ft.3.", "marker.manifest.\xff1.",
		"OPTIONS-000007", "OPTIONS-", "OPTIONS-12a", "options-12", "xOPTIONS-1", "OPTIONS-1\n",
		"[Version]\n  rocksdb_version=6.29.5\n", "pebble_version = 0.1\n", "x pebble_version=1\n",
		"\n\n\t pebble_version\n=\n v2 rest", "rocksdb_version=\n", "rocksdb_version=\nrocksdb_version=7",
		"rocksdb_version =  \n\n", "a\nrocksdb_versionx=1\npebble_version=2", "rocksdb_version\f=\r9\t",
	}
	pieces := []string{
		"marker", "MARKER", ".", "manifest", "MaNiFeSt", "0", "17", "x", "\u212a", "\u017f", "\xff",
		"OPTIONS-", "options-", "rocksdb_version", "pebble_version", "=", " ", "\t", "\n", "\r", "\f", "v1.2", "[Version]",
	}
	r := rand.New(rand.NewPCG(22, 1))
	for range n {
		s := ""
		for m := r.IntN(9); m >= 0; m-- {
			s += pieces[r.IntN(len(pieces))]
		}
		in = append(in, s)
	}
	return in
}

// TestStoreMatchers: isPebbleMarker, isOptionsFile and storeVersion agree
// with the regular expressions they replace.
func TestStoreMatchers(t *testing.T) {
	for _, s := range storeInputs(200000) {
		if got, want := isPebbleMarker(s), pebbleMarkerRE.MatchString(s); got != want {
			t.Errorf("isPebbleMarker(%q) = %v, want %v", s, got, want)
		}
		if got, want := isOptionsFile(s), optionsFileRE.MatchString(s); got != want {
			t.Errorf("isOptionsFile(%q) = %v, want %v", s, got, want)
		}
		key, value, ok := storeVersion([]byte(s))
		m := storeVersionRE.FindSubmatch([]byte(s))
		if ok != (m != nil) || ok && (string(key) != string(m[1]) || string(value) != string(m[2])) {
			t.Errorf("storeVersion(%q) = %q, %q, %v; want %q", s, key, value, ok, m)
		}
	}
}
