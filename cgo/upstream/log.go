//go:build leveldb

package upstream

/*
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// The linked LevelDB's log reader and writer and write batches
// (log_shim.cc), for the differential tests of internal/logfile. The
// reader of v1.4 to v1.15 reports a record or header cut short at the end
// of the file as corruption ("truncated record at end of file", "bad
// record length", "partial record without end(3)"); v1.16 took it for a
// writer that died there, as 1.23 does.

// LogEvent is one thing upstream's log::Reader does, in order: return a
// record, or report a drop to its Reporter.
type LogEvent struct {
	// Drop is set for a Reporter::Corruption(Bytes, Status) call.
	Drop bool
	// Offset is a record's LastRecordOffset(); Record its bytes.
	Offset uint64
	Record []byte
	// Bytes and Status are a drop's: the bytes reported and the
	// status's ToString().
	Bytes  uint64
	Status string
}

// LogRead is what log::Reader(checksum=true, initial_offset=0) makes of a
// log: ReadRecord until it returns false.
type LogRead struct {
	// OpenStatus is Env::NewSequentialFile's status when it fails ("" when
	// the file opened); nothing is read then.
	OpenStatus string
	Events     []LogEvent
}

// ReadLog reads the log data (through a SequentialFile over memory) with
// upstream's log::Reader and returns its records and drops in order.
func ReadLog(data []byte) (*LogRead, error) {
	r := C.ldbc_log_read(nil, bytesPtr(data), C.size_t(len(data)))
	defer C.ldbc_result_free(r)
	return decodeLogRead(resultBytes(r))
}

// ReadLogFile is ReadLog of the file at path, opened with
// Env::Default()->NewSequentialFile.
func ReadLogFile(path string) (*LogRead, error) {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	r := C.ldbc_log_read(cpath, nil, 0)
	defer C.ldbc_result_free(r)
	return decodeLogRead(resultBytes(r))
}

func decodeLogRead(b []byte) (*LogRead, error) {
	d := decoder{b: b}
	out := &LogRead{}
	for d.err == nil {
		switch k := d.u8(); k {
		case 'O':
			out.OpenStatus = d.str()
			return out, d.done()
		case 'D':
			out.Events = append(out.Events, LogEvent{Drop: true, Bytes: d.u64(), Status: d.str()})
		case 'R':
			out.Events = append(out.Events, LogEvent{Offset: d.u64(), Record: d.bytes()})
		case 'E':
			return out, d.done()
		default:
			if d.err == nil {
				d.err = fmt.Errorf("upstream: log result: unknown event %q", k)
			}
		}
	}
	return nil, d.err
}

// WriteLog writes records with one upstream log::Writer (AddRecord each)
// and returns the log's bytes.
func WriteLog(records [][]byte) []byte {
	flat, offs := flatten(records)
	r := C.ldbc_log_write(bytesPtr(flat), u64Ptr(offs), C.size_t(len(records)))
	defer C.ldbc_result_free(r)
	return resultBytes(r)
}

// BatchOp is one op WriteBatch::Iterate hands its Handler.
type BatchOp struct {
	Put        bool
	Key, Value []byte
}

// BatchIteration is what WriteBatch::Iterate does with a batch.
type BatchIteration struct {
	// Sequence and Count are WriteBatchInternal's (0 for contents under
	// 12 bytes, which Iterate refuses).
	Sequence uint64
	Count    uint32
	Ops      []BatchOp
	// Status is Iterate's status, "" when OK.
	Status string
}

// IterateBatch runs WriteBatch::Iterate on a batch whose contents are data
// (WriteBatchInternal::SetContents), recording each op.
func IterateBatch(data []byte) (*BatchIteration, error) {
	r := C.ldbc_batch_iterate(bytesPtr(data), C.size_t(len(data)))
	defer C.ldbc_result_free(r)
	d := decoder{b: resultBytes(r)}
	out := &BatchIteration{Sequence: d.u64(), Count: uint32(d.u64())}
	out.Ops = list(&d, d.u64(), func() BatchOp {
		op := BatchOp{Put: d.u8() == 1}
		op.Key = d.bytes()
		if op.Put {
			op.Value = d.bytes()
		}
		return op
	})
	out.Status = d.str()
	return result(&d, out)
}

// DBOpenScan is what DB::Open and a full scan make of a database directory.
type DBOpenScan struct {
	// OpenStatus is DB::Open's status, "" when OK; the rest is set only
	// then.
	OpenStatus string
	// Keys and Values are the entries an iterator yields, in order.
	Keys, Values [][]byte
	// ScanStatus is the iterator's status after the scan, "" when OK.
	ScanStatus string
}

// OpenScan opens the database directory dir with DB::Open (default
// options; paranoid_checks when paranoid is set) and reads every entry.
// DB::Open writes to dir: it replays the logs into a table, and writes a
// new log and MANIFEST.
func OpenScan(dir string, paranoid bool) (*DBOpenScan, error) {
	cdir := C.CString(dir)
	defer C.free(unsafe.Pointer(cdir))
	p := C.int(0)
	if paranoid {
		p = 1
	}
	r := C.ldbc_db_open_scan(cdir, p)
	defer C.ldbc_result_free(r)
	d := decoder{b: resultBytes(r)}
	out := &DBOpenScan{OpenStatus: d.str()}
	if out.OpenStatus == "" {
		n := d.u64()
		for i := uint64(0); i < n && d.err == nil; i++ {
			out.Keys = append(out.Keys, d.bytes())
			out.Values = append(out.Values, d.bytes())
		}
		out.ScanStatus = d.str()
	}
	return result(&d, out)
}
