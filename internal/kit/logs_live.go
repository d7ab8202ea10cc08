//go:build leveldb

package kit

import "github.com/ldbcompat/ldbcompat/cgo/upstream"

// liveWriteLog returns the log upstream's log::Writer writes for recs.
func liveWriteLog(recs [][]byte) []byte { return upstream.WriteLog(recs) }

// liveReadLog returns the records upstream's log::Reader (checksums
// verified) returns from data, with their offsets.
func liveReadLog(data []byte) ([][]byte, []int64, error) {
	r, err := upstream.ReadLog(data)
	if err != nil {
		return nil, nil, err
	}
	var recs [][]byte
	var offs []int64
	for _, e := range r.Events {
		if !e.Drop {
			recs = append(recs, e.Record)
			offs = append(offs, int64(e.Offset))
		}
	}
	return recs, offs, nil
}
