package adapt

import "bytes"

// WriteBufferFor returns a memtable size above what kvs take in a
// memtable (keys, values and about 64 bytes for each entry), at least
// 4 MiB (LevelDB's default write_buffer_size): a database given it keeps
// every write of kvs in its memtable and log, as the kit's WriteSynced
// asks (nothing flushed to a table).
func WriteBufferFor(kvs [][2][]byte) int {
	n := 0
	for _, kv := range kvs {
		n += len(kv[0]) + len(kv[1]) + 64
	}
	return max(4<<20, 2*n)
}

// MemWritable is an objstorage.Writable (pebble's) in memory: Write
// appends to Buf.
type MemWritable struct{ Buf bytes.Buffer }

// Write appends p to Buf.
func (w *MemWritable) Write(p []byte) error {
	_, err := w.Buf.Write(p)
	return err
}

// Finish does nothing: the bytes are in Buf.
func (w *MemWritable) Finish() error { return nil }

// Abort does nothing.
func (w *MemWritable) Abort() {}
