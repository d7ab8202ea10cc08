package verify

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/ldbcompat/ldbcompat/internal/base"
	"github.com/ldbcompat/ldbcompat/internal/logfile"
	"github.com/ldbcompat/ldbcompat/internal/manifest"
)

// What `ldbcompat dump` shows of a log or MANIFEST, as leveldbutil dump
// (db/dumpfile.cc) prints one, with what upstream's reader drops.

// maxShownKey bounds the bytes of a key dump prints.
const maxShownKey = 64

// IsLogName tells whether the file name is a log's or a MANIFEST's.
func IsLogName(path string) bool {
	_, typ, ok := base.ParseFileName(filepath.Base(path))
	return ok && (typ == base.LogFile || typ == base.DescriptorFile)
}

// LogDumpJSON is a log or MANIFEST in `dump --json`.
type LogDumpJSON struct {
	Path string `json:"path"`
	// Kind is "log" or "manifest".
	Kind    string          `json:"kind"`
	Error   string          `json:"error,omitempty"`
	Records []logRecordJSON `json:"records"`
	Drops   []logDropJSON   `json:"drops"`
	End     *logEndJSON     `json:"end,omitempty"`
	Skips   []logSkipJSON   `json:"skips"`
}

type logRecordJSON struct {
	Offset int64  `json:"offset"`
	Bytes  int    `json:"bytes"`
	Error  string `json:"error,omitempty"`
	// A log's write batch.
	Sequence *uint64     `json:"sequence,omitempty"`
	Count    *uint32     `json:"count,omitempty"`
	Ops      []logOpJSON `json:"ops,omitempty"`
	// A MANIFEST's version edit, as VersionEdit::DebugString prints it.
	Edit string `json:"edit,omitempty"`
}

type logOpJSON struct {
	Kind      string `json:"kind"` // "put" or "del"
	KeyHex    string `json:"key_hex"`
	KeySize   int    `json:"key_size"`
	ValueSize int    `json:"value_size"`
}

type logSkipJSON struct {
	Offset  int64 `json:"offset"`
	Bytes   int64 `json:"bytes"`
	Records int   `json:"records_lost"`
}

type logEndJSON struct {
	Offset int64 `json:"offset"`
	Torn   int64 `json:"torn_bytes"`
	Marker bool  `json:"type5_marker,omitempty"`
	Size   int64 `json:"size"`
}

// DumpLog prints the log or MANIFEST at path to w (when not nil) and returns
// its JSON form and exit code: ExitError for damage, ExitPath when unreadable.
func DumpLog(path string, w io.Writer) (*LogDumpJSON, int) {
	_, typ, _ := base.ParseFileName(filepath.Base(path))
	isManifest := typ == base.DescriptorFile
	j := &LogDumpJSON{Path: path, Kind: "log", Records: []logRecordJSON{}, Drops: []logDropJSON{}, Skips: []logSkipJSON{}}
	if isManifest {
		j.Kind = "manifest"
	}
	line := func(format string, args ...any) {
		if w != nil {
			fmt.Fprintln(w, Escape(fmt.Sprintf(format, args...)))
		}
	}
	// Keys are escaped as leveldbutil escapes them (escapeKey).
	raw := func(format string, args ...any) {
		if w != nil {
			fmt.Fprintf(w, format+"\n", args...)
		}
	}
	line("%s (%s)", path, j.Kind)
	f, _, err := base.OpenNonBlocking(path) // a named pipe would block an ordinary open
	if err != nil {
		j.Error = err.Error()
		line("  cannot be read: %v", err)
		line("")
		return j, ExitPath
	}
	defer f.Close()
	code := ExitOK
	opts := logfile.Options{}
	if isManifest {
		opts.Type = base.DescriptorFile
	}
	records, ops := 0, 0
	werr := logfile.Walk(f, path, opts, func(it logfile.Item) error {
		switch {
		case it.Record != nil:
			records++
			r := logRecordJSON{Offset: it.Record.Offset, Bytes: len(it.Record.Data)}
			if isManifest {
				e, err := manifest.DecodeEdit(it.Record.Data)
				if err != nil {
					r.Error, code = editStatus(err), ExitError
					line("--- offset %d; %s", r.Offset, r.Error)
				} else {
					r.Edit = e.DebugString()
					for i, l := range strings.Split(strings.TrimSuffix(r.Edit, "\n"), "\n") {
						if i == 0 {
							line("--- offset %d; %s", r.Offset, l)
						} else {
							line("  %s", l)
						}
					}
				}
			} else {
				ops += dumpBatch(it.Record.Data, &r, line, raw)
				if r.Error != "" {
					code = ExitError
				}
			}
			j.Records = append(j.Records, r)
		case it.TooLarge != nil:
			line("--- %v", it.TooLarge)
			code = max(code, ExitError)
		case it.Drop != nil:
			d := it.Drop
			j.Drops = append(j.Drops, logDropOf(d))
			line("  dropped at offset %d: %s (%s)%s", d.Start, nouns(int(d.Bytes), "byte", "bytes"), d.Status, flipText(d))
			code = ExitError
		case it.Skip != nil:
			s := it.Skip
			j.Skips = append(j.Skips, logSkipJSON{Offset: s.Offset, Bytes: s.Bytes, Records: s.Records})
			line("  skipped at offset %d: %d bytes (a header of type %s)", s.Offset, s.Bytes, skipText(s.Kind))
			if s.Records > 0 {
				code = ExitError
			}
		case it.End != nil:
			e := it.End
			j.End = &logEndJSON{Offset: e.Offset, Torn: e.Torn, Marker: e.Marker, Size: e.Size}
			switch {
			case e.Torn > 0:
				line("  end at offset %d: the last %d bytes are a record cut short by the end of the file (a write in progress; upstream's reader takes it for the end)", e.Offset, e.Torn)
			case e.Marker:
				line("  end at offset %d: a record of type 5, which upstream's reader takes for its end-of-file code (%d bytes after it unread)", e.Offset, e.Size-e.Offset)
			default:
				line("  end at offset %d", e.Offset)
			}
		}
		return nil
	})
	if werr != nil {
		j.Error = werr.Error()
		line("  reading failed: %v", werr)
		code = max(code, ExitError)
	}
	if isManifest {
		line("  %s, %s dropped", nouns(records, "version edit", "version edits"), nouns(len(j.Drops), "record", "records"))
	} else {
		line("  %s, %s, %s dropped", nouns(records, "write batch", "write batches"), nouns(ops, "operation", "operations"), nouns(len(j.Drops), "stretch", "stretches"))
	}
	line("")
	return j, code
}

// editStatus is upstream's status for a version edit that does not decode.
func editStatus(err error) string {
	if s, ok := err.(interface{ Status() string }); ok {
		return s.Status()
	}
	return err.Error()
}

// dumpBatch prints and records a write batch, as WriteBatchPrinter does.
func dumpBatch(rec []byte, r *logRecordJSON, line, raw func(string, ...any)) int {
	b, err := logfile.NewBatch(rec)
	if err != nil {
		r.Error = editStatus(err)
		line("--- offset %d; log record length %d is too small", r.Offset, len(rec))
		return 0
	}
	seq, count := b.Sequence, b.Count
	r.Sequence, r.Count = &seq, &count
	line("--- offset %d; sequence %d; %s", r.Offset, b.Sequence, nouns(int(b.Count), "operation", "operations"))
	n, err := b.Iterate(func(o logfile.Op) {
		op := logOpJSON{Kind: o.Kind.String(), KeyHex: fmt.Sprintf("%x", o.Key), KeySize: len(o.Key), ValueSize: len(o.Value)}
		r.Ops = append(r.Ops, op)
		if o.Kind == logfile.OpPut {
			raw("  put '%s' (%d-byte key, %d-byte value)", escapeKey(o.Key), len(o.Key), len(o.Value))
		} else {
			raw("  del '%s' (%d-byte key)", escapeKey(o.Key), len(o.Key))
		}
	})
	if err != nil {
		r.Error = editStatus(err)
		line("  error: %s", r.Error)
	}
	return n
}

// escapeKey writes at most maxShownKey bytes of a key as leveldbutil's
// EscapeString does, a backslash as \x5c so that no escape can be forged.
func escapeKey(k []byte) string {
	var b strings.Builder
	for i, c := range k {
		if i == maxShownKey {
			fmt.Fprintf(&b, "... (%d more bytes)", len(k)-i)
			break
		}
		if c >= ' ' && c <= '~' && c != '\\' {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, `\x%02x`, c)
		}
	}
	return b.String()
}

// logDropOf is a drop's JSON form.
func logDropOf(d *logfile.Drop) logDropJSON {
	dj := logDropJSON{Offset: d.Start, Bytes: d.Bytes, Status: d.Status, Records: d.Records, AtLeast: d.AtLeast}
	if f := d.Flip; f != nil {
		dj.Flip = &flipJSON{Offset: uint64(f.Offset), Bit: f.Bit, Field: f.Field.String()}
	}
	return dj
}
