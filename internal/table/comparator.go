package table

import "bytes"

// Comparators (include/leveldb/comparator.h): the bytewise one of
// util/comparator.cc, which orders a metaindex block's keys; dbformat.go
// has the internal key comparator.

// comparator is a leveldb::Comparator; err is set where upstream's
// comparison is undefined.
type comparator func(a, b []byte) (int, error)

func compareBytewise(a, b []byte) (int, error) { return bytes.Compare(a, b), nil }
