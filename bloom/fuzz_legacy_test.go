package bloom

import (
	"bytes"
	"testing"
)

// FuzzLegacyPolicy checks NewLegacyPolicy, the filter of LevelDB v1.4 to
// v1.17, with both hashes: its name, filters byte for byte against the
// reference model, no added key filtered out, KeyMayMatch against the
// reference model, and the unsigned variant's filters identical to
// NewPolicy's (the two differ in name only). Upstream 1.23 has no such
// policy, so this target has no differential twin in package compat; the
// unsigned variant is compared with upstream there (FuzzUpstreamCreateFilter).
func FuzzLegacyPolicy(f *testing.F) {
	f.Add([]byte("hello\xffworld"), uint16(10), []byte{}, []byte("k\x80"), true)
	f.Add([]byte("\x80\xff\x81\x82\xff\xe9\xe9\xe9"), uint16(16), []byte{7}, []byte("\xff"), true)
	f.Add([]byte("a\xffb\xffc"), uint16(0), []byte{}, []byte(""), false)
	f.Add([]byte("\xfe\xfd\xfc\xfb\xfa"), uint16(1000), []byte{1, 2, 3}, []byte("\xfa"), true)
	f.Fuzz(func(t *testing.T, data []byte, bpk uint16, dst, probe []byte, signed bool) {
		// The fuzzing engine may pass arguments that share one backing
		// array: appending to dst would then overwrite the keys.
		dst = bytes.Clone(dst)
		bitsPerKey := int(bpk % 1001)
		keys := splitKeys(data)
		p := NewLegacyPolicy(bitsPerKey, signed)
		if p.Name() != LegacyPolicyName {
			t.Fatalf("NewLegacyPolicy(%d, %v).Name() = %q, want %q", bitsPerKey, signed, p.Name(), LegacyPolicyName)
		}
		prefix := bytes.Clone(dst)
		out := p.CreateFilter(keys, dst)
		if !bytes.Equal(out[:len(prefix)], prefix) || !bytes.Equal(dst, prefix) {
			t.Fatal("CreateFilter changed dst[:len(dst)]")
		}
		filter := out[len(prefix):]
		if want := refFilter(keys, bitsPerKey, ProbesFor(bitsPerKey), signed); !bytes.Equal(filter, want) {
			t.Fatalf("signed %v, bits/key %d, keys %q: filter differs from the reference\n got % x\nwant % x", signed, bitsPerKey, keys, filter, want)
		}
		if !signed {
			if cur := NewPolicy(bitsPerKey).CreateFilter(keys, nil); !bytes.Equal(filter, cur) {
				t.Fatalf("bits/key %d, keys %q: unsigned legacy filter differs from NewPolicy's", bitsPerKey, keys)
			}
		}
		for _, k := range append(keys, probe) {
			got, want := p.KeyMayMatch(k, filter), refMayMatch(k, filter, signed)
			if got != want {
				t.Fatalf("signed %v: KeyMayMatch(% x) = %v, reference %v", signed, k, got, want)
			}
		}
		for _, k := range keys {
			if !p.KeyMayMatch(k, filter) {
				t.Fatalf("signed %v, bits/key %d: key % x filtered out", signed, bitsPerKey, k)
			}
		}
	})
}
