//go:build leveldb

package versions

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/cgo/upstream"
	"github.com/ldbcompat/ldbcompat/internal/cases"
	"github.com/ldbcompat/ldbcompat/internal/filtercheck"
	"github.com/ldbcompat/ldbcompat/internal/fixturegen"
	"github.com/ldbcompat/ldbcompat/internal/verify"
)

// OutEnv names the file TestVersionFacts writes the linked build's Facts
// to, as JSON (tools/versions.sh sets it); unset, the test only checks them.
const OutEnv = "LDBCOMPAT_VERSIONS_OUT"

// moduleRoot is the module's root, from this package's directory.
const moduleRoot = "../.."

// vectorDirs are the committed golden-vector sets upstream's answers are
// compared with: 1.23's and genuine v1.17's (amd64).
var vectorDirs = []string{cases.VectorDir, "testdata/vectors-v1.17"}

// TestVersionFacts asks the linked LevelDB what docs/versions.md says of
// it, writes that where LDBCOMPAT_VERSIONS_OUT says, and checks that the
// facts agree with upstream's history: v1.4 to v1.17 name the filter
// leveldb.BuiltinBloomFilter and hash tail bytes as plain char (signed on
// x86, unsigned on ARM), v1.18 onward name it leveldb.BuiltinBloomFilter2
// and hash them unsigned (google/leveldb#243); the answers to the golden-
// vector cases are then those of the set written by a build that hashes the
// same way; and `ldbcompat verify` accepts a database the build writes.
func TestVersionFacts(t *testing.T) {
	out := os.Getenv(OutEnv)
	major, minor := upstream.Version()
	f := &Facts{
		Release:      upstream.Release(),
		Header:       fmt.Sprintf("%d.%d", major, minor),
		GOARCH:       runtime.GOARCH,
		CharIsSigned: upstream.CharIsSigned(),
		FilterName:   upstream.BloomName(10),
	}
	if out != "" && f.Release == "" {
		t.Fatalf("%s is set but cgo/upstream.Release() is empty: build with the flags of docker/build-leveldb.sh --print-env", OutEnv)
	}
	f.Hash = hashVariant(t)
	f.Filter = filterVariant(t)
	answers := cases.RecordVectors(cases.Upstream, cases.Provenance{})
	for _, dir := range vectorDirs {
		m, err := compareVectors(dir, answers)
		if err != nil {
			t.Fatal(err)
		}
		f.Vectors = append(f.Vectors, m)
	}
	f.DB = checkDB(t)
	if out != "" {
		if err := WriteFacts(out, f); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", out)
	}

	t.Logf("LevelDB %s (headers %s), %s: filter %q, hash %+v, filters %+v, database: %s",
		f.Release, f.Header, f.GOARCH, f.FilterName, f.Hash, f.Filter, f.DB.Verdict())
	legacy := upstream.LegacyBloom()
	wantName, wantVariant := bloom.PolicyName, Unsigned
	if legacy {
		wantName = bloom.LegacyPolicyName
		if f.CharIsSigned {
			wantVariant = Signed
		}
	}
	if f.FilterName != wantName {
		t.Errorf("LevelDB %s names its bloom filter %q, want %q", f.Header, f.FilterName, wantName)
	}
	if f.Hash.Variant != wantVariant {
		t.Errorf("LevelDB %s (plain char signed: %v) hashes tail bytes >= 0x80 as %s (%+v), want %s", f.Header, f.CharIsSigned, f.Hash.Variant, f.Hash, wantVariant)
	}
	if f.Filter.Variant != wantVariant {
		t.Errorf("LevelDB %s (plain char signed: %v) builds filters as the %s model (%+v), want %s", f.Header, f.CharIsSigned, f.Filter.Variant, f.Filter, wantVariant)
	}
	// Golden vectors: an unsigned build answers as 1.23 did (v1.4 to
	// v1.17 differ from 1.23 only in that hash); a signed one as v1.17 on
	// amd64, whose set is compared when present.
	for _, m := range f.Vectors {
		want := m.Dir == cases.VectorDir && wantVariant == Unsigned ||
			m.Dir != cases.VectorDir && m.Present && wantVariant == Signed
		if m.Identical() != want {
			t.Errorf("LevelDB %s (%s tail bytes): identical to the golden vectors of %s (LevelDB %s) is %v, want %v: %d of %d records reproduced, %d answers, first differing record %q",
				f.Header, wantVariant, m.Dir, m.LevelDB, m.Identical(), want, m.Equal, m.Records, m.Fresh, m.FirstDiff)
		}
	}
	checkDBFacts(t, f.DB, legacy, wantVariant)
}

func checkDBFacts(t *testing.T, d *DBCheck, legacy bool, variant string) {
	t.Helper()
	if d.Error != "" {
		t.Errorf("database written through levigo: %s", d.Error)
		return
	}
	if d.Exit != verify.ExitOK {
		t.Errorf("verify exits %d on a database upstream wrote, want %d: %s", d.Exit, verify.ExitOK, d.Summary)
	}
	want := verify.OK
	if legacy {
		want = verify.OldFilter
		if !slices.Contains(d.Legacy, variant) || slices.ContainsFunc(d.Legacy, func(s string) bool { return s != variant && s != filtercheck.LegacyEither }) {
			t.Errorf("verify found old filters written with the %v hash, want the %s one: %s", d.Legacy, variant, d.Summary)
		}
	}
	if d.Tables == 0 || d.Verdicts[string(want)] != d.Tables {
		t.Errorf("verify says %q of a database upstream wrote, want every table %s", d.Summary, want)
	}
}

// tailKeys returns keys of 1 to 11 bytes whose last 1 to 3 bytes (after
// the whole 4-byte words) hold at least one byte of 0x80 or above.
func tailKeys() [][]byte {
	rng := rand.New(rand.NewPCG(17, 0x0080_00ff))
	var keys [][]byte
	for body := 0; body <= 8; body += 4 {
		for tail := 1; tail <= 3; tail++ {
			for i := 0; i < 16; i++ {
				k := make([]byte, body+tail)
				for j := range k {
					k[j] = byte(rng.Uint32())
				}
				k[body+i%tail] |= 0x80
				keys = append(keys, k)
			}
		}
	}
	return keys
}

// hashVariant compares upstream's Hash with bloom's two models on
// tailKeys under several seeds.
func hashVariant(t *testing.T) Variant {
	t.Helper()
	n, u, s := 0, 0, 0
	for _, seed := range []uint32{0, 1, 0xbc9f1d34, 0xffffffff} {
		for _, k := range tailKeys() {
			hu, hs := bloom.Hash(k, seed), bloom.HashSignedTail(k, seed)
			if hu == hs {
				t.Fatalf("bloom.Hash and bloom.HashSignedTail agree on %x (seed %#x), whose tail has a byte >= 0x80: a sign-extended byte changes the sum", k, seed)
			}
			got := upstream.Hash(k, seed)
			n++
			if got == hu {
				u++
			}
			if got == hs {
				s++
			}
		}
	}
	return Classify(n, u, s)
}

// filterVariant compares upstream's bloom filters of groups of tailKeys
// with those of bloom's unsigned-tail and signed-tail policies.
func filterVariant(t *testing.T) Variant {
	t.Helper()
	keys := tailKeys()
	n, u, s := 0, 0, 0
	for _, bits := range []int{1, 10, 30} {
		for start := 0; start < len(keys); start += 16 {
			group := keys[start : start+16]
			fu := bloom.NewLegacyPolicy(bits, false).CreateFilter(group, nil)
			fs := bloom.NewLegacyPolicy(bits, true).CreateFilter(group, nil)
			if bytes.Equal(fu, fs) {
				t.Fatalf("the unsigned-tail and signed-tail filters of keys %d to %d at %d bits per key are the same: choose other keys", start, start+15, bits)
			}
			got := upstream.BloomCreateFilter(bits, group, nil)
			n++
			if bytes.Equal(got, fu) {
				u++
			}
			if bytes.Equal(got, fs) {
				s++
			}
		}
	}
	return Classify(n, u, s)
}

// compareVectors compares answers, upstream's vector files
// (cases.RecordVectors), with the set committed in dir, relative to the
// module root, record by record.
func compareVectors(dir string, answers map[string][]byte) (VectorMatch, error) {
	m := VectorMatch{Dir: dir}
	abs := filepath.Join(moduleRoot, filepath.FromSlash(dir))
	if _, err := os.Stat(abs); os.IsNotExist(err) {
		return m, nil
	}
	m.Present = true
	committed := map[string]string{}
	var order []string
	for _, name := range sortedKeys(answers) {
		data, err := os.ReadFile(filepath.Join(abs, name))
		if err != nil {
			return m, fmt.Errorf("golden vectors: %w", err)
		}
		for _, line := range lines(data) {
			if v, ok := strings.CutPrefix(line, "# leveldb: "); ok && m.LevelDB == "" {
				m.LevelDB = v
			}
			if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
				continue
			}
			key := recordKey(line)
			committed[key] = line
			order = append(order, key)
		}
	}
	fresh := map[string]string{}
	for _, data := range answers {
		for _, line := range lines(data) {
			if !strings.HasPrefix(line, "#") && strings.TrimSpace(line) != "" {
				fresh[recordKey(line)] = line
			}
		}
	}
	m.Records, m.Fresh = len(order), len(fresh)
	for _, key := range order {
		if fresh[key] == committed[key] {
			m.Equal++
		} else if m.FirstDiff == "" {
			m.FirstDiff = key
		}
	}
	return m, nil
}

// recordKey is a record's kind and name, its first two fields.
func recordKey(line string) string {
	f := strings.Fields(line)
	if len(f) < 2 {
		return line
	}
	return f[0] + " " + f[1]
}

func lines(data []byte) []string {
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// checkDB writes a database through levigo and runs verify on it.
func checkDB(t *testing.T) *DBCheck {
	t.Helper()
	snappy, err := fixturegen.SnappyAvailable()
	if err != nil {
		return &DBCheck{Error: fmt.Sprintf("probing snappy: %v", err)}
	}
	o := fixturegen.Options{BitsPerKey: 10, BlockSize: 1024, Snappy: snappy, KeysPerRun: 300, Seed: 1}
	dir := filepath.Join(t.TempDir(), o.Name())
	if _, err := fixturegen.Generate(dir, o); err != nil {
		return &DBCheck{Options: o.Name(), Error: err.Error()}
	}
	res := verify.Run([]string{dir}, verify.Options{})
	d := &DBCheck{Options: o.Name(), Summary: res.Summary.String(), Exit: res.Summary.ExitCode(),
		Tables: res.Summary.Tables, Verdicts: map[string]int{}}
	for v, n := range res.Summary.Verdicts {
		if n > 0 {
			d.Verdicts[string(v)] = n
		}
	}
	for _, rep := range res.Reports {
		if rep != nil && rep.Verdict == verify.OldFilter && rep.Comparison != nil && !slices.Contains(d.Legacy, rep.Comparison.Legacy) {
			d.Legacy = append(d.Legacy, rep.Comparison.Legacy)
		}
	}
	return d
}
