package verify_test

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/internal/table"
	"github.com/ldbcompat/ldbcompat/internal/table/tabletest"
	"github.com/ldbcompat/ldbcompat/internal/verify"
)

// longPrefixTable returns a table of about size bytes whose data blocks
// each hold one key of keyLen bytes in full and then entries that share
// all of it but their last 4 bytes (and tag): each block decodes to
// about 60 times its size in keys, within the scan's budget of 64 times.
// filter is "none", "ok" (the filter its policy writes), "legacy" (the
// legacy policy's) or "mismatch" (a filter of every other key).
func longPrefixTable(size, keyLen int, filter string) []byte {
	const perBlock = 60
	var file []byte
	var index []tabletest.KV
	var fb *bloom.FilterBlockBuilder
	p := bloom.NewPolicy(10)
	if filter == "legacy" {
		p = bloom.NewLegacyPolicy(10, false)
	}
	if filter != "none" {
		fb = bloom.NewFilterBlockBuilder(p)
		fb.StartBlock(0)
	}
	user := make([]byte, keyLen)
	for i := range user {
		user[i] = 'p'
	}
	n := uint32(0)
	for len(file) < size {
		var kvs []tabletest.KV
		for j := 0; j < perBlock; j++ {
			binary.BigEndian.PutUint32(user[keyLen-4:], n)
			n++
			k := table.AppendInternalKey(nil, table.InternalKey{UserKey: user, Seq: 1, Kind: table.KindValue})
			kvs = append(kvs, tabletest.KV{Key: k, Value: []byte("v")})
			if fb != nil && (filter != "mismatch" || n%2 == 0) {
				fb.AddKey(user)
			}
		}
		var h table.BlockHandle
		file, h = tabletest.AppendBlock(file, tabletest.EncodeBlock(kvs, 1<<30), table.NoCompression)
		index = append(index, tabletest.KV{Key: kvs[len(kvs)-1].Key, Value: table.AppendBlockHandle(nil, h)})
		if fb != nil {
			fb.StartBlock(h.End())
		}
	}
	var meta []tabletest.KV
	if fb != nil {
		var fh table.BlockHandle
		file, fh = tabletest.AppendBlock(file, fb.Finish(), table.NoCompression)
		meta = append(meta, tabletest.KV{Key: []byte(table.FilterPrefix + p.Name()), Value: table.AppendBlockHandle(nil, fh)})
	}
	file, mh := tabletest.AppendBlock(file, tabletest.EncodeBlock(meta, 16), table.NoCompression)
	file, ih := tabletest.AppendBlock(file, tabletest.EncodeBlock(index, 1), table.NoCompression)
	return tabletest.AppendFooter(file, mh, ih)
}

// peakHeap runs f and returns the largest heap in use (live and
// unswept objects) seen while it ran, sampled every 200 µs.
func peakHeap(f func()) uint64 {
	runtime.GC()
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var peak uint64
	var mu sync.Mutex
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(200 * time.Microsecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			mu.Lock()
			peak = max(peak, s[0].Value.Uint64())
			mu.Unlock()
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	f()
	close(stop)
	<-done
	return peak
}

// TestMemoryBound: a table of long prefix-compressed keys, decoding to
// about 60 times its size in keys (within the scan's budget), is verified
// and dumped in memory bounded by the file (read into memory for dump)
// plus a small multiple of its largest block and a few bytes a key, not
// by the keys' total length: the keys are hashed as they are read, and
// read again block by block where a mismatch, a legacy filter or dump's
// samples need them. A 48 MB such table took 3.3 GB to verify and 9.7 GB
// to dump when the keys were kept.
func TestMemoryBound(t *testing.T) {
	if testing.Short() {
		t.Skip("builds tables of 4 MB decoding to 240 MB of keys")
	}
	const slack = 24 << 20 // blocks, hashes, the runtime's own
	for _, filter := range []string{"ok", "legacy", "mismatch"} {
		data := longPrefixTable(4<<20, 64<<10, filter)
		path := filepath.Join(t.TempDir(), "000005.ldb")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, keep := range []bool{false, true} {
			var rep *verify.TableReport
			runtime.GC()
			base := heapInUse()
			peak := peakHeap(func() {
				rep = verify.Examine(&verify.Target{Path: path}, verify.Options{Keep: keep})
				if keep {
					verify.NewDump(rep, 10000, 1)
				}
			})
			bound := uint64(slack)
			if keep {
				bound += uint64(len(data)) // dump reads the file into memory
			}
			if rep.Verdict == verify.Unchecked || rep.Verdict == verify.Unreadable || peak-min(peak, base) > bound {
				t.Errorf("filter %s, keep %v: %s (%v), heap grew by %d MB; want a verdict and at most %d MB (table %d MB)",
					filter, keep, rep.Verdict, rep.Err, (peak-min(peak, base))>>20, bound>>20, len(data)>>20)
			}
		}
	}
}

// heapInUse is the heap's objects' bytes now.
func heapInUse() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}
