package logfile

import (
	"errors"
	"io"
	"sort"

	"github.com/ldbcompat/ldbcompat/internal/base"
)

// Only under paranoid checks does a drop fail the open, and a batch
// InsertInto refuses is ignored otherwise (MaybeIgnoreError).

// MaxListed bounds each list of a Recovery; the outcomes count all.
const MaxListed = 1000

// Outcome is what DBImpl::RecoverLogFile makes of a log under one option set.
type Outcome struct {
	// Records, Bytes and Ops count the batches applied to the memtable (a
	// malformed one up to its error); under paranoid checks, those before
	// a failure, after which nothing is recovered.
	Records, Bytes, Ops int64
	// MaxSequence is upstream's max_sequence (a malformed batch's header
	// counts too), 0 if none.
	MaxSequence uint64
	// Drops and DroppedBytes count drops reported (reader and "log record
	// too small"); FirstDrop is the first's Start, -1 if none.
	Drops        int
	DroppedBytes int64
	FirstDrop    int64
	// Failed: the open fails (paranoid only) with Status at FailOffset.
	Failed     bool
	Status     string
	FailOffset int64
}

// Malformed is a batch Iterate refuses; its ops before the error apply.
type Malformed struct {
	Offset  int64 // the record's offset
	Err     *BatchError
	Applied int    // the ops applied before the error
	Count   uint32 // the ops its header announces
}

// Loss estimates the writes a log's damage loses under LevelDB's defaults.
type Loss struct {
	// Records counts the records lost (Drop.Records, Skip.Records,
	// End.Records); AtLeast: maybe more.
	Records int
	AtLeast bool
	// Ops is the ops lost by sequence gaps between well-formed batches;
	// OpsExact: no damage before the first or after the last, and the
	// sequence never goes back.
	Ops      uint64
	OpsExact bool
}

// Recovery is what DBImpl::RecoverLogFile does with one log, both ways.
type Recovery struct {
	File               string
	Defaults, Paranoid Outcome
	// Drops, Skips and Malformed list the first MaxListed of each in file
	// order; Omitted counts the rest.
	Drops     []Drop
	Skips     []Skip
	Malformed []Malformed
	Omitted   int
	// TooLarge holds records over Options.MaxRecord: upstream applies them;
	// neither outcome counts them.
	TooLarge []int64
	End      End
	Lost     Loss
}

// RecoverFile recovers the log at path (named DIR/NNNNNN.log). One that
// cannot be opened is ignored by default and fails paranoid checks, with
// util/env_posix.cc's status; err is set only for a non-regular file.
func RecoverFile(path string, opts Options) (*Recovery, error) {
	// Opened without blocking: a named pipe would block an ordinary open.
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

// Recover replays the log in r as DBImpl::RecoverLogFile does under both
// option sets in one pass: records under 12 bytes dropped as "log record
// too small", the others' batches applied up to their first error.
// opts.OnDrop and OnSkip are called too, if set.
func Recover(r io.Reader, name string, opts Options) *Recovery {
	rec := &Recovery{File: name, Defaults: Outcome{FirstDrop: -1}, Paranoid: Outcome{FirstDrop: -1}}
	def, par := &rec.Defaults, &rec.Paranoid
	parReading := true  // paranoid's loop has not stopped
	parOneMore := false // it reads one more record after "log record too small"
	var seq seqGap
	onDrop, onSkip := opts.OnDrop, opts.OnSkip
	// lose counts records damage hides; gaps then no longer tell all ops.
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
			// RecoverLogFile reads the next record before testing this.
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

// listCapped appends v up to MaxListed, else counts it in *omitted.
func listCapped[T any](list *[]T, v T, omitted *int) {
	if len(*list) < MaxListed {
		*list = append(*list, v)
	} else {
		*omitted++
	}
}

// seqGap counts the ops missing between well-formed batches.
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

// LogsToReplay returns the logs DBImpl::Recover replays, in order: every
// NNNNNN.log among names numbered at least logNumber or equal to
// prevLogNumber, sorted; two names of one number (000005.log, 5.log) give
// it twice, as upstream does.
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
