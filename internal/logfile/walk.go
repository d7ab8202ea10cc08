package logfile

import "io"

// db/dumpfile.cc PrintLogContents, with the damage between records too.

// Item is one thing Walk finds, in file order: exactly one field is set.
type Item struct {
	// Record is a logical record; its Data is valid during the call.
	Record *Record
	// TooLarge is a record over Options.MaxRecord (ErrTooLarge).
	TooLarge error
	Drop     *Drop
	Skip     *Skip
	// End comes last: how the log ended.
	End *End
}

// Walk calls fn with each record, drop (before its record) and skip of the
// log in r, in file order, then the end; it stops at fn's first error.
// Records are batches (NewBatch) or version edits (manifest.DecodeEdit).
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
