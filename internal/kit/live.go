//go:build leveldb

package kit

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/cgo/upstream"
	"github.com/ldbcompat/ldbcompat/internal/cases"
	"github.com/ldbcompat/ldbcompat/internal/fixturegen"
)

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

// liveDBNamed has upstream write the database of liveDBs named name.
func liveDBNamed(dir, name string) (upstreamDB, error) {
	for _, o := range liveDBOptions {
		if liveDBName(o) == name {
			return writeLiveDB(dir, o)
		}
	}
	return upstreamDB{}, fmt.Errorf("no database %q among those upstream writes live", name)
}

// confirmContents checks that upstream reads db as the kit's table scan.
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

// liveWriteLog returns the log upstream's log::Writer writes for recs.
func liveWriteLog(recs [][]byte) []byte { return upstream.WriteLog(recs) }

// liveReadLog returns log::Reader's records of data, with their offsets.
func liveReadLog(data []byte) ([][]byte, []int64, error) {
	r, err := upstream.ReadLog(data)
	if err != nil {
		return nil, nil, err
	}
	var recs [][]byte
	var offs []int64
	for _, e := range r.Events {
		if !e.Drop {
			recs = append(recs, e.Record)
			offs = append(offs, int64(e.Offset))
		}
	}
	return recs, offs, nil
}

// liveOpen returns what a scan finds after DB::Open of dir, which it
// writes: pass a copy.
func liveOpen(dir string, paranoid bool) ([]kv, error) {
	s, err := upstream.OpenScan(dir, paranoid)
	if err != nil {
		return nil, err
	}
	if s.OpenStatus != "" {
		return nil, errors.New(s.OpenStatus)
	}
	if s.ScanStatus != "" {
		return nil, fmt.Errorf("scan after DB::Open: %s", s.ScanStatus)
	}
	out := make([]kv, len(s.Keys))
	for i := range s.Keys {
		out[i] = kv{s.Keys[i], s.Values[i]}
	}
	return out, nil
}

// liveLogDBs has upstream leave a database of each fixturegen.LogDBKinds
// in its log under dir, with other seeds than the committed ones.
func liveLogDBs(dir string) ([]upstreamDB, error) {
	var out []upstreamDB
	for i, kind := range fixturegen.LogDBKinds {
		seed := int64(101 + i)
		d := filepath.Join(dir, kind)
		if _, err := fixturegen.GenerateLogDB(d, kind, seed); err != nil {
			return out, err
		}
		out = append(out, upstreamDB{name: fmt.Sprintf("%s%s (seed %d)", liveLogDBPrefix, kind, seed), bits: fixturegen.LogDBBitsPerKey, fsys: os.DirFS(d)})
	}
	return out, nil
}

// liveLogDBCount is how many databases liveLogDBs writes.
var liveLogDBCount = len(fixturegen.LogDBKinds)

func liveTable(c cases.TableCase) ([]byte, error) { return cases.UpstreamTable(c) }

func liveRead(data []byte, bits int) ([][2][]byte, string, error) {
	return cases.UpstreamRead(data, bits)
}

// noPolicyName has no filter block: upstream reads without a filter.
const noPolicyName = "ldbcompat.no-filter-policy"

// liveGets looks every key up through upstream's TableCache::Get, checksums
// verified, with a bloom filter of bits (none for 0).
func liveGets(data []byte, keys [][]byte, bits int) ([]keyGet, error) {
	dir, err := os.MkdirTemp("", "ldbcompat-table-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, "000001.ldb"), data, 0o644); err != nil {
		return nil, err
	}
	o := upstream.TableOptions{PolicyName: noPolicyName, Lookups: keys}
	if bits > 0 {
		o.PolicyName, o.BitsPerKey = upstream.BloomName(bits), bits
	}
	r, err := upstream.ReadTable(dir, 1, uint64(len(data)), o)
	if err != nil {
		return nil, fmt.Errorf("upstream's lookups in the port's table: %w", err)
	}
	if r.OpenStatus != "" {
		return nil, fmt.Errorf("upstream's TableCache cannot open the port's table: %s", r.OpenStatus)
	}
	out := make([]keyGet, len(r.Gets))
	for i, g := range r.Gets {
		out[i] = keyGet{found: g.Found, key: g.Key, value: g.Value, status: g.Status}
	}
	return out, nil
}
