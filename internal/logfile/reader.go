package logfile

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"syscall"

	"github.com/ldbcompat/ldbcompat/internal/base"
	"github.com/ldbcompat/ldbcompat/internal/crc"
)

// log::Reader with checksum=true and initial_offset=0, as upstream uses it.

// Log format constants (db/log_format.h).
const (
	BlockSize  = 32768 // kBlockSize
	HeaderSize = 7     // kHeaderSize: checksum (4), length (2), type (1)
)

// Physical record types (db/log_format.h); a record of type 5 or 6 is
// taken for log::Reader's own codes (db/log_reader.h).
const (
	TypeZero   = 0 // kZeroType: preallocated space when its length is 0
	TypeFull   = 1
	TypeFirst  = 2
	TypeMiddle = 3
	TypeLast   = 4
	TypeEOF    = 5 // kEof: reading stops
	TypeBad    = 6 // kBadRecord: skipped
)

// DefaultMaxRecord is the record size bound a zero Options.MaxRecord means.
const DefaultMaxRecord = 256 << 20

// ErrTooLarge is wrapped for a record over Options.MaxRecord: upstream
// reads it; this reader skips it and goes on.
var ErrTooLarge = errors.New("logical record longer than the reader holds")

// Options configures a Reader.
type Options struct {
	// Type is the file's type in errors (zero: base.LogFile).
	Type base.FileType
	// MaxRecord bounds an assembled record in bytes (0: DefaultMaxRecord).
	MaxRecord int64
	// OnDrop, if set, gets each drop as upstream's Reporter does, before
	// Next returns.
	OnDrop func(Drop)
	// OnSkip, when set, is called with each skip likewise.
	OnSkip func(Skip)
	// NoDiagnosis turns off Drop.Flip and the Records counts.
	NoDiagnosis bool
}

// Record is a logical record.
type Record struct {
	// Offset is its first header's offset (LastRecordOffset).
	Offset int64
	// Data is the record's bytes, valid until the next call to Next.
	Data []byte
}

// Drop is what upstream reports to Reporter::Corruption: bytes dropped, why.
type Drop struct {
	// Offset is the header being read at the drop (an I/O error's block).
	Offset int64
	// Start is the first fragment's offset when assembled fragments are
	// dropped, else Offset.
	Start int64
	// Bytes is upstream's count: the rest of the block for "checksum
	// mismatch" and "bad record length"; the data dropped for others;
	// 32768 for I/O; the length for "log record too small" (Recover).
	Bytes int64
	// Reason is the corruption's text, "" for an I/O error.
	Reason string
	// Status is upstream's Status::ToString().
	Status string
	// Err is the I/O error, or nil.
	Err error
	// Type and Length are Offset's header (Type -1 for I/O).
	Type, Length int
	// Stored and Computed are a "checksum mismatch"'s masked checksums.
	Stored, Computed uint32
	// Flip explains a "checksum mismatch" or "bad record length", if one bit can.
	Flip *Flip
	// Records estimates the logical records lost (found by lengths and
	// checksums in the bytes, or 1 for assembled fragments); AtLeast: maybe
	// more.
	Records int
	AtLeast bool
}

// FlipField names the part of a physical record where a flipped bit is.
type FlipField int

// Where a flipped bit lies.
const (
	FlipData     FlipField = iota // the record's data
	FlipType                      // the type byte
	FlipChecksum                  // the stored checksum: the data is intact
	FlipLength                    // the length field, which the checksum does not cover
)

func (f FlipField) String() string {
	return [...]string{"data", "type", "checksum", "length"}[f]
}

// Flip is one bit whose flip back makes a record's checksum match.
type Flip struct {
	Field  FlipField
	Offset int64 // file offset of the byte holding the bit
	Bit    int   // 0 (least significant) to 7
	// Type and Length are the record's, the bit flipped back.
	Type, Length int
}

// SkipKind says why the reader skipped bytes without reporting a drop.
type SkipKind int

// What upstream's reader skips silently.
const (
	// SkipZero: type 0, length 0 (preallocated): rest of block skipped.
	SkipZero SkipKind = iota
	// SkipBadType: type 6, taken for the reader's kBadRecord.
	SkipBadType
)

// Skip is bytes upstream skips unreported (unless they break a fragmented
// record, then dropped too).
type Skip struct {
	Kind   SkipKind
	Offset int64 // the header's offset
	Bytes  int64 // the bytes skipped, header included
	// Records counts records found in the skipped bytes: each a write lost
	// unreported. AtLeast as in Drop.
	Records int
	AtLeast bool
	// Flip is a bit that made a header read as type 0, length 0.
	Flip *Flip
}

// End says how reading ended, once Next has returned io.EOF.
type End struct {
	// Offset is where reading stopped: the end, a cut header or record, or
	// a type 5 record.
	Offset int64
	// Torn is the bytes of a header (TornHeader) or record cut by the end,
	// which upstream takes for a write in progress.
	Torn       int64
	TornHeader bool
	// Marker: a type 5 record at Offset ended reading.
	Marker bool
	// Pending is an unfinished fragmented record's offset (-1 if none),
	// dropped unreported; PendingBytes its data.
	Pending      int64
	PendingBytes int64
	// Flip is a length bit whose flip back makes a cut record fit with its
	// checksum: damage, not a write in progress.
	Flip *Flip
	// Size is the bytes read from the file.
	Size int64
	// Records counts records lost at the end (torn, pending, or after a
	// type 5). AtLeast as in Drop.
	Records int
	AtLeast bool
}

// Reader reads the logical records of a log, as upstream's log::Reader.
type Reader struct {
	r    io.Reader
	name string
	opts Options

	block []byte // the block read last
	buf   []byte // its unread part (upstream's buffer_)
	eof   bool   // the last read was short (upstream's eof_)
	end   int64  // the file offset just past the block (end_of_buffer_offset_)
	done  bool

	scratch    []byte
	scratchLen int64 // the assembled fragments' length, even past MaxRecord
	recStart   int64 // the pending FIRST fragment's offset

	hType, hLen int    // the fields of the header read last (-1: none)
	torn        []byte // a record the end of the file cuts short

	ended  End
	budget int64 // diagnosis work left, in bytes checksummed

	// file, if r is one, is read through buffered; zeros marks an all-zero
	// last block, after which a sparse hole may follow.
	file     *os.File
	buffered *bufio.Reader
	zeros    bool
}

// NewReader returns a reader of the log in r, named name in statuses.
func NewReader(r io.Reader, name string, opts Options) *Reader {
	if opts.Type == base.NoFile {
		opts.Type = base.LogFile
	}
	if opts.MaxRecord <= 0 {
		opts.MaxRecord = DefaultMaxRecord
	}
	rd := &Reader{r: r, name: name, opts: opts, block: make([]byte, BlockSize), ended: End{Pending: -1}, budget: diagnosisBase}
	if f, ok := r.(*os.File); ok {
		// 1 MiB reads: 32 times fewer system calls, same bytes.
		rd.file, rd.buffered = f, bufio.NewReaderSize(f, 1<<20)
		rd.r = rd.buffered
	}
	return rd
}

// skipHole skips a sparse file's hole after a zero block with one Skip
// (upstream reads through its zeros unreported), so a sparse 100 GB
// MANIFEST takes an instant. The last, maybe short, block is always read.
func (r *Reader) skipHole() {
	if seekData < 0 {
		return
	}
	fi, err := r.file.Stat()
	if err != nil {
		return
	}
	// SEEK_DATA moves the offset: reset it and drop the buffer.
	data, err := r.file.Seek(r.end, seekData)
	switch {
	case errors.Is(err, syscall.ENXIO):
		data = fi.Size() // no data after r.end
	case err != nil:
		data = r.end
	}
	to := max(r.end, min(data, fi.Size()-1)/BlockSize*BlockSize)
	if _, err := r.file.Seek(to, io.SeekStart); err != nil {
		// The read position is lost: an I/O error.
		r.report(Drop{Offset: r.end, Start: r.end, Bytes: BlockSize, Status: "IO error: " + r.name + ": " + err.Error(), Err: err, Type: -1, AtLeast: true})
		r.eof = true
		return
	}
	r.buffered.Reset(r.file)
	if to > r.end {
		s := Skip{Kind: SkipZero, Offset: r.end, Bytes: to - r.end}
		r.end = to
		if r.opts.OnSkip != nil {
			r.opts.OnSkip(s)
		}
	}
}

// Next returns the next logical record as log::Reader::ReadRecord does,
// reporting to opts.OnDrop and OnSkip, and io.EOF at the end (see End). A
// record over opts.MaxRecord is an error wrapping ErrTooLarge; Next may be
// called again.
func (r *Reader) Next() (Record, error) {
	if r.done {
		return Record{}, io.EOF
	}
	r.scratch, r.scratchLen = r.scratch[:0], 0
	inFragment := false
	for {
		typ, frag, at := r.readPhysical()
		switch typ {
		case TypeFull, TypeFirst:
			if inFragment && r.scratchLen > 0 {
				// An empty FIRST fragment at a block's end was
				// written by old log::Writers: not corruption.
				which := map[int]string{TypeFull: "(1)", TypeFirst: "(2)"}[typ]
				r.corrupt(Drop{Offset: at, Start: r.recStart, Bytes: r.scratchLen, Reason: "partial record without end" + which, Records: 1})
			}
			if typ == TypeFull {
				r.scratch, r.scratchLen = r.scratch[:0], 0
				return Record{Offset: at, Data: frag}, nil
			}
			r.recStart = at
			r.scratch, r.scratchLen = r.scratch[:0], 0
			r.assemble(frag)
			inFragment = true
		case TypeMiddle, TypeLast:
			if !inFragment {
				which := map[int]string{TypeMiddle: "(1)", TypeLast: "(2)"}[typ]
				r.corrupt(Drop{Offset: at, Start: at, Bytes: int64(len(frag)), Reason: "missing start of fragmented record" + which})
				continue
			}
			r.assemble(frag)
			if typ == TypeLast {
				if r.scratchLen > int64(len(r.scratch)) {
					return Record{Offset: r.recStart}, &base.Error{Type: r.opts.Type, File: r.name, Offset: r.recStart,
						Msg: fmt.Sprintf("logical record of %d bytes: longer than the %d bytes the reader holds", r.scratchLen, r.opts.MaxRecord), Err: ErrTooLarge}
				}
				return Record{Offset: r.recStart, Data: r.scratch}, nil
			}
		case typeReaderEOF:
			if inFragment {
				// A writer that died between fragments: not
				// corruption, the record is dropped silently.
				r.ended.Pending, r.ended.PendingBytes = r.recStart, r.scratchLen
			}
			r.finish()
			return Record{}, io.EOF
		case typeReaderBad:
			if inFragment {
				// Zeros in the middle of a record are not
				// preallocated space: they may hide more records.
				zeros := r.hType == TypeZero && r.hLen == 0
				r.corrupt(Drop{Offset: at, Start: r.recStart, Bytes: r.scratchLen, Reason: "error in middle of record", Records: 1, AtLeast: zeros})
				inFragment = false
				r.scratch, r.scratchLen = r.scratch[:0], 0
			}
		default:
			d := Drop{Offset: at, Start: at, Bytes: int64(len(frag)), Reason: "unknown record type " + TypeString(byte(typ))}
			if inFragment {
				d.Start, d.Bytes, d.Records = r.recStart, d.Bytes+r.scratchLen, 1
			}
			r.corrupt(d)
			inFragment = false
			r.scratch, r.scratchLen = r.scratch[:0], 0
		}
	}
}

// TypeString prints a type as log_reader.cc's "unknown record type %u" of
// a plain char: on x86, types from 128 print as 4294967168 and up.
func TypeString(typ byte) string {
	shown := uint32(typ)
	if runtime.GOARCH == "amd64" || runtime.GOARCH == "386" {
		shown = uint32(int32(int8(typ)))
	}
	return fmt.Sprint(shown)
}

// End returns how reading ended, final once Next returned io.EOF.
func (r *Reader) End() End { return r.ended }

// readPhysical's codes besides a record type; types 5 and 6 in the file
// give them too, as upstream reads header[6] into the same variable.
const (
	typeReaderEOF = TypeEOF
	typeReaderBad = TypeBad
)

// assemble appends a fragment, keeping at most opts.MaxRecord bytes.
func (r *Reader) assemble(frag []byte) {
	r.scratchLen += int64(len(frag))
	if r.scratchLen <= r.opts.MaxRecord {
		r.scratch = append(r.scratch, frag...)
	}
}

// corrupt reports a corruption drop (log::Reader::ReportCorruption).
func (r *Reader) corrupt(d Drop) {
	d.Status = "Corruption: " + d.Reason
	d.Type, d.Length = r.hType, r.hLen
	r.report(d)
}

func (r *Reader) report(d Drop) {
	if r.opts.OnDrop != nil {
		r.opts.OnDrop(d)
	}
}

// readPhysical is log::Reader::ReadPhysicalRecord.
func (r *Reader) readPhysical() (typ int, frag []byte, at int64) {
	r.hType, r.hLen = -1, 0
	for {
		if len(r.buf) < HeaderSize {
			if !r.eof {
				// A full block was read last: what is left is
				// its trailer, skipped.
				r.buf = nil
				if r.zeros && r.file != nil {
					r.skipHole()
				}
				r.zeros = false
				n, err := io.ReadFull(r.r, r.block)
				if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
					status := base.IOStatus(r.name, err)
					if status == "" {
						status = "IO error: " + r.name + ": " + err.Error()
					}
					r.report(Drop{Offset: r.end, Start: r.end, Bytes: BlockSize, Status: status, Err: err, Type: -1, AtLeast: true})
					r.eof = true
					r.ended.Offset = r.end
					return typeReaderEOF, nil, r.end
				}
				r.end += int64(n)
				r.buf = r.block[:n]
				r.budget += diagnosisPerByte * int64(n)
				if n < BlockSize {
					r.eof = true
				}
				continue
			}
			// A header cut by the end: a writer died writing it.
			r.ended.Offset = r.end - int64(len(r.buf))
			if len(r.buf) > 0 {
				r.ended.Torn, r.ended.TornHeader = int64(len(r.buf)), true
			}
			r.buf = nil
			return typeReaderEOF, nil, r.end
		}
		h := r.buf[:HeaderSize]
		length := int(binary.LittleEndian.Uint16(h[4:6]))
		typ = int(h[6])
		r.hType, r.hLen = typ, length
		at = r.end - int64(len(r.buf))
		if HeaderSize+length > len(r.buf) {
			region := r.buf
			r.buf = nil
			if !r.eof {
				d := Drop{Offset: at, Start: at, Bytes: int64(len(region)), Reason: "bad record length"}
				r.diagnose(&d, region)
				r.corrupt(d)
				return typeReaderBad, nil, at
			}
			// A record cut by the end: a writer died writing it.
			r.ended.Offset, r.ended.Torn = at, int64(len(region))
			r.torn = region
			return typeReaderEOF, nil, at
		}
		if typ == TypeZero && length == 0 {
			// Preallocated space (mmap writer): rest of block skipped.
			s := Skip{Kind: SkipZero, Offset: at, Bytes: int64(len(r.buf))}
			r.zeros = at%BlockSize == 0 && len(r.buf) == BlockSize && allZero(r.buf)
			r.diagnoseZero(&s, r.buf)
			r.buf = nil
			if r.opts.OnSkip != nil {
				r.opts.OnSkip(s)
			}
			return typeReaderBad, nil, at
		}
		stored := binary.LittleEndian.Uint32(h[0:4])
		if got := crc.Mask(crc.Value(r.buf[6 : HeaderSize+length])); got != stored {
			// Drop the rest of the block: the length may be the damage.
			region := r.buf
			r.buf = nil
			d := Drop{Offset: at, Start: at, Bytes: int64(len(region)), Reason: "checksum mismatch", Stored: stored, Computed: got}
			r.diagnose(&d, region)
			r.corrupt(d)
			return typeReaderBad, nil, at
		}
		frag = r.buf[HeaderSize : HeaderSize+length : HeaderSize+length]
		r.buf = r.buf[HeaderSize+length:]
		if typ == TypeBad && r.opts.OnSkip != nil {
			r.opts.OnSkip(Skip{Kind: SkipBadType, Offset: at, Bytes: int64(HeaderSize + length)})
		}
		if typ == TypeEOF {
			r.ended.Offset, r.ended.Marker = at, true
		}
		return typ, frag, at
	}
}

// finish completes End, reading on after a type 5 record to count losses.
func (r *Reader) finish() {
	r.done = true
	e := &r.ended
	if e.Pending >= 0 {
		e.Records = 1
	}
	switch {
	case e.TornHeader && e.Pending < 0:
		e.Records++
	case r.torn != nil:
		r.diagnoseTorn()
	}
	if e.Marker && !r.opts.NoDiagnosis {
		n, atLeast := r.count(r.buf, 0)
		e.Records += n
		e.AtLeast = e.AtLeast || atLeast
		for !r.eof {
			m, err := io.ReadFull(r.r, r.block)
			r.end += int64(m)
			r.budget += diagnosisPerByte * int64(m)
			if m < BlockSize || err != nil {
				r.eof = true
			}
			if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
				e.AtLeast = true
			}
			n, atLeast := r.count(r.block[:m], 0)
			e.Records += n
			e.AtLeast = e.AtLeast || atLeast
		}
	} else if e.Marker {
		e.AtLeast = true
	}
	if !e.Marker && e.Torn == 0 {
		e.Offset = r.end
	}
	e.Size = r.end
	r.buf = nil
}
