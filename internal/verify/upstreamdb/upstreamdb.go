//go:build leveldb

package upstreamdb

import (
	"bytes"
	"fmt"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/cgo/upstream"
	"github.com/ldbcompat/ldbcompat/internal/verify"
)

// Class is what upstream does with a table.
type Class string

// The classes, from upstream's answers.
const (
	// Refused: TableCache's open fails, or its full scan ends in an error.
	Refused Class = "refuses it"
	// WithFilter: every Get consults the filter upstream looks up,
	// leveldb.BuiltinBloomFilter2.
	WithFilter Class = "reads it with its filter"
	// Ignored: no Get consults a filter under upstream's name, and every one
	// does under the old name, leveldb.BuiltinBloomFilter.
	Ignored Class = "ignores its filter"
	// Without: no Get consults a filter under either name.
	Without Class = "reads it without a filter"
)

// allows are the verdicts that agree with each class.
var allows = map[Class][]verify.Verdict{
	Refused:    {verify.Unreadable, verify.Missing},
	WithFilter: {verify.OK, verify.Mismatch},
	// An old-name filter that the unsigned hash (upstream's bloom filter
	// under the old name) does not reproduce is signed or a mismatch.
	Ignored: {verify.OldFilter, verify.Mismatch},
	Without: {verify.NoFilter, verify.OtherFilter, verify.FilterUnusable},
}

// Allows tells whether verify's verdict v agrees with what upstream does;
// bad-checksum and silent-corruption agree with any table upstream reads.
func (c Class) Allows(v verify.Verdict) bool {
	if c != Refused && (v == verify.BadChecksum || v == verify.SilentCorruption) {
		return true
	}
	for _, w := range allows[c] {
		if w == v {
			return true
		}
	}
	return false
}

// Table is what upstream does with one table.
type Table struct {
	Level        int
	Number, Size uint64 // the size it is read at
	Class        Class
	// Status is the open's status, or the scan's, when Refused.
	Status string
	// Keys counts the Gets, one per entry, with the entry's internal key;
	// Rejected those the filter rejected; NotFound those missing their entry.
	Keys, Rejected, NotFound int
	// Entries are the full scan's.
	Entries []upstream.TableEntry
}

// DB is what upstream does with a database.
type DB struct {
	// Status is VersionSet::Recover's with the comparator given, Missing
	// DBImpl::Recover's missing-file check; both "" when it opens.
	Status, Missing string
	// DefaultStatus is Recover's with LevelDB's default comparator, when
	// another one was given.
	DefaultStatus string
	// Tables are the live tables of the recovered version, level by level.
	Tables []Table
}

// Opens tells whether upstream opens the database.
func (d *DB) Opens() bool { return d.Status == "" && d.Missing == "" }

// Ask asks upstream about the database in dir, opened with the user
// comparator c, and each of its live tables (AskTable).
func Ask(dir string, c upstream.Comparator) (*DB, error) {
	rec, err := upstream.RecoverManifestWith(dir, c)
	if err != nil {
		return nil, err
	}
	d := &DB{Status: rec.Status, Missing: rec.Missing}
	if c != (upstream.Comparator{}) {
		def, err := upstream.RecoverManifest(dir)
		if err != nil {
			return nil, err
		}
		d.DefaultStatus = def.Status
	}
	for _, f := range rec.Files {
		t, err := AskTable(dir, f.Number, f.Size, c)
		if err != nil {
			return nil, err
		}
		t.Level = f.Level
		d.Tables = append(d.Tables, t)
	}
	return d, nil
}

// AskTable reads table number of dir at size bytes as LevelDB 1.23 reads a
// live table, with comparator c, then Gets every entry's key with upstream's
// bloom filter policy (10 bits/key), under the old name too when no Get
// consulted a filter.
func AskTable(dir string, number, size uint64, c upstream.Comparator) (Table, error) {
	return AskTableIn(dir, number, size, c, false)
}

// AskTableIn is AskTable with LevelDB's default options when defaults is
// set (no checksum verified), with paranoid checks otherwise.
func AskTableIn(dir string, number, size uint64, c upstream.Comparator, defaults bool) (Table, error) {
	t := Table{Number: number, Size: size}
	o := upstream.TableOptions{PolicyName: bloom.PolicyName, BitsPerKey: 10, Comparator: c, Defaults: defaults}
	scan, err := upstream.ReadTable(dir, number, size, o)
	if err != nil {
		return t, err
	}
	t.Entries = scan.Entries
	if scan.OpenStatus != "" || scan.ScanStatus != "" {
		t.Class, t.Status = Refused, scan.OpenStatus
		if t.Status == "" {
			t.Status = scan.ScanStatus
		}
		return t, nil
	}
	for _, e := range scan.Entries {
		o.Lookups = append(o.Lookups, e.Key)
	}
	t.Keys = len(o.Lookups)
	gets := func(name string) (consulted, rejected, notFound int, err error) {
		o.PolicyName = name
		r, err := upstream.ReadTable(dir, number, size, o)
		if err != nil {
			return 0, 0, 0, err
		}
		for i, g := range r.Gets {
			if len(g.FilterCalls) > 0 {
				consulted++
				if !g.FilterCalls[len(g.FilterCalls)-1] {
					rejected++
				}
			}
			if !g.Found || !bytes.Equal(g.Key, o.Lookups[i]) || g.Status != "" {
				notFound++
			}
		}
		return consulted, rejected, notFound, nil
	}
	consulted, rejected, notFound, err := gets(bloom.PolicyName)
	if err != nil {
		return t, err
	}
	t.NotFound = notFound
	switch {
	case t.Keys == 0:
		t.Class = Without
		return t, nil
	case consulted == t.Keys:
		t.Class, t.Rejected = WithFilter, rejected
		return t, nil
	case consulted != 0:
		return t, fmt.Errorf("upstreamdb: table %d: %d of %d Gets consult the filter", number, consulted, t.Keys)
	}
	consulted, rejected, _, err = gets(bloom.LegacyPolicyName)
	if err != nil {
		return t, err
	}
	t.Class = Without
	if consulted == t.Keys {
		t.Class, t.Rejected = Ignored, rejected
	}
	return t, nil
}
