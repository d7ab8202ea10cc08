//go:build leveldb

package kit

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/cgo/upstream"
	"github.com/ldbcompat/ldbcompat/internal/cases"
	"github.com/ldbcompat/ldbcompat/internal/fixturegen"
)

// The kit's live half: upstream LevelDB through cgo (the case suite's live
// oracle) and through levigo (databases).

func upstreamOracle() cases.Oracle { return cases.UpstreamOracle }

// liveNotRun says why the kit cannot ask the linked LevelDB, or "": before
// v1.18 its bloom filter is not the one ports are checked for.
func liveNotRun() string {
	if !upstream.LegacyBloom() {
		return ""
	}
	major, minor := upstream.Version()
	how := "signed"
	if !upstream.CharIsSigned() {
		how = "unsigned"
	}
	return fmt.Sprintf("the linked upstream is LevelDB %d.%d, which predates v1.18: its bloom filter is named %q and hashes tail bytes as plain char (%s here), not 1.23's %q; build the kit against 1.18 or later (LEVELDB_VERSION) to compare live",
		major, minor, bloom.LegacyPolicyName, how, bloom.PolicyName)
}

// liveDBOptions are the databases upstream writes afresh for ReadDB: 10
// bits/key, the recommended setting, both compressions, two block sizes.
var liveDBOptions = []fixturegen.Options{
	{BitsPerKey: 10, BlockSize: 4096, Snappy: true, KeysPerRun: 300, Seed: 11},
	{BitsPerKey: 10, BlockSize: 1024, Snappy: false, KeysPerRun: 300, Seed: 12},
}

// liveDBs has upstream write databases under dir.
func liveDBs(dir string) ([]upstreamDB, error) {
	var out []upstreamDB
	for _, o := range liveDBOptions {
		db, err := writeLiveDB(dir, o)
		if err != nil {
			return out, err
		}
		out = append(out, db)
	}
	return out, nil
}

// writeLiveDB has upstream write the database of o under dir.
func writeLiveDB(dir string, o fixturegen.Options) (upstreamDB, error) {
	d := filepath.Join(dir, o.Name())
	if _, err := fixturegen.Generate(d, o); err != nil {
		return upstreamDB{}, err
	}
	return upstreamDB{name: liveDBName(o), bits: o.BitsPerKey, fsys: os.DirFS(d)}, nil
}

// liveDBName is how reports name the database of o.
func liveDBName(o fixturegen.Options) string {
	return fmt.Sprintf("upstream-written %s (seed %d)", o.Name(), o.Seed)
}

// liveDBNamed has upstream write, under dir, the database of liveDBs
// named name.
func liveDBNamed(dir, name string) (upstreamDB, error) {
	for _, o := range liveDBOptions {
		if liveDBName(o) == name {
			return writeLiveDB(dir, o)
		}
	}
	return upstreamDB{}, fmt.Errorf("no database %q among those upstream writes live", name)
}

// confirmContents checks that upstream reads db as the kit's table scan
// does: the scan's answers are then upstream's.
func confirmContents(db upstreamDB, contents []dbKey, absent [][]byte) error {
	keys := append(userKeys(contents), absent...)
	var vals [][]byte
	var errs []error
	err := inCopy(db.fsys, func(dir string) (err error) {
		vals, errs, err = upstreamGet(dir, db.bits, keys)
		return err
	})
	if err != nil {
		return err
	}
	for i, err := range errs {
		if err != nil {
			return fmt.Errorf("upstream's Get of key %x: %w", keys[i], err)
		}
	}
	for i, d := range contents {
		if (vals[i] != nil) != d.live || (d.live && !bytes.Equal(vals[i], d.value)) {
			return fmt.Errorf("upstream reads key %x otherwise than the kit's table scan (found %v, scan %v)", d.key, vals[i] != nil, d.live)
		}
	}
	for i := range absent {
		if vals[len(contents)+i] != nil {
			return fmt.Errorf("upstream finds key %x, which the kit's table scan does not", absent[i])
		}
	}
	return nil
}

// upstreamGet gets every key from dir with upstream and a bloom filter of
// bits: nil for missing keys, errs per Get; err when it does not open.
func upstreamGet(dir string, bits int, keys [][]byte) (vals [][]byte, errs []error, err error) {
	return fixturegen.GetAll(dir, bits, keys)
}

// Live reports whether the kit was built with the leveldb tag, asking
// upstream itself through cgo.
const Live = true
