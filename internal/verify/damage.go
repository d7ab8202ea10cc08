package verify

import (
	"bytes"
	"fmt"
	"io/fs"
	"strings"

	"github.com/ldbcompat/ldbcompat/internal/table"
)

// What upstream returns from a table whose blocks fail their checksums with
// the default options (table/format.cc ReadBlock decodes them unchecked),
// compared with the table as written where flipped bits explain the damage.

// Damage is what a table's damaged blocks make upstream return with
// LevelDB's default options.
type Damage struct {
	// Blocks are the blocks whose checksums fail, in the order read.
	Blocks []table.ChecksumFailure
	// Known: the table as written is known (one flipped bit explains each
	// damaged data and index block); otherwise Unknown says why not.
	Known   bool
	Unknown string
	// Entries counts the entries upstream's full scan returns.
	Entries int
	// Written counts the entries as written; the others what the scan gets wrong.
	Written, WrongValues, Missing, Extra int
	// GetsMissing and GetsWrong count the lookups of the keys written that
	// find no entry, or a wrong value (the filter aside).
	GetsMissing, GetsWrong int
	// First describes the first difference, "" when there is none.
	First string
	// Verdict is the table's verdict from its filter alone, which
	// bad-checksum and silent-corruption replace.
	Verdict Verdict
}

// Harm tells whether upstream returns something other than what was
// written, or whether that cannot be told.
func (d *Damage) Harm() bool {
	return !d.Known || d.WrongValues+d.Missing+d.Extra+d.GetsMissing+d.GetsWrong > 0
}

// entryBlock tells whether a damaged block holds entries (a data block) or
// routes to them (the index block); other blocks only touch the filter.
func entryBlock(what string) bool {
	return what == "index block" || strings.HasPrefix(what, "data block")
}

// judgeDamage sets rep.Damage from t, opened unchecked, and the verdict with
// the default options: silent-corruption where upstream returns what was
// not written (or that cannot be told), else bad-checksum.
func judgeDamage(tg *Target, f File, fi fs.FileInfo, size int64, data []byte, t *table.Table, rep *TableReport) {
	d := &Damage{Blocks: t.ChecksumFailures(), Known: true, Entries: rep.Keys}
	rep.Damage = d
	var flips []table.ChecksumFailure
	for _, b := range d.Blocks {
		if !entryBlock(b.What) {
			continue
		}
		if b.Flip == nil {
			d.Known = false
			d.Unknown = fmt.Sprintf("no single flipped bit explains the checksum of %s %s, so what was written there cannot be told", b.What, b.Handle)
			break
		}
		flips = append(flips, b)
	}
	if d.Known && len(flips) > 0 {
		compareWritten(tg.Path, f, fi, size, data, t, flips, d)
	} else if d.Known {
		d.Written = rep.Keys // the scan reads no damaged block
	}
	d.Verdict = rep.Verdict
	switch rep.Verdict {
	case OK, OldFilter, NoFilter, OtherFilter, Mismatch, FilterUnusable:
		if d.Harm() {
			rep.Verdict = SilentCorruption
		} else if rep.Verdict.Exit() == ExitOK {
			rep.Verdict = BadChecksum
		}
	}
}

// compareWritten restores the bits flips name, and compares what upstream
// returns from t, read unchecked, with the table as written.
func compareWritten(path string, f File, fi fs.FileInfo, size int64, data []byte, t *table.Table, flips []table.ChecksumFailure, d *Damage) {
	buf := make([]byte, fi.Size())
	if data != nil {
		copy(buf, data)
	} else if _, err := f.ReadAt(buf, 0); err != nil {
		d.Known, d.Unknown = false, fmt.Sprintf("reading it again to restore the flipped bits failed: %v", err)
		return
	}
	for _, b := range flips {
		if s := b.Site; s != nil && s.Field != table.FlipChecksum && s.Offset < uint64(len(buf)) {
			buf[s.Offset] ^= 1 << s.Bit
		}
	}
	written, err := table.OpenBytes(path, buf, size)
	if err == nil {
		err = written.Scan(func(table.ScanEntry) error { return nil })
	}
	if err != nil {
		d.Known, d.Unknown = false, fmt.Sprintf("with the flipped bits restored it still does not read: %v", err)
		return
	}
	// The entries as written, by key: keys are unique in a table.
	want := map[string][]byte{}
	var order [][]byte
	_ = written.Scan(func(e table.ScanEntry) error {
		k := bytes.Clone(e.Key)
		want[string(k)] = bytes.Clone(e.Value)
		order = append(order, k)
		return nil
	})
	d.Written = len(order)
	first := func(format string, args ...any) {
		if d.First == "" {
			d.First = fmt.Sprintf(format, args...)
		}
	}
	seen := map[string]bool{}
	d.Entries = 0
	_ = t.Scan(func(e table.ScanEntry) error {
		d.Entries++
		v, ok := want[string(e.Key)]
		switch {
		case !ok:
			d.Extra++
			first("the scan returns key %s, which was not written", keyText(userKey(e.Key)))
		case seen[string(e.Key)]:
			d.Extra++
			first("the scan returns key %s twice", keyText(userKey(e.Key)))
		case !bytes.Equal(v, e.Value):
			d.WrongValues++
			seen[string(e.Key)] = true
			first("the scan returns key %s with a wrong value (%d bytes, %d written)", keyText(userKey(e.Key)), len(e.Value), len(v))
		default:
			seen[string(e.Key)] = true
		}
		return nil
	})
	for _, k := range order {
		if !seen[string(k)] {
			d.Missing++
			first("the scan does not return key %s", keyText(userKey(k)))
		}
		if len(k) < 8 {
			continue // upstream's lookup is undefined there; the scan judges
		}
		r, err := t.Get(k, nil, nil)
		switch {
		case err != nil || r.Err != nil || !r.Found || !bytes.Equal(r.Key, k):
			d.GetsMissing++
			first("a lookup of key %s does not find it", keyText(userKey(k)))
		case !bytes.Equal(r.Value, want[string(k)]):
			d.GetsWrong++
			first("a lookup of key %s returns a wrong value", keyText(userKey(k)))
		}
	}
}
