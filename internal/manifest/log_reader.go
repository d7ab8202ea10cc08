package manifest

import (
	"bytes"
	"fmt"
	"io"

	"github.com/ldbcompat/ldbcompat/internal/base"
	"github.com/ldbcompat/ldbcompat/internal/logfile"
)

// Log format constants (db/log_format.h).
const (
	BlockSize  = logfile.BlockSize
	HeaderSize = logfile.HeaderSize

	typeFull   = logfile.TypeFull
	typeFirst  = logfile.TypeFirst
	typeMiddle = logfile.TypeMiddle
	typeLast   = logfile.TypeLast

	// log::Reader's own code (db/log_reader.h), also read from type 6.
	typeReaderBad = logfile.TypeBad
)

// records calls fn with each record of the log in r and its first header's
// offset, as VersionSet::Recover reads with log::Reader: the first drop is
// the error and ends it; silent skips are skipped and type 5 ends the log.
// It returns the bytes read.
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
		// A copy: the version keeps keys; the reader reuses its buffers.
		if err := fn(rec.Offset, bytes.Clone(rec.Data)); err != nil {
			return rd.End().Size, err
		}
	}
}

// dropError is the *base.Error for drop d, with upstream's status.
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
