package manifest

import (
	"bytes"
	"fmt"
	"io"

	"github.com/ldbcompat/ldbcompat/internal/base"
	"github.com/ldbcompat/ldbcompat/internal/logfile"
)

// The MANIFEST is a log file: db/log_format.h defines its blocks and
// records (drawn in doc.go), db/log_reader.cc reads them (package
// logfile); records reads them as VersionSet::Recover does.

// Log format constants (db/log_format.h).
const (
	BlockSize  = logfile.BlockSize
	HeaderSize = logfile.HeaderSize

	typeZero   = logfile.TypeZero
	typeFull   = logfile.TypeFull
	typeFirst  = logfile.TypeFirst
	typeMiddle = logfile.TypeMiddle
	typeLast   = logfile.TypeLast

	// log::Reader's own codes (db/log_reader.h), which ReadRecord also
	// takes from a physical record of that type.
	typeReaderEOF = logfile.TypeEOF
	typeReaderBad = logfile.TypeBad
)

// records calls fn with each logical record of the log read from r and the
// file offset of its first fragment's header, reading it as
// VersionSet::Recover does with upstream's log::Reader (checksums on): the
// first drop the reader reports is the error, and Recover stops there
// (the record the reader returns with it unread); what the reader skips
// silently (a record cut short by the end of the file, preallocated
// zeros, a physical record of type 6 outside a fragmented record) is
// skipped, and a physical record of type 5 ends the log. It returns the
// bytes read.
func records(name string, r io.Reader, fn func(off int64, rec []byte) error) (int64, error) {
	var first error
	rd := logfile.NewReader(r, name, logfile.Options{Type: base.DescriptorFile, NoDiagnosis: true, OnDrop: func(d logfile.Drop) {
		if first == nil {
			first = dropError(name, d)
		}
	}})
	for {
		rec, err := rd.Next()
		if first != nil {
			return rd.End().Size, first
		}
		if err == io.EOF {
			return rd.End().Size, nil
		}
		if err != nil {
			return rd.End().Size, err
		}
		// A copy: the version keeps the keys of its files, and the
		// reader reuses its buffers.
		if err := fn(rec.Offset, bytes.Clone(rec.Data)); err != nil {
			return rd.End().Size, err
		}
	}
}

// dropError is the *base.Error for the reader's drop d, with upstream's
// status.
func dropError(name string, d logfile.Drop) error {
	e := &base.Error{Type: base.DescriptorFile, File: name, Offset: d.Offset, Status: d.Status}
	switch d.Reason {
	case "":
		e.Msg, e.Err = "cannot read it", d.Err
	case "checksum mismatch":
		e.Msg = fmt.Sprintf("record checksum mismatch (stored %#08x, computed %#08x)", d.Stored, d.Computed)
	case "bad record length":
		e.Msg = fmt.Sprintf("bad record length: %d bytes run past the 32 KiB block", d.Length)
	case "partial record without end(1)", "partial record without end(2)":
		e.Msg = fmt.Sprintf("partial record without end (from offset %d)", d.Start)
	case "missing start of fragmented record(1)", "missing start of fragmented record(2)":
		e.Msg = fmt.Sprintf("missing start of fragmented record (%s fragment)", fragmentName(d.Type))
	case "error in middle of record":
		e.Msg = fmt.Sprintf("error in middle of record (from offset %d)", d.Start)
	default: // unknown record type
		e.Msg = fmt.Sprintf("unknown record type %d", d.Type)
	}
	return e
}

func fragmentName(typ int) string {
	if typ == typeMiddle {
		return "MIDDLE"
	}
	return "LAST"
}
