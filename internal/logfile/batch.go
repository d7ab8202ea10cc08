package logfile

import (
	"encoding/binary"
	"fmt"

	"github.com/ldbcompat/ldbcompat/internal/base"
)

// BatchHeaderSize is a batch header's size: sequence (8) and count (4).
const BatchHeaderSize = 12

// OpKind is an op's tag in a write batch (db/dbformat.h ValueType).
type OpKind byte

// The ops of a write batch.
const (
	OpDelete OpKind = 0 // kTypeDeletion
	OpPut    OpKind = 1 // kTypeValue
)

func (k OpKind) String() string {
	switch k {
	case OpDelete:
		return "del"
	case OpPut:
		return "put"
	}
	return fmt.Sprintf("OpKind(%d)", byte(k))
}

// Op is one put or delete; Key and Value alias the record.
type Op struct {
	Kind       OpKind
	Key, Value []byte
}

// Batch is a write batch: the header of a log record and its ops.
type Batch struct {
	Sequence uint64 // the first op's sequence number
	Count    uint32 // the ops the header announces
	Data     []byte // the whole record
}

// BatchError is a batch WriteBatch::Iterate refuses: Reason is its message,
// Offset where the failing op starts (the end for a wrong count).
type BatchError struct {
	Offset int
	Reason string
}

func (e *BatchError) Error() string { return fmt.Sprintf("byte %d: %s", e.Offset, e.Reason) }

// Status is upstream's Status::ToString() for it.
func (e *BatchError) Status() string { return "Corruption: " + e.Reason }

// NewBatch returns the batch in rec, or "malformed WriteBatch (too small)".
func NewBatch(rec []byte) (Batch, error) {
	if len(rec) < BatchHeaderSize {
		return Batch{}, &BatchError{Offset: 0, Reason: "malformed WriteBatch (too small)"}
	}
	return Batch{Sequence: binary.LittleEndian.Uint64(rec), Count: binary.LittleEndian.Uint32(rec[8:]), Data: rec}, nil
}

// LastSequence is Sequence + Count - 1 mod 2^64, as RecoverLogFile takes it.
func (b Batch) LastSequence() uint64 { return b.Sequence + uint64(b.Count) - 1 }

// Iterate calls fn with each op as WriteBatch::Iterate calls its Handler,
// returning the ops called and the first *BatchError ("bad WriteBatch
// Put", "... Delete", "unknown WriteBatch tag", then "WriteBatch has wrong
// count"). The ops before an error are those InsertInto applies.
func (b Batch) Iterate(fn func(Op)) (int, error) {
	in := b.Data[BatchHeaderSize:]
	found := 0
	for len(in) > 0 {
		at := len(b.Data) - len(in)
		tag := OpKind(in[0])
		in = in[1:]
		switch tag {
		case OpPut:
			k, n := base.DecodeLengthPrefixed(in)
			if n == 0 {
				return found, &BatchError{Offset: at, Reason: "bad WriteBatch Put"}
			}
			v, m := base.DecodeLengthPrefixed(in[n:])
			if m == 0 {
				return found, &BatchError{Offset: at, Reason: "bad WriteBatch Put"}
			}
			in = in[n+m:]
			if fn != nil {
				fn(Op{Kind: OpPut, Key: k, Value: v})
			}
		case OpDelete:
			k, n := base.DecodeLengthPrefixed(in)
			if n == 0 {
				return found, &BatchError{Offset: at, Reason: "bad WriteBatch Delete"}
			}
			in = in[n:]
			if fn != nil {
				fn(Op{Kind: OpDelete, Key: k})
			}
		default:
			return found, &BatchError{Offset: at, Reason: "unknown WriteBatch tag"}
		}
		found++
	}
	// Upstream compares an int count with the header's, read as an int.
	if int64(found) != int64(int32(b.Count)) {
		return found, &BatchError{Offset: len(b.Data), Reason: "WriteBatch has wrong count"}
	}
	return found, nil
}
