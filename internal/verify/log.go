package verify

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/ldbcompat/ldbcompat/internal/base"
	"github.com/ldbcompat/ldbcompat/internal/logfile"
	"github.com/ldbcompat/ldbcompat/internal/manifest"
)

// The logs a database's open replays (db/db_impl.cc RecoverLogFile). A
// damaged record costs its 32 KiB block with the default options, and
// fails the open with paranoid checks.

// LogVerdict is what upstream does with a log it replays.
type LogVerdict string

// The log verdicts.
const (
	// Replayed: upstream replays every write the log holds (a record cut
	// short by the end of the file is a write in progress).
	Replayed LogVerdict = "replayed"
	// WritesDropped: upstream opens the database without some writes of
	// the log (dropped, skipped silently, or the whole log unreadable).
	WritesDropped LogVerdict = "writes-dropped"
	// OpenFails: with paranoid checks, the log's damage fails the open.
	OpenFails LogVerdict = "open-fails"
)

// LogVerdicts documents the log verdicts, in order, with their exit codes.
var LogVerdicts = []VerdictInfo{
	{Verdict("log " + Replayed), "every write of a log the open replays is read (a record cut short at its end is a write in progress)", "replays it", ExitOK},
	{Verdict("log " + WritesDropped), "records that fail their checksums (with the rest of their 32 KiB block), skipped, or a log that cannot be read: lost writes counted", "defaults: opens without them, silently", ExitError},
	{Verdict("log " + OpenFails), "a damaged log record", "paranoid: refuses to open the database", ExitError},
}

// Exit returns the exit code of v.
func (v LogVerdict) Exit() int {
	if v == Replayed {
		return ExitOK
	}
	return ExitError
}

// LogReport is what upstream does with one log file at open.
type LogReport struct {
	Path   string
	Number uint64
	// Link is where the log leads when it is a symbolic link.
	Link string
	// Recovery is the log as DBImpl::RecoverLogFile reads it under both
	// option sets; nil when Err is set.
	Recovery *logfile.Recovery
	// Err says why the log could not be read at all; Status is upstream's.
	Err    error
	Status string
	// Mode is the option set Verdict follows; Other the other's, if different.
	Mode    Mode
	Verdict LogVerdict
	Other   LogVerdict
}

// replayLogs reads the logs of db (names in its directory) its open replays.
func replayLogs(db *Database, names []string) {
	v := db.Version
	for _, n := range logfile.LogsToReplay(names, v.LogNumber, v.PrevLogNumber) {
		path := filepath.Join(db.Dir, fmt.Sprintf("%06d.log", n)) // db/filename.cc LogFileName
		lr := &LogReport{Path: path, Number: n, Link: linkOf(path)}
		f, _, err := base.OpenNonBlocking(path)
		switch {
		case errors.Is(err, fs.ErrNotExist) && retired(db, n):
			// Replaced by a newer log and deleted since the listing.
			continue
		case err != nil && !errors.Is(err, base.ErrNotRegular):
			// MaybeIgnoreError ignores a log that does not open, unless paranoid.
			db.Logs = append(db.Logs, lr)
			lr.Err, lr.Status = err, base.IOStatus(path, err)
			continue
		case err == nil:
			f.Close()
		}
		db.Logs = append(db.Logs, lr)
		lr.Recovery, lr.Err = logfile.RecoverFile(path, logfile.Options{})
	}
}

// setMode sets the report's verdicts, mode's first.
func (l *LogReport) setMode(mode Mode) {
	l.Mode, l.Verdict, l.Other = mode, l.verdictIn(mode), ""
	if o := l.verdictIn(mode.other()); o != l.Verdict {
		l.Other = o
	}
}

// verdictIn is the log's verdict under an option set.
func (l *LogReport) verdictIn(mode Mode) LogVerdict {
	r := l.Recovery
	switch {
	case r == nil || (mode == Paranoid && r.Paranoid.Failed):
		if mode == Paranoid {
			return OpenFails
		}
		return WritesDropped
	case mode == Defaults && (r.Defaults.Drops > 0 || len(r.Malformed) > 0 || r.Defaults.Failed):
		return WritesDropped
	case silentLoss(r) > 0 || r.Lost.Ops > 0 || tailLoss(r):
		// Bytes skipped without a report held writes, the sequence numbers
		// skip some, or damage passes for the end of the log.
		return WritesDropped
	}
	return Replayed
}

// LostWrites is how many writes the log's damage costs with the default
// options, and whether that is a lower bound: the sequence numbers' gap
// when it tells, else the records found in the bytes dropped and skipped.
func (l *LogReport) LostWrites() (n int, atLeast bool) {
	r := l.Recovery
	if r == nil {
		return 0, true
	}
	if r.Lost.OpsExact && r.Lost.Ops > 0 {
		return int(r.Lost.Ops), false
	}
	return r.Lost.Records, r.Lost.AtLeast
}

// ParanoidStatus is upstream's status when the log fails a paranoid open.
func (l *LogReport) ParanoidStatus() string {
	if l.Recovery == nil {
		return l.Status
	}
	return l.Recovery.Paranoid.Status
}

// retired tells whether the MANIFEST, read again, no longer replays log n.
func retired(db *Database, n uint64) bool {
	v, err := manifest.ReadWith(db.Dir, db.readComparator())
	return err == nil && n < v.LogNumber && n != v.PrevLogNumber
}

// tailLoss tells whether what the reader takes for the end of the log hides
// writes written whole: a flipped length running past the end, more than one
// record in progress, or records after a physical record of type 5.
func tailLoss(r *logfile.Recovery) bool {
	e := r.End
	return e.Flip != nil || e.Records > 1 || (e.Marker && e.Records > 0)
}

// silentLoss counts the records in bytes the reader skips without a report.
func silentLoss(r *logfile.Recovery) int {
	n := 0
	for _, s := range r.Skips {
		n += s.Records
	}
	return n
}

// Line is the log's line: its path, verdict and detail.
func (l *LogReport) Line() string {
	return fmt.Sprintf("%s: %s: %s%s", l.Path, l.Verdict, l.Detail(), linkText("", l.Link))
}

// Detail describes what upstream does with the log, under both option sets.
func (l *LogReport) Detail() string {
	d := l.detailIn(l.Mode, l.Verdict)
	if l.Other != "" {
		d += fmt.Sprintf("; %s: %s: %s", l.Mode.other(), l.Other, l.detailIn(l.Mode.other(), l.Other))
	}
	return d
}

// detailIn is Detail under one option set, whose verdict is v.
func (l *LogReport) detailIn(mode Mode, v LogVerdict) string {
	r := l.Recovery
	if r == nil {
		what := "upstream ignores it: every write in it is lost"
		if mode == Paranoid {
			what = "the open fails"
			if l.Status != "" {
				what += ": " + l.Status
			}
		}
		return fmt.Sprintf("the log cannot be read (%v): %s", l.Err, what)
	}
	o := outcomeIn(r, mode)
	var b strings.Builder
	if v == OpenFails {
		fmt.Fprintf(&b, "%s (%s, offset %d)", o.Status, filepath.Base(l.Path), o.FailOffset)
		if d := firstDropAt(r, o.FailOffset); d != nil {
			b.WriteString(flipText(d))
		}
		return b.String()
	}
	replayed := fmt.Sprintf("%s (%s, %s) replayed", nouns(int(o.Ops), "write", "writes"), nouns(int(o.Records), "record", "records"), nouns(int(o.Bytes), "byte", "bytes"))
	switch {
	case v != WritesDropped && o.Records == 0 && r.End.Torn == 0:
		b.WriteString("empty, nothing to replay")
	case v != WritesDropped:
		b.WriteString(replayed)
	default:
		n, atLeast := l.LostWrites()
		lost := nouns(n, "write", "writes")
		if atLeast {
			lost = "at least " + lost
		}
		how := "records found in the bytes dropped"
		if r.Lost.OpsExact && r.Lost.Ops > 0 {
			how = "puts and deletes, by the sequence numbers of the writes around the damage"
		}
		fmt.Fprintf(&b, "%s lost (%s)", lost, how)
		if o.Drops > 0 {
			fmt.Fprintf(&b, "; %s dropped in %s, the first at offset %d", nouns(int(o.DroppedBytes), "byte", "bytes"), nouns(o.Drops, "place", "places"), o.FirstDrop)
			if d := firstDropAt(r, o.FirstDrop); d != nil {
				fmt.Fprintf(&b, " (%s)%s", d.Status, flipText(d))
			}
		}
		for _, s := range r.Skips {
			if s.Records > 0 {
				fmt.Fprintf(&b, "; %d bytes at offset %d skipped unreported (a header of type %s), holding %s", s.Bytes, s.Offset, skipText(s.Kind), nouns(s.Records, "record", "records"))
				break
			}
		}
		if n := len(r.Malformed); n > 0 && mode == Defaults {
			m := r.Malformed[0]
			fmt.Fprintf(&b, "; %s malformed, applied in part, the first at offset %d (%s: %d of %d operations applied)", nouns(n, "write batch", "write batches"), m.Offset, m.Err.Status(), m.Applied, m.Count)
		}
		fmt.Fprintf(&b, "; %s; upstream opens the database without them, saying so only in its info log", replayed)
	}
	if e := r.End; e.Torn > 0 {
		fmt.Fprintf(&b, "; the last %d bytes, at offset %d, are a record cut short by the end of the file: a write in progress, which upstream takes for the end of the log", e.Torn, e.Offset)
	}
	return b.String()
}

// outcomeIn is what the open makes of the log under mode.
func outcomeIn(r *logfile.Recovery, mode Mode) logfile.Outcome {
	if mode == Paranoid {
		return r.Paranoid
	}
	return r.Defaults
}

// firstDropAt returns the drop at offset off (its Start), or nil.
func firstDropAt(r *logfile.Recovery, off int64) *logfile.Drop {
	for i := range r.Drops {
		if r.Drops[i].Start == off {
			return &r.Drops[i]
		}
	}
	return nil
}

// flipText says which flipped bit explains a damaged record, or "".
func flipText(d *logfile.Drop) string {
	f := d.Flip
	if f == nil {
		return ""
	}
	return fmt.Sprintf("; one flipped bit explains it: bit %d of the byte at offset %d, in the record's %s (a single flipped bit points at memory or storage, not at the writer)", f.Bit, f.Offset, f.Field)
}

// skipText names a skip's kind.
func skipText(k logfile.SkipKind) string {
	if k == logfile.SkipZero {
		return "0, length 0: preallocated space"
	}
	return "6, the reader's own bad-record code"
}
