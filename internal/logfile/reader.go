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

// Follows db/log_reader.cc: log::Reader with checksum=true and
// initial_offset=0, as DBImpl::RecoverLogFile, VersionSet::Recover and
// leveldbutil dump create it.

// Log format constants (db/log_format.h).
const (
	BlockSize  = 32768 // kBlockSize
	HeaderSize = 7     // kHeaderSize: checksum (4), length (2), type (1)
)

// Physical record types (db/log_format.h), and the two codes of
// log::Reader (db/log_reader.h) that a physical record of type 5 or 6 in
// the file is taken for.
const (
	TypeZero   = 0 // kZeroType: preallocated space when its length is 0
	TypeFull   = 1
	TypeFirst  = 2
	TypeMiddle = 3
	TypeLast   = 4
	TypeEOF    = 5 // kEof: reading stops
	TypeBad    = 6 // kBadRecord: skipped
)

// DefaultMaxRecord is the bound on a logical record's size that a zero
// Options.MaxRecord means.
const DefaultMaxRecord = 256 << 20

// ErrTooLarge is wrapped by the *base.Error Next returns for a logical
// record longer than Options.MaxRecord. Upstream reads such a record; the
// reader does not hold it, and goes on with the next one.
var ErrTooLarge = errors.New("logical record longer than the reader holds")

// Options configures a Reader.
type Options struct {
	// Type is the type of the file read, for its errors: base.LogFile
	// when zero (base.NoFile).
	Type base.FileType
	// MaxRecord bounds the logical records the reader assembles from
	// fragments, in bytes: DefaultMaxRecord when 0.
	MaxRecord int64
	// OnDrop, when set, is called with each drop, as upstream's Reporter
	// is, before Next returns the record (or the end) it was reading.
	OnDrop func(Drop)
	// OnSkip, when set, is called with each skip likewise.
	OnSkip func(Skip)
	// NoDiagnosis turns off what the reader works out of damaged bytes
	// beyond upstream's report (Drop.Flip, the Records counts).
	NoDiagnosis bool
}

// Record is a logical record.
type Record struct {
	// Offset is the file offset of its first fragment's header
	// (log::Reader::LastRecordOffset).
	Offset int64
	// Data is the record's bytes, valid until the next call to Next.
	Data []byte
}

// Drop is what upstream's reader reports to its Reporter
// (Reporter::Corruption(bytes, status)): bytes it dropped, and why.
type Drop struct {
	// Offset is the header of the physical record being read when the
	// reader reported the drop; for an I/O error, the offset of the
	// block whose read failed.
	Offset int64
	// Start is the offset of the dropped logical record's first
	// fragment when the drop is of a fragmented record's assembled
	// fragments ("partial record without end", "error in middle of
	// record", an unknown type inside a fragmented record); Offset
	// otherwise.
	Start int64
	// Bytes is the count upstream reports: the rest of the block from
	// Offset for "checksum mismatch" and "bad record length" (the bytes
	// [Offset, Offset+Bytes)); a fragment's or the assembled fragments'
	// data for the others (headers not counted); 32768 for an I/O error;
	// the record's length for "log record too small" (Recover).
	Bytes int64
	// Reason is the corruption's text, such as "checksum mismatch", or
	// "" for an I/O error.
	Reason string
	// Status is upstream's Status::ToString() for it, such as
	// "Corruption: checksum mismatch" or "IO error: FILE: Input/output
	// error".
	Status string
	// Err is the I/O error, or nil.
	Err error
	// Type and Length are the fields of the header at Offset (Type is
	// the byte as stored; -1 for an I/O error).
	Type, Length int
	// Stored and Computed are the masked checksums of a "checksum
	// mismatch": the header's and that of its type and data.
	Stored, Computed uint32
	// Flip is the one flipped bit that explains a "checksum mismatch"
	// or a "bad record length", when there is one.
	Flip *Flip
	// Records estimates how many logical records begin in the dropped
	// bytes (for "checksum mismatch" and "bad record length", counted
	// by following record lengths and checksums in them) or were
	// dropped as assembled fragments (1); AtLeast tells that there may
	// be more (bytes no checksum explains, or the diagnosis was capped).
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

// Flip is one flipped bit that explains a damaged physical record: with it
// flipped back, the record's checksum matches.
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
	// SkipZero: a header of type 0 and length 0 (preallocated space):
	// the rest of the block is skipped.
	SkipZero SkipKind = iota
	// SkipBadType: a physical record of type 6, which the reader takes
	// for its own kBadRecord.
	SkipBadType
)

// Skip is bytes upstream's reader skips without telling its Reporter
// (unless they break a fragmented record, which is then dropped too).
type Skip struct {
	Kind   SkipKind
	Offset int64 // the header's offset
	Bytes  int64 // the bytes skipped, header included
	// Records counts the logical records whose headers and checksums
	// are found in the skipped bytes: preallocated space holds none, so
	// any is a write lost without a report. AtLeast as in Drop.
	Records int
	AtLeast bool
	// Flip is the one flipped bit that makes a record's header read as
	// type 0 and length 0, when there is one.
	Flip *Flip
}

// End says how reading ended, once Next has returned io.EOF.
type End struct {
	// Offset is where the reader stopped: the end of the file, or the
	// offset of a header or record the end of the file cuts short, or
	// of a physical record of type 5.
	Offset int64
	// Torn is the bytes of a header or record cut short by the end of
	// the file at Offset: upstream takes them for a write in progress
	// and reports nothing. TornHeader tells that the header itself is
	// cut.
	Torn       int64
	TornHeader bool
	// Marker tells that a physical record of type 5 at Offset ended
	// reading, the bytes after it unread (by upstream).
	Marker bool
	// Pending is the offset of a fragmented record that the end left
	// unfinished, dropped without a report, and PendingBytes its data
	// read; Pending is -1 when there is none.
	Pending      int64
	PendingBytes int64
	// Flip is the one flipped bit of the length field that explains a
	// record the end of the file cuts short as damage rather than a
	// write in progress: with it flipped back, the record fits and its
	// checksum matches.
	Flip *Flip
	// Size is the bytes read from the file.
	Size int64
	// Records counts the logical records lost at the end: the torn or
	// pending one, and any whose headers and checksums are found after
	// a type 5 record. AtLeast as in Drop.
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

	// file is the file read, when it is one, read through buffered;
	// zeros tells that the last block read was all zeros, so that a hole
	// of a sparse file may follow (skipHole).
	file     *os.File
	buffered *bufio.Reader
	zeros    bool
}

// NewReader returns a reader of the log read from r, named name in errors
// and statuses (upstream's statuses name the file as it was opened).
func NewReader(r io.Reader, name string, opts Options) *Reader {
	if opts.Type == base.NoFile {
		opts.Type = base.LogFile
	}
	if opts.MaxRecord <= 0 {
		opts.MaxRecord = DefaultMaxRecord
	}
	rd := &Reader{r: r, name: name, opts: opts, block: make([]byte, BlockSize), ended: End{Pending: -1}, budget: diagnosisBase}
	if f, ok := r.(*os.File); ok {
		// A file is read 1 MiB at a time, 32 times fewer system calls
		// than a block at a time; what is read is the same.
		rd.file, rd.buffered = f, bufio.NewReaderSize(f, 1<<20)
		rd.r = rd.buffered
	}
	return rd
}

// skipHole skips the blocks of a hole in a sparse file that starts at the
// reader's offset, after a block of zeros: every block of it would be
// zeros, each skipped as that one was (upstream's reader reads through
// them, unreported), so one Skip stands for them all. A sparse MANIFEST of
// 100 GB is then read in an instant instead of minutes of zeros. The last
// block, which may be short, is always read.
func (r *Reader) skipHole() {
	if seekData < 0 {
		return
	}
	fi, err := r.file.Stat()
	if err != nil {
		return
	}
	// SEEK_DATA moves the file's offset, which the buffered reader is
	// ahead of: it is set again, and the buffer dropped, whatever comes.
	data, err := r.file.Seek(r.end, seekData)
	switch {
	case errors.Is(err, syscall.ENXIO):
		data = fi.Size() // no data after r.end
	case err != nil:
		data = r.end
	}
	to := max(r.end, min(data, fi.Size()-1)/BlockSize*BlockSize)
	if _, err := r.file.Seek(to, io.SeekStart); err != nil {
		// Where the file is read from is lost: an I/O error, as a
		// failed read would be.
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

// Next returns the next logical record, as log::Reader::ReadRecord does,
// reporting the drops and skips on the way to opts.OnDrop and opts.OnSkip.
// At the end it returns io.EOF (End says how the log ended). A record
// longer than opts.MaxRecord is a *base.Error wrapping ErrTooLarge, at the
// record's offset; Next may be called again after it.
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

// TypeString is a physical record type as log_reader.cc prints an unknown
// one ("unknown record type %u" of header[6], a plain char): on x86, where
// char is signed, types from 128 print as 4294967168 and up.
func TypeString(typ byte) string {
	shown := uint32(typ)
	if runtime.GOARCH == "amd64" || runtime.GOARCH == "386" {
		shown = uint32(int32(int8(typ)))
	}
	return fmt.Sprint(shown)
}

// End returns how reading ended; it is final once Next has returned
// io.EOF.
func (r *Reader) End() End { return r.ended }

// The codes readPhysical returns besides a physical record's type: a
// physical record of type 5 or 6 in the file returns them too, as in
// upstream, which reads header[6] into the same variable.
const (
	typeReaderEOF = TypeEOF
	typeReaderBad = TypeBad
)

// assemble appends a fragment to the pending record, holding at most
// opts.MaxRecord bytes of it.
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

// readPhysical is log::Reader::ReadPhysicalRecord: the next physical
// record's type, data and header offset, or typeReaderEOF or
// typeReaderBad.
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
			// A header cut short by the end of the file: a writer
			// that died while writing it.
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
			// A record cut short by the end of the file: a writer
			// that died while writing it.
			r.ended.Offset, r.ended.Torn = at, int64(len(region))
			r.torn = region
			return typeReaderEOF, nil, at
		}
		if typ == TypeZero && length == 0 {
			// Preallocated space (upstream's mmap writer): the rest
			// of the block is skipped, unreported.
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
			// The rest of the block is dropped: the length itself
			// may be what is damaged.
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

// finish completes End once reading has stopped: what was lost at the
// end, counting the records after a type 5 record by reading on.
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
