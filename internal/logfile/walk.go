package logfile

import "io"

// Follows db/dumpfile.cc: leveldbutil dump's walk over a log or MANIFEST
// (PrintLogContents), each record with its offset, and here the damage
// between records too.

// Item is one thing Walk finds, in file order: exactly one field is set.
type Item struct {
	// Record is a logical record; its Data is valid during the call.
	Record *Record
	// TooLarge is a record longer than Options.MaxRecord: a *base.Error
	// wrapping ErrTooLarge, at the record's offset.
	TooLarge error
	Drop     *Drop
	Skip     *Skip
	// End comes last: how the log ended.
	End *End
}

// Walk reads the log from r, named name, and calls fn with each record,
// drop and skip in file order (a drop reported while reading a record
// comes before it), then with the end. A log's records are write
// batches (NewBatch), a MANIFEST's version edits (package manifest's
// DecodeEdit). It stops at fn's first error and returns it.
func Walk(r io.Reader, name string, opts Options, fn func(Item) error) error {
	var err error
	onDrop, onSkip := opts.OnDrop, opts.OnSkip
	opts.OnDrop = func(d Drop) {
		if onDrop != nil {
			onDrop(d)
		}
		if err == nil {
			err = fn(Item{Drop: &d})
		}
	}
	opts.OnSkip = func(s Skip) {
		if onSkip != nil {
			onSkip(s)
		}
		if err == nil {
			err = fn(Item{Skip: &s})
		}
	}
	rd := NewReader(r, name, opts)
	for err == nil {
		rec, rerr := rd.Next()
		if err != nil {
			break
		}
		switch {
		case rerr == io.EOF:
			end := rd.End()
			return fn(Item{End: &end})
		case rerr != nil:
			err = fn(Item{TooLarge: rerr})
		default:
			err = fn(Item{Record: &rec})
		}
	}
	return err
}
