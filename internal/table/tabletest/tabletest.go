// Package tabletest builds and alters table files for tests, keeping
// checksums valid so tests reach the checks behind them.
package tabletest

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"sort"
	"strings"

	"github.com/klauspost/compress/snappy"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/internal/table"
)

// KV is one block entry.
type KV struct {
	Key, Value []byte // stored as given
}

// DeepPrefixBlock returns a block of n-8 entries after a deletion of ""
// at sequence 0, each repeating the whole previous key and adding a byte:
// its keys' total size grows with the square of n.
func DeepPrefixBlock(n int) []byte {
	c := []byte{0, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0} // a deletion of "" at sequence 0
	for i := 8; i < n; i++ {
		c = binary.AppendUvarint(c, uint64(i)) // shares the whole previous key
		c = append(c, 1, 0, 0)                 // non_shared 1, value_len 0, a zero byte
	}
	c = binary.LittleEndian.AppendUint32(c, 0)
	return binary.LittleEndian.AppendUint32(c, 1)
}

// EncodeBlock encodes entries in LevelDB's block layout, storing a whole
// key every restartInterval entries (at least 1), as BlockBuilder does.
func EncodeBlock(entries []KV, restartInterval int) []byte {
	restartInterval = max(restartInterval, 1)
	var b []byte
	restarts := []uint32{0}
	var last []byte
	for i, e := range entries {
		shared := 0
		if i%restartInterval == 0 {
			if i > 0 {
				restarts = append(restarts, uint32(len(b)))
			}
		} else {
			for shared < len(last) && shared < len(e.Key) && last[shared] == e.Key[shared] {
				shared++
			}
		}
		b = binary.AppendUvarint(b, uint64(shared))
		b = binary.AppendUvarint(b, uint64(len(e.Key)-shared))
		b = binary.AppendUvarint(b, uint64(len(e.Value)))
		b = append(b, e.Key[shared:]...)
		b = append(b, e.Value...)
		last = e.Key
	}
	for _, r := range restarts {
		b = binary.LittleEndian.AppendUint32(b, r)
	}
	return binary.LittleEndian.AppendUint32(b, uint32(len(restarts)))
}

// AppendBlock appends contents and a valid trailer of compression type to
// file, returning it and the block's handle.
func AppendBlock(file, stored []byte, compression byte) ([]byte, table.BlockHandle) {
	h := table.BlockHandle{Offset: uint64(len(file)), Size: uint64(len(stored))}
	file = append(file, stored...)
	file = append(file, compression)
	file = binary.LittleEndian.AppendUint32(file, table.BlockChecksum(stored, compression))
	return file, h
}

// AppendFooter appends a footer holding the two handles to file.
func AppendFooter(file []byte, metaindex, index table.BlockHandle) []byte {
	start := len(file)
	file = table.AppendBlockHandle(file, metaindex)
	file = table.AppendBlockHandle(file, index)
	for len(file) < start+table.FooterSize-8 {
		file = append(file, 0)
	}
	return binary.LittleEndian.AppendUint64(file, table.Magic)
}

// FixChecksum makes the checksum of the block at h in file match it.
func FixChecksum(file []byte, h table.BlockHandle) {
	end := h.Offset + h.Size
	sum := table.BlockChecksum(file[h.Offset:end], file[end])
	binary.LittleEndian.PutUint32(file[end+1:], sum)
}

// ReplaceFilter copies file with filter as its "filter."+name block (none
// when name is ""), the metaindex rewritten uncompressed.
func ReplaceFilter(file []byte, name string, filter []byte) ([]byte, error) {
	t, err := open(file)
	if err != nil {
		return nil, err
	}
	end := min(t.MetaindexHandle().Offset, t.IndexHandle().Offset)
	if fh, ok := t.FilterHandle(); ok {
		end = min(end, fh.Offset)
	}
	out := append([]byte(nil), file[:end]...)
	var meta []KV
	for _, m := range t.Metaindex() {
		if strings.HasPrefix(m.Name, table.FilterPrefix) {
			continue
		}
		// Other entries would point into the region being rewritten.
		return nil, fmt.Errorf("tabletest: metaindex entry %q not supported", m.Name)
	}
	if name != "" {
		var fh table.BlockHandle
		out, fh = AppendBlock(out, filter, table.NoCompression)
		meta = append(meta, KV{Key: []byte(table.FilterPrefix + name), Value: table.AppendBlockHandle(nil, fh)})
	}
	sort.Slice(meta, func(i, j int) bool { return string(meta[i].Key) < string(meta[j].Key) })
	var mh table.BlockHandle
	out, mh = AppendBlock(out, EncodeBlock(meta, 16), table.NoCompression)
	ih := t.IndexHandle()
	newIH := table.BlockHandle{Offset: uint64(len(out)), Size: ih.Size}
	out = append(out, file[ih.Offset:ih.End()]...)
	return AppendFooter(out, mh, newIH), nil
}

// ReplaceFooter returns a copy of file with a footer of these handles.
func ReplaceFooter(file []byte, metaindex, index table.BlockHandle) []byte {
	out := append([]byte(nil), file[:len(file)-table.FooterSize]...)
	return AppendFooter(out, metaindex, index)
}

func open(file []byte) (*table.Table, error) {
	return table.Open("tabletest", bytes.NewReader(file), int64(len(file)))
}

// Options configure Build.
type Options struct {
	BlockSize       int                // target data block size; 0 means 4096
	RestartInterval int                // 0 means 16
	Snappy          bool               // compress blocks that shrink by 1/8 or more
	Policy          bloom.FilterPolicy // nil: no filter block
	// NewFilterBlockBuilder makes the filter block's builder; nil means
	// package bloom's.
	NewFilterBlockBuilder func(bloom.FilterPolicy) FilterBlockBuilder
}

// FilterBlockBuilder has leveldb::FilterBlockBuilder's calls.
type FilterBlockBuilder interface {
	StartBlock(blockOffset uint64)
	AddKey(key []byte)
	Finish() []byte
}

// Build writes a table of sorted entries laid out as TableBuilder does,
// but with each index entry keyed by its block's last key.
func Build(entries []table.Entry, o Options) []byte {
	if o.BlockSize <= 0 {
		o.BlockSize = 4096
	}
	if o.RestartInterval <= 0 {
		o.RestartInterval = 16
	}
	var file []byte
	var fb FilterBlockBuilder
	if o.Policy != nil {
		if o.NewFilterBlockBuilder != nil {
			fb = o.NewFilterBlockBuilder(o.Policy)
		} else {
			fb = bloom.NewFilterBlockBuilder(o.Policy)
		}
		fb.StartBlock(0)
	}
	var index, pending []KV
	size := 0
	flush := func() {
		if len(pending) == 0 {
			return
		}
		contents := EncodeBlock(pending, o.RestartInterval)
		typ := byte(table.NoCompression)
		if o.Snappy {
			if c := snappy.Encode(nil, contents); len(c) < len(contents)-len(contents)/8 {
				contents, typ = c, table.SnappyCompression
			}
		}
		var h table.BlockHandle
		file, h = AppendBlock(file, contents, typ)
		index = append(index, KV{Key: pending[len(pending)-1].Key, Value: table.AppendBlockHandle(nil, h)})
		if fb != nil {
			fb.StartBlock(h.End())
		}
		pending, size = nil, 0
	}
	for _, e := range entries {
		k := table.AppendInternalKey(nil, e.Key)
		pending = append(pending, KV{Key: k, Value: e.Value})
		size += len(k) + len(e.Value) + 3
		if fb != nil {
			fb.AddKey(e.Key.UserKey)
		}
		if size >= o.BlockSize {
			flush()
		}
	}
	flush()
	var meta []KV
	if fb != nil {
		var fh table.BlockHandle
		file, fh = AppendBlock(file, fb.Finish(), table.NoCompression)
		meta = append(meta, KV{Key: []byte(table.FilterPrefix + o.Policy.Name()), Value: table.AppendBlockHandle(nil, fh)})
	}
	file, mh := AppendBlock(file, EncodeBlock(meta, o.RestartInterval), table.NoCompression)
	file, ih := AppendBlock(file, EncodeBlock(index, 1), table.NoCompression)
	return AppendFooter(file, mh, ih)
}
