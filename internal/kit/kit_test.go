package kit

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/internal/manifest/manifesttest"
	"github.com/ldbcompat/ldbcompat/internal/table"
	"github.com/ldbcompat/ldbcompat/internal/table/tabletest"
	"github.com/ldbcompat/ldbcompat/internal/tabledb"
)

// TestBloomPort runs the kit on this module's bloom package, as a port's
// author runs it on theirs.
func TestBloomPort(t *testing.T) {
	TestPort(t, bloomPort())
}

// TestCheckCatchesBrokenPorts gives the kit ports with known mistakes and
// checks that each is reported under the right property, with an effect,
// and that panics are failures, not crashes.
func TestCheckCatchesBrokenPorts(t *testing.T) {
	tables := os.DirFS("../../testdata/tables")
	signed := func(b int) bloom.FilterPolicy { return renamed{bloom.NewLegacyPolicy(b, true)} }
	cases := []struct {
		name   string
		port   Port
		fail   []Property // properties that must fail
		effect string     // a phrase one of the effects must hold
	}{
		{"panicking NewPolicy", Port{Name: "x", NewPolicy: func(int) bloom.FilterPolicy { panic("boom") }},
			[]Property{PropName, PropFilterBytes, PropKeyMayMatch}, "panics"},
		{"panicking hash", Port{Name: "x", NewPolicy: bloom.NewPolicy, Hash: func(d []byte, s uint32) uint32 {
			if len(d) == 3 {
				panic("three")
			}
			return bloom.Hash(d, s)
		}}, []Property{PropHash}, "panics"},
		{"reader that refuses damaged blocks", Port{Name: "x", NewPolicy: bloom.NewPolicy,
			NewFilterBlockReader: func(p bloom.FilterPolicy, c []byte) FilterBlockReader {
				if len(c) < 5 {
					panic(Refusal{fmt.Errorf("filter block of %d bytes", len(c))})
				}
				return bloom.NewFilterBlockReader(p, c)
			}}, []Property{PropReader}, "refuses"},
		{"reader that never matches an empty filter range", Port{Name: "x", NewPolicy: bloom.NewPolicy,
			NewFilterBlockReader: func(p bloom.FilterPolicy, c []byte) FilterBlockReader {
				return allFalseAbove{bloom.NewFilterBlockReader(p, c)}
			}}, []Property{PropReader}, "false negatives"},
		{"signed hash in the read path", tablePort(signed, bloom.NewPolicy), []Property{PropFilterBytes, PropKeyMayMatch, PropReadDB}, "Get on the port reports keys missing"},
		{"filters over internal keys", tablePort(bloom.NewPolicy, func(b int) bloom.FilterPolicy { return tagPolicy{bloom.NewPolicy(b)} }),
			[]Property{PropWriteDB}, "upstream's Get reports keys missing"},
		{"no filter blocks", tablePort(bloom.NewPolicy, func(int) bloom.FilterPolicy { return nil }), []Property{PropWriteDB}, "without a filter"},
		{"old filter name", tablePort(bloom.NewPolicy, func(b int) bloom.FilterPolicy { return bloom.NewLegacyPolicy(b, false) }),
			[]Property{PropWriteDB}, "looks only for filter.leveldb.BuiltinBloomFilter2"},
		{"panicking ReadDB", Port{Name: "x", NewPolicy: bloom.NewPolicy, ReadDB: func(string, int, [][]byte) ([]bool, error) { panic("read") }},
			[]Property{PropReadDB}, "panics"},
		{"MANIFEST with another table size", withManifestSize(tablePort(bloom.NewPolicy, bloom.NewPolicy), 1),
			[]Property{PropWriteDB}, "upstream cannot open the databases the port writes"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := check(c.port, kitConfig{tables: tables})
			if r.Passed() {
				t.Fatalf("kit passes a broken port:\n%s", r)
			}
			var effects []string
			for _, prop := range c.fail {
				res, _ := r.Result(prop)
				if res.Outcome != Fail {
					t.Errorf("%s: %s, want fail", prop, res.Outcome)
					continue
				}
				if res.Effect == "" {
					t.Errorf("%s fails without an effect", prop)
				}
				effects = append(effects, res.Effect)
				for _, f := range res.Failures {
					if f.Repro == "" && prop != PropName {
						t.Errorf("%s %s: no reproducer", prop, f.Case)
					}
					if f.Effect == "" || f.Harm == 0 || !strings.Contains(res.Effect, f.Effect) {
						t.Errorf("%s %s: effect %q, harm %v; want both, the effect among the property's %q", prop, f.Case, f.Effect, f.Harm, res.Effect)
					}
				}
			}
			if !strings.Contains(strings.Join(effects, "\n"), c.effect) {
				t.Errorf("no effect mentions %q:\n%s", c.effect, strings.Join(effects, "\n"))
			}
			s := r.String()
			for _, res := range r.Results {
				if len(res.Failures) > MaxShown && !strings.Contains(s, fmt.Sprintf("... and %d more", len(res.Failures)-MaxShown)) {
					t.Errorf("%s: %d failures, report does not cut them at %d", res.Property, len(res.Failures), MaxShown)
				}
			}
			if testing.Verbose() {
				t.Log("\n" + s)
			}
		})
	}
}

// TestCheckRequiresNewPolicy: a port without NewPolicy is a suite error,
// not a crash.
func TestCheckRequiresNewPolicy(t *testing.T) {
	r := Check(Port{Name: "empty"})
	if r.Passed() || len(r.Errors) == 0 {
		t.Fatalf("a port without NewPolicy passes:\n%s", r)
	}
}

// allFalseAbove answers false for offsets past the first filter range,
// dropping keys upstream's reader accepts.
type allFalseAbove struct{ r *bloom.FilterBlockReader }

func (a allFalseAbove) KeyMayMatch(off uint64, key []byte) bool {
	return off < 2048 && a.r.KeyMayMatch(off, key)
}

// renamed gives a policy upstream's name.
type renamed struct{ bloom.FilterPolicy }

func (renamed) Name() string { return bloom.PolicyName }

// tagPolicy builds its filters from keys with an 8-byte tag appended, as a
// port that forgets to strip internal keys' tags does.
type tagPolicy struct{ bloom.FilterPolicy }

func (p tagPolicy) CreateFilter(keys [][]byte, dst []byte) []byte {
	tagged := make([][]byte, len(keys))
	for i, k := range keys {
		tagged[i] = append(append([]byte(nil), k...), 1, 0, 0, 0, 0, 0, 0, 0)
	}
	return p.FilterPolicy.CreateFilter(tagged, dst)
}

// tablePort is a port made of package internal/table and package bloom:
// ReadDB gets each key from the newest version in any table whose filter
// (built with readPolicy) says it may be in a data block, as upstream's
// Table::InternalGet does; WriteDB writes one table with a filter block
// built with writePolicy (none if it returns nil). Its table hooks are
// internal/table's writer and reader.
func tablePort(readPolicy, writePolicy func(int) bloom.FilterPolicy) Port {
	return withTableHooks(Port{
		Name:      "table",
		NewPolicy: readPolicy,
		ReadDB: func(dir string, bits int, keys [][]byte) ([]bool, error) {
			return tabledb.Read(dir, readPolicy(bits), nil, keys)
		},
		WriteDB: func(dir string, kvs [][2][]byte, bits int) error {
			return tabledb.Write(dir, kvs, writePolicy(bits), nil)
		},
	})
}

// withLeftovers has p's WriteDB also leave table files that its MANIFEST
// does not list: one with no filter, one that is not a table. Upstream
// never reads them, so the kit must not check them.
func withLeftovers(p Port) Port {
	write := p.WriteDB
	p.WriteDB = func(dir string, kvs [][2][]byte, bits int) error {
		if err := write(dir, kvs, bits); err != nil {
			return err
		}
		old := tabletest.Build([]table.Entry{{Key: table.InternalKey{UserKey: []byte("k"), Seq: 1, Kind: table.KindValue}}}, tabletest.Options{})
		if err := os.WriteFile(filepath.Join(dir, "000003.ldb"), old, 0o644); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, "000004.ldb"), []byte("half-written"), 0o644)
	}
	return p
}

// withManifestSize has p's WriteDB record another size for its table in
// the MANIFEST, as golang/leveldb's compactions do.
func withManifestSize(p Port, size uint64) Port {
	write := p.WriteDB
	p.WriteDB = func(dir string, kvs [][2][]byte, bits int) error {
		if err := write(dir, kvs, bits); err != nil {
			return err
		}
		return manifesttest.WriteDB(dir, 3, manifesttest.Table{Level: 1, Number: 5, Size: size})
	}
	return p
}

// kPlusOne writes filters with one probe more than upstream: the k byte
// and the bits it sets are a bits/key range higher.
type kPlusOne struct {
	bloom.FilterPolicy
	bits int
}

func (p kPlusOne) CreateFilter(keys [][]byte, dst []byte) []byte {
	// Upstream's filter, its last byte (k) one higher.
	out := bloom.NewPolicy(p.bits).CreateFilter(keys, dst)
	out[len(out)-1]++
	return out
}

// noMinimum writes filters without upstream's 64-bit minimum.
type noMinimum struct {
	bloom.FilterPolicy
	bits int
}

func (p noMinimum) CreateFilter(keys [][]byte, dst []byte) []byte {
	bits := max(len(keys)*p.bits, 8)
	dst = append(dst, make([]byte, (bits+7)/8)...)
	return append(dst, byte(min(max(p.bits*69/100, 1), 30)))
}

// TestFailuresNameTheCause: where upstream's rules tell why a port's
// bytes differ, the failure says it in words: the k byte and the bits/key
// it implies, the filter size and the minimum, the signed-char hash, the
// old filter name.
func TestFailuresNameTheCause(t *testing.T) {
	tables := os.DirFS("../../testdata/tables")
	for _, c := range []struct {
		name string
		port Port
		prop Property
		want []string
	}{
		{"k one too high", Port{Name: "x", NewPolicy: func(b int) bloom.FilterPolicy { return kPlusOne{bloom.NewPolicy(b), b} }},
			// 10 bits/key: int(6.9) = 6; k 7 is int(b*0.69) for b = 11..11
			// (7.59) and 12 (8.28 is 8): bits/key 11 only.
			PropFilterBytes, []string{"the k byte", "upstream k 6, port k 7", "6 for 10 bits/key", "the port's k is what bits/key 11 gives"}},
		{"no 64-bit minimum", Port{Name: "x", NewPolicy: func(b int) bloom.FilterPolicy { return noMinimum{bloom.NewPolicy(b), b} }},
			PropFilterBytes, []string{"the filter's size differs", "at least 64", "at 10 bits/key: 64 bits", "under the 64-bit minimum"}},
		{"signed-char hash", Port{Name: "x", NewPolicy: bloom.NewPolicy, Hash: bloom.HashSignedTail},
			PropHash, []string{"signed char", "bloom.HashSignedTail gives the port's value", "google/leveldb#243"}},
		{"old filter name", Port{Name: "x", NewPolicy: func(b int) bloom.FilterPolicy { return bloom.NewLegacyPolicy(b, false) }},
			PropName, []string{`"leveldb.BuiltinBloomFilter" (the name LevelDB v1.4 to v1.17 gave the filter`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := check(c.port, kitConfig{tables: tables})
			res, _ := r.Result(c.prop)
			if res.Outcome != Fail || len(res.Failures) == 0 {
				t.Fatalf("%s: %s, want fail", c.prop, res.Outcome)
			}
			// A failure at 10 bits/key (a case of upstream's own tests'
			// size, the kit's most common) names the cause.
			var details []string
			for _, f := range res.Failures {
				all := true
				for _, w := range c.want {
					all = all && strings.Contains(f.Detail, w)
				}
				if all {
					return
				}
				details = append(details, f.Detail)
			}
			t.Errorf("no failure says all of %q:\n%s", c.want, strings.Join(details[:min(len(details), 5)], "\n"))
		})
	}
}
