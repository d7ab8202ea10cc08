package logfile

import (
	"errors"
	"io"
	"sort"

	"github.com/ldbcompat/ldbcompat/internal/base"
)

// Follows db/db_impl.cc: DBImpl::Recover's choice of the logs to replay
// and DBImpl::RecoverLogFile, under LevelDB's default options
// (paranoid_checks=false) and under paranoid checks at once. The reader
// reads the same in both (RecoverLogFile always checks checksums); only
// what a drop or a malformed batch does differs: its LogReporter keeps the
// first drop's status, and fails the open with it, only under paranoid
// checks, and MaybeIgnoreError ignores a batch InsertInto refuses unless
// paranoid checks are on.

// MaxListed bounds the drops, skips and malformed batches a Recovery
// lists; the outcomes count them all.
const MaxListed = 1000

// Outcome is what DBImpl::RecoverLogFile makes of a log under one option
// set.
type Outcome struct {
	// Records, Bytes and Ops are the write batches applied to the
	// memtable (a malformed one in part, up to its error), their bytes
	// and their puts and deletes. Under paranoid checks they are those
	// applied before the open failed, if it did: then nothing is
	// recovered.
	Records, Bytes, Ops int64
	// MaxSequence is the highest Batch.LastSequence of those batches
	// (upstream's max_sequence, which takes it from a malformed batch's
	// header too), 0 when there is none.
	MaxSequence uint64
	// Drops and DroppedBytes are the drops reported (by the reader, and
	// "log record too small") and the bytes they count; FirstDrop is the
	// first's Start, -1 when there is none. Under paranoid checks, the
	// drops until reading stopped.
	Drops        int
	DroppedBytes int64
	FirstDrop    int64
	// Failed tells that the open fails here (paranoid checks only), with
	// Status, for the problem at file offset FailOffset.
	Failed     bool
	Status     string
	FailOffset int64
}

// Malformed is a write batch that WriteBatch::Iterate refuses, whose ops
// before the error are applied.
type Malformed struct {
	Offset  int64 // the record's offset
	Err     *BatchError
	Applied int    // the ops applied before the error
	Count   uint32 // the ops its header announces
}

// Loss estimates the writes lost by the drops and skips of a log, and at
// its end, under LevelDB's defaults (under paranoid checks a drop fails
// the open instead).
type Loss struct {
	// Records is the logical records found lost in the dropped and
	// skipped bytes, plus a torn or unfinished one at the end (see
	// Drop.Records, Skip.Records, End.Records); AtLeast tells that there
	// may be more.
	Records int
	AtLeast bool
	// Ops is the ops lost between well-formed batches, by their sequence
	// numbers: a batch's Sequence minus the previous one's Sequence plus
	// Count. OpsExact tells that this is every op lost: no damage lies
	// before the first well-formed batch or after the last, and the
	// sequence numbers never go back.
	Ops      uint64
	OpsExact bool
}

// Recovery is what DBImpl::RecoverLogFile does with one log file, under
// LevelDB's defaults and under paranoid checks.
type Recovery struct {
	File               string
	Defaults, Paranoid Outcome
	// Drops, Skips and Malformed list the reader's drops (with
	// "log record too small" drops), its skips and the batches
	// Iterate refuses, in file order, the first MaxListed of each;
	// Omitted counts those left out.
	Drops     []Drop
	Skips     []Skip
	Malformed []Malformed
	Omitted   int
	// TooLarge holds the offsets of records longer than
	// Options.MaxRecord: upstream applies them; they are counted in
	// neither outcome.
	TooLarge []int64
	End      End
	Lost     Loss
}

// RecoverFile reads the log file at path, named as upstream names it
// (LogFileName: DIR/NNNNNN.log), as Recover does. A file that cannot be
// opened is ignored under LevelDB's defaults and fails the open under
// paranoid checks, with upstream's status (util/env_posix.cc); err is set
// only for a file that is not a regular file, which is not read.
func RecoverFile(path string, opts Options) (*Recovery, error) {
	// Opened without blocking, and checked on the open descriptor: a
	// named pipe put in its place would block an ordinary open.
	f, _, err := base.OpenNonBlocking(path)
	if errors.Is(err, base.ErrNotRegular) {
		return nil, err
	}
	if err != nil {
		status := base.IOStatus(path, err)
		if status == "" {
			status = "IO error: " + path + ": " + err.Error()
		}
		return &Recovery{File: path, Defaults: Outcome{FirstDrop: -1},
			Paranoid: Outcome{FirstDrop: -1, Failed: true, Status: status}, End: End{Pending: -1}}, nil
	}
	defer f.Close()
	return Recover(f, path, opts), nil
}

// Recover replays the log read from r, named name, as
// DBImpl::RecoverLogFile does under both option sets, in one pass:
// each record the reader returns (Reader), a record under 12 bytes
// dropped as "log record too small", each other one's write batch
// applied up to its first error (InsertInto). opts.OnDrop and
// opts.OnSkip are called too, if set.
func Recover(r io.Reader, name string, opts Options) *Recovery {
	rec := &Recovery{File: name, Defaults: Outcome{FirstDrop: -1}, Paranoid: Outcome{FirstDrop: -1}}
	def, par := &rec.Defaults, &rec.Paranoid
	parReading := true  // paranoid's loop has not stopped
	parOneMore := false // it reads one more record after "log record too small"
	var seq seqGap
	onDrop, onSkip := opts.OnDrop, opts.OnSkip
	// lose counts the records a drop or a skip hides; the sequence
	// numbers around it no longer tell every op lost.
	lose := func(records int, atLeast bool) {
		rec.Lost.Records += records
		rec.Lost.AtLeast = rec.Lost.AtLeast || atLeast
		seq.damage()
	}
	drop := func(d Drop) {
		if onDrop != nil {
			onDrop(d)
		}
		listCapped(&rec.Drops, d, &rec.Omitted)
		lose(d.Records, d.AtLeast)
		for _, o := range []*Outcome{def, par} {
			if o == par && !parReading {
				continue
			}
			if o.FirstDrop < 0 {
				o.FirstDrop = d.Start
			}
			o.Drops++
			o.DroppedBytes += d.Bytes
		}
		if parReading && !par.Failed {
			par.Failed, par.Status, par.FailOffset = true, d.Status, d.Start
		}
	}
	opts.OnDrop = drop
	opts.OnSkip = func(s Skip) {
		if onSkip != nil {
			onSkip(s)
		}
		listCapped(&rec.Skips, s, &rec.Omitted)
		lose(s.Records, s.AtLeast)
	}
	rd := NewReader(r, name, opts)
	for {
		if par.Failed && !parOneMore {
			parReading = false // upstream's loop tests the status after each ReadRecord
		}
		parOneMore = false
		lr, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			rec.TooLarge = append(rec.TooLarge, lr.Offset)
			seq.damage()
			continue
		}
		applyPar := parReading && !par.Failed
		if len(lr.Data) < BatchHeaderSize {
			// RecoverLogFile's loop goes on to read the next record
			// before it tests the status this sets.
			parOneMore = applyPar
			drop(Drop{Offset: lr.Offset, Start: lr.Offset, Bytes: int64(len(lr.Data)), Reason: "log record too small",
				Status: "Corruption: log record too small", Type: -1, Records: 1})
			continue
		}
		b, _ := NewBatch(lr.Data)
		n, berr := b.Iterate(nil)
		for _, o := range []*Outcome{def, par} {
			if o == par && !applyPar {
				continue
			}
			o.Records++
			o.Bytes += int64(len(lr.Data))
			o.Ops += int64(n)
			if last := b.LastSequence(); last > o.MaxSequence && (berr == nil || o == def) {
				o.MaxSequence = last
			}
		}
		if berr != nil {
			be := berr.(*BatchError)
			listCapped(&rec.Malformed, Malformed{Offset: lr.Offset, Err: be, Applied: n, Count: b.Count}, &rec.Omitted)
			if applyPar {
				par.Failed, par.Status, par.FailOffset = true, be.Status(), lr.Offset
			}
			seq.damage()
			continue
		}
		seq.batch(b)
	}
	rec.End = rd.End()
	rec.Lost.Records += rec.End.Records
	rec.Lost.AtLeast = rec.Lost.AtLeast || rec.End.AtLeast
	if rec.End.Records > 0 {
		seq.damage()
	}
	rec.Lost.Ops, rec.Lost.OpsExact = seq.result()
	return rec
}

// listCapped appends v to *list while it holds fewer than MaxListed, and
// counts it in *omitted otherwise.
func listCapped[T any](list *[]T, v T, omitted *int) {
	if len(*list) < MaxListed {
		*list = append(*list, v)
	} else {
		*omitted++
	}
}

// seqGap counts the ops missing between well-formed batches by their
// sequence numbers.
type seqGap struct {
	have    bool   // a batch was seen
	next    uint64 // the sequence number after the last batch's ops
	damaged bool   // damage since the last batch (or the start)
	lost    uint64
	inexact bool
}

func (g *seqGap) damage() { g.damaged = true }

func (g *seqGap) batch(b Batch) {
	switch {
	case !g.have:
		g.inexact = g.inexact || g.damaged
	case b.Sequence >= g.next:
		g.lost += b.Sequence - g.next
	default:
		g.inexact = true
	}
	g.have, g.damaged = true, false
	g.next = b.Sequence + uint64(b.Count)
}

func (g *seqGap) result() (uint64, bool) {
	return g.lost, !g.inexact && !g.damaged
}

// LogsToReplay returns the numbers of the logs DBImpl::Recover replays, in
// the order it replays them, from the names of the files in the database
// directory and the MANIFEST's log number and previous log number: every
// NNNNNN.log (base.ParseFileName) whose number is at least logNumber or is
// prevLogNumber, sorted. Two names of one number (000005.log and 5.log)
// give it twice, as upstream replays LogFileName(5) twice.
func LogsToReplay(names []string, logNumber, prevLogNumber uint64) []uint64 {
	var logs []uint64
	for _, name := range names {
		if n, typ, ok := base.ParseFileName(name); ok && typ == base.LogFile && (n >= logNumber || n == prevLogNumber) {
			logs = append(logs, n)
		}
	}
	sort.Slice(logs, func(i, j int) bool { return logs[i] < logs[j] })
	return logs
}
