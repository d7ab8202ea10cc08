package verify

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/internal/base"
	"github.com/ldbcompat/ldbcompat/internal/filtercheck"
	"github.com/ldbcompat/ldbcompat/internal/manifest"
	"github.com/ldbcompat/ldbcompat/internal/table"
)

// File is an open table file: what Examine needs of an *os.File.
type File interface {
	io.ReaderAt
	io.Closer
	Stat() (fs.FileInfo, error)
}

// Options tune Examine.
type Options struct {
	// Open opens a table file read-only; nil means OpenFile.
	Open func(path string) (File, error)
	// Keep keeps the open table, its keys and filter block in each report.
	Keep bool
	// Paranoid makes the reports and exit status follow upstream with
	// paranoid checks, not the default options (TableReport.Other has the other).
	Paranoid bool
}

// TableReport is the outcome of examining one table file.
type TableReport struct {
	Path string
	// Verdict is what upstream does with the table; "" when Skipped.
	Verdict Verdict
	// Skipped says why the file was not examined; NotTable: it is no table.
	Skipped  string
	NotTable bool
	DB       *Database      // the table's database, or nil
	Live     *manifest.File // the MANIFEST's record of it, when live
	// FileSize is the file's size when it was opened, or -1.
	FileSize int64
	// Err says why the table is Unreadable, Missing or Unchecked; Status is
	// upstream's ("" when undefined, Undefined then set). Scan: the full scan failed.
	Err       error
	Status    string
	Undefined bool
	Scan      bool
	// Device is set when the storage failed to read the table (EIO).
	Device bool
	// Comparison is the filter check (its Blocks dropped unless Options.Keep).
	Comparison *filtercheck.Comparison
	// DataBlocks and Keys count what a table that was read holds.
	DataBlocks, Keys int
	// UnusableErr says why upstream cannot use the filter (filter-unusable).
	UnusableErr error
	// Policy is the policy of the filter the verdict is about.
	Policy string
	// OtherFilters lists the metaindex's other "filter." entries, unprefixed.
	OtherFilters []string
	// FalseNegatives is, for a mismatch, what the stored filter makes of the
	// table's keys; for a legacy filter, with the hash FNHash.
	FalseNegatives *filtercheck.FalseNegatives
	FNHash         string
	// Table, Blocks and FilterContents are kept with Options.Keep.
	Table       *table.Table
	BlockKeys   []filtercheck.BlockKeys
	FilterBlock []byte
	// Mode is the option set the report describes.
	Mode Mode
	// Link is where the table file leads when it is a symbolic link.
	Link string
	// Damage lists the blocks that fail their checksums and what upstream
	// returns from them with the default options; nil when all are intact.
	Damage *Damage
	// Other is the report under the other option set, when it differs.
	Other *TableReport
}

// DiffFileOffset returns the file offset of a mismatch's first difference.
func (r *TableReport) DiffFileOffset() (uint64, bool) {
	if r.Comparison == nil || r.Comparison.Diff == nil {
		return 0, false
	}
	return r.Comparison.FilterBlockOffset + uint64(r.Comparison.Diff.Offset), true
}

// Offset returns the file offset Err names, when it names one.
func (r *TableReport) Offset() (int64, bool) {
	var e *base.Error
	if errors.As(r.Err, &e) {
		return e.Offset, true
	}
	return 0, false
}

// Examine examines one table file as upstream LevelDB 1.23 would read it
// (full scan, Table::ReadMeta), and checks its filter byte for byte against
// the one its policy writes for the table's keys. The file is closed on return.
func Examine(tg *Target, o Options) *TableReport {
	rep := &TableReport{Path: tg.Path, DB: tg.DB, Live: tg.Live, FileSize: -1}
	switch {
	case tg.Skip != "":
		rep.Skipped, rep.NotTable = tg.Skip, tg.NotTable
		return rep
	case tg.missing:
		rep.Verdict = Missing
		rep.Err = fmt.Errorf("%s: missing: %s lists table %d (level %d, %d bytes) as live, and neither %06d.ldb nor %06d.sst is in %s",
			tg.Path, tg.DB.manifestName(), tg.Live.Number, tg.Live.Level, tg.Live.Size, tg.Live.Number, tg.Live.Number, tg.DB.Dir)
		// TableCache::FindTable reports the .ldb name's error.
		rep.Status = base.IOStatus(tg.Path, fs.ErrNotExist)
		return rep
	}
	rep.Link = linkOf(tg.Path)
	var sc *scratch
	if !o.Keep {
		sc = scratches.Get().(*scratch)
	}
	read(tg, o, rep, sc)
	if !o.Keep {
		for _, r := range []*TableReport{rep, rep.Other} {
			if r == nil {
				continue
			}
			if r.Comparison != nil {
				r.Comparison.Blocks = nil
			}
			r.Table, r.BlockKeys, r.FilterBlock = nil, nil, nil
			// The next table reads into sc: nothing kept may alias it.
			if fn := r.FalseNegatives; fn != nil && sc.mapped == nil {
				fn.FirstKey = bytes.Clone(fn.FirstKey)
			}
		}
		if sc.mapped != nil {
			unmapFile(sc.mapped)
			sc.mapped = nil
		}
		scratches.Put(sc)
	}
	return rep
}

// OpenFile opens the table file at path read-only without blocking
// (base.OpenNonBlocking), as Examine does unless Options.Open says otherwise.
func OpenFile(path string) (File, error) {
	f, _, err := base.OpenNonBlocking(path)
	if err != nil {
		return nil, err
	}
	return f, nil
}

// scratch is the memory Examine reads a table into, kept for the next one
// unless Options.Keep: a database's tables are mostly of one size.
type scratch struct {
	file   []byte // the whole file (table.Table.UseBuffer)
	keys   filtercheck.KeyStore
	mapped []byte       // the file's memory map, released once the check is done
	table  *table.Table // the last table opened from a map (table.OpenBytesReusing)
}

var scratches = sync.Pool{New: func() any { return new(scratch) }}

// read opens and reads the table, and sets the report's verdict. With sc it
// maps the file (leaving the map in sc), or reads it into sc's memory.
func read(tg *Target, o Options, rep *TableReport, sc *scratch) {
	unreadable := func(err error) {
		if reason, ok := vanished(tg, err); ok {
			rep.Skipped = reason
			return
		}
		rep.Verdict, rep.Err = Unreadable, err
		// util/env_posix.cc: NewRandomAccessFile opens, then stats.
		rep.Status = base.IOStatus(tg.Path, err)
	}
	// A regular file, before the open and after (util/env_posix.cc stats it).
	regular := func(fi fs.FileInfo, err error) bool {
		if err == nil && !fi.Mode().IsRegular() {
			err = base.NotRegular(tg.Path, fi.Mode())
		}
		if err != nil {
			unreadable(err)
		}
		return err == nil
	}
	if !regular(os.Stat(tg.Path)) {
		return
	}
	open := o.Open
	if open == nil {
		open = OpenFile
	}
	f, err := open(tg.Path)
	if err != nil {
		unreadable(err)
		return
	}
	defer f.Close()
	fi, err := f.Stat()
	if !regular(fi, err) {
		return
	}
	rep.FileSize = fi.Size()
	size := fi.Size()
	if tg.Live != nil {
		size = int64(min(tg.Live.Size, math.MaxInt64))
	}
	// Mapped read-only as upstream reads it, when the memory is not kept.
	var data []byte
	osf, ok := f.(*os.File)
	if ok && sc != nil {
		if m, err := mapFile(osf, fi.Size()); err == nil {
			data, sc.mapped = m, m
			afterMap(tg.Path)
		}
	}
	if data == nil {
		examine(tg, f, fi, size, nil, sc, rep, o)
		return
	}
	examineMapped := func() runtime.Error {
		return catchFault(func() {
			examine(tg, f, fi, size, data, sc, rep, o)
			// Nothing kept may alias the map once released.
			rep.detach()
		})
	}
	if fault := examineMapped(); fault != nil {
		mappedFault(tg, f, fi, data, fault, rep)
	}
}

// detach copies what the reports would keep of the file's bytes.
func (r *TableReport) detach() {
	for ; r != nil; r = r.Other {
		if fn := r.FalseNegatives; fn != nil {
			fn.FirstKey = bytes.Clone(fn.FirstKey)
		}
		if d := r.Damage; d != nil {
			d.Blocks = slices.Clone(d.Blocks)
			for i := range d.Blocks {
				if s := d.Blocks[i].Site; s != nil {
					c := *s
					c.Key = bytes.Clone(s.Key)
					d.Blocks[i].Site = &c
				}
			}
		}
	}
}

// identity returns a report of the same table with nothing read yet.
func (r *TableReport) identity() TableReport {
	return TableReport{Path: r.Path, DB: r.DB, Live: r.Live, FileSize: r.FileSize, Link: r.Link}
}

// examine reads f (data, when not nil, being its contents) at size and sets
// the verdict under o's option set; it reads again under the other only where
// a block fails its checksum or the table cannot be read.
func examine(tg *Target, f File, fi fs.FileInfo, size int64, data []byte, sc *scratch, rep *TableReport, o Options) {
	mode := o.mode()
	examineIn(tg, f, fi, size, data, sc, rep, mode)
	switch {
	case rep.Damage != nil, rep.Verdict == Unreadable && !rep.Device, rep.Verdict == FilterUnusable:
	default:
		return // both option sets read the same blocks alike
	}
	other := rep.identity()
	examineIn(tg, f, fi, size, data, nil, &other, mode.other())
	if rep.Verdict != other.Verdict || rep.Status != other.Status || rep.Detail() != other.Detail() {
		rep.Other = &other
	}
}

// examineIn is examine under one option set.
func examineIn(tg *Target, f File, fi fs.FileInfo, size int64, data []byte, sc *scratch, rep *TableReport, mode Mode) {
	var (
		t   *table.Table
		err error
	)
	rep.Mode = mode
	opts := table.Options{SkipChecksums: mode == Defaults}
	switch {
	case data != nil && sc != nil:
		// t is nil when the open fails: the next table allocates anew.
		t, err = table.OpenBytesReusingWith(sc.table, tg.Path, data, size, opts)
		sc.table = t
	case data != nil:
		t, err = table.OpenBytesWith(tg.Path, data, size, opts)
	default:
		t, err = table.OpenSizedWith(tg.Path, f, fi.Size(), size, opts)
	}
	var blocks []filtercheck.BlockKeys
	if err == nil && sc != nil && data == nil {
		t.UseBuffer(sc.file)
		defer func() { sc.file = t.FileBuffer() }()
	}
	if err == nil {
		// The keys' hashes only, 4 bytes a key; the keys are read again
		// block by block where needed, as prefix compression lets a table
		// hold keys of 64 times its size.
		if sc != nil {
			blocks, err = sc.keys.ReadHashes(t)
		} else {
			blocks, err = new(filtercheck.KeyStore).ReadHashes(t)
			if err == nil && !t.InMemory() {
				blocks, err = filtercheck.ReadKeys(t)
			}
		}
		rep.Scan = err != nil
	}
	if now, serr := f.Stat(); serr == nil && (now.Size() != fi.Size() || !now.ModTime().Equal(fi.ModTime())) {
		changed := fmt.Errorf("%s changed while it was read (%d bytes, modified %s, when opened; %d bytes, modified %s, after): is LevelDB still writing it?",
			tg.Path, fi.Size(), fi.ModTime().Format(time.RFC3339Nano), now.Size(), now.ModTime().Format(time.RFC3339Nano))
		if err != nil {
			changed = fmt.Errorf("%w; %w", err, changed)
		}
		rep.Verdict, rep.Err, rep.Scan = Unchecked, changed, false
		return
	}
	if t != nil && mode == Defaults {
		// After the verdict: the filter lookup reads blocks too.
		defer func() {
			if len(t.ChecksumFailures()) > 0 {
				judgeDamage(tg, f, fi, size, data, t, rep)
			}
		}()
	}
	if err != nil {
		scanFailed(rep, err)
		return
	}
	rep.Table, rep.BlockKeys, rep.DataBlocks = t, blocks, len(blocks)
	for i := range blocks {
		rep.Keys += blocks[i].Len()
	}
	// The blocks give their keys again (BlockKeys.EachKey).
	keys := func() ([]filtercheck.BlockKeys, bool) { return blocks, true }
	decideFilter(t, blocks, keys, rep)
}

// scanFailed sets the verdict of a table whose scan failed with err.
func scanFailed(rep *TableReport, err error) {
	switch {
	case errors.Is(err, table.ErrLimit):
		rep.Verdict, rep.Err, rep.Scan = Unchecked, err, false
	case errors.Is(err, base.ErrUndefined):
		rep.Verdict, rep.Err, rep.Undefined = Unreadable, err, true
	default:
		rep.Verdict, rep.Err, rep.Status = Unreadable, err, base.StatusOf(err)
		rep.Device = isDeviceError(err)
	}
}

// isDeviceError tells whether err is the storage failing to read (EIO).
func isDeviceError(err error) bool {
	var errno syscall.Errno
	return errors.As(err, &errno) && errno != syscall.ENOENT
}

// decideFilter sets the verdict of a table upstream reads, from its filter
// block as Table::ReadMeta finds it, and failing that from the other
// "filter." entries. keys reads the keys where blocks holds hashes only.
func decideFilter(t *table.Table, blocks []filtercheck.BlockKeys, keys func() ([]filtercheck.BlockKeys, bool), rep *TableReport) {
	present := map[string]bool{}
	var others []string
	for _, m := range t.Metaindex() {
		if name, ok := strings.CutPrefix(m.Name, table.FilterPrefix); ok {
			present[name] = true
			if name != bloom.PolicyName && name != bloom.LegacyPolicyName {
				others = append(others, name)
			}
		}
	}
	rep.OtherFilters = others

	f := lookup(t, bloom.PolicyName, present)
	switch {
	case f.Use == table.FilterUsed:
		rep.Policy = bloom.PolicyName
		rep.FilterBlock = f.Contents
		c, ok := filtercheck.CompareHashes(blocks, bloom.PolicyName, f.Handle, f.Contents)
		if !ok || c.Match != filtercheck.MatchOK {
			// The comparison, or the false negatives, need the keys.
			if blocks, ok = keys(); !ok {
				return
			}
			c = filtercheck.Compare(blocks, bloom.PolicyName, f.Handle, f.Contents)
		}
		rep.Comparison = c
		rep.Verdict = OK
		if rep.Comparison.Match != filtercheck.MatchOK {
			rep.Verdict = Mismatch
			fn := filtercheck.CountFalseNegatives(bloom.NewPolicy(10), f.Contents, blocks)
			rep.FalseNegatives = &fn
		}
		return
	case f.Err != nil && isDeviceError(f.Err):
		// Through its memory map upstream dies of SIGBUS here.
		rep.Verdict, rep.Err, rep.Device, rep.Status = Unreadable, f.Err, true, base.StatusOf(f.Err)
		return
	case f.Err != nil:
		rep.Verdict, rep.UnusableErr = FilterUnusable, f.Err
		if present[bloom.PolicyName] || f.Use == table.FilterUnreadable {
			rep.Policy = bloom.PolicyName
		}
		return
	case t.MetaindexError() != nil:
		// No such entry, but the metaindex is damaged past the seek.
		rep.Verdict, rep.UnusableErr = FilterUnusable, t.MetaindexError()
		return
	}
	if present[bloom.LegacyPolicyName] {
		rep.Policy = bloom.LegacyPolicyName
		f := lookup(t, bloom.LegacyPolicyName, present)
		if f.Use != table.FilterUsed {
			rep.Verdict, rep.UnusableErr = FilterUnusable, f.Err
			return
		}
		rep.FilterBlock = f.Contents
		blocks, ok := keys()
		if !ok {
			return
		}
		rep.Comparison = filtercheck.Compare(blocks, bloom.LegacyPolicyName, f.Handle, f.Contents)
		rep.Verdict = OldFilter
		if rep.Comparison.Match != filtercheck.MatchOK {
			rep.Verdict = Mismatch
			fu := filtercheck.CountFalseNegatives(bloom.NewLegacyPolicy(10, false), f.Contents, blocks)
			fsig := filtercheck.CountFalseNegatives(bloom.NewLegacyPolicy(10, true), f.Contents, blocks)
			rep.FalseNegatives, rep.FNHash = &fu, filtercheck.LegacyUnsigned
			if fsig.Rejected < fu.Rejected {
				rep.FalseNegatives, rep.FNHash = &fsig, filtercheck.LegacySigned
			}
		}
		return
	}
	if len(others) > 0 {
		rep.Verdict, rep.Policy = OtherFilter, others[0]
		return
	}
	rep.Verdict = NoFilter
}

// lookup is t.LookupFilter(name), with an error when the metaindex holds the
// entry but upstream's seek misses it (keys out of order).
func lookup(t *table.Table, name string, present map[string]bool) *table.FilterLookup {
	f := t.LookupFilter(name)
	if f.Use == table.FilterNotFound && f.Err == nil && present[name] {
		h := t.MetaindexHandle()
		f.Err = &base.Error{Type: base.TableFile, File: t.Name(), Offset: int64(h.Offset),
			Msg: fmt.Sprintf("metaindex block %s: holds %q, but its keys are out of order, so that upstream's seek does not find it", h, table.FilterPrefix+name)}
	}
	return f
}
