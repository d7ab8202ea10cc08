package filtercheck

import (
	"encoding/binary"
	"math"
	"slices"
	"sync"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/internal/filterblock"
	"github.com/ldbcompat/ldbcompat/internal/table"
)

// BlockKeys is a data block's handle and its entries' user keys in order.
type BlockKeys struct {
	Handle table.BlockHandle // where the data block is stored
	// Keys is nil when only hashes were read (KeyStore.ReadHashes).
	Keys [][]byte
	// Hashes, if not nil, holds bloom.Hash(key, filterblock.Seed) of each
	// key, so a bloom rebuild does not hash again; without Keys they stand
	// for the keys.
	Hashes []uint32
	// src and index let EachKey read keys again when Keys are not kept.
	src   *table.Table
	index int
}

// EachKey calls fn with each user key in order: Keys, or (after
// ReadHashes) keys read again from the table, valid only during the call.
// It reports false when it has none to give: no table (hand-made blocks),
// or the table's file changed.
func (b *BlockKeys) EachKey(fn func(k []byte)) bool {
	if b.Keys != nil || b.src == nil {
		for _, k := range b.Keys {
			fn(k)
		}
		return b.Keys != nil || len(b.Hashes) == 0
	}
	n := 0
	err := b.src.BlockKeys(b.index, func(k []byte) {
		if n < len(b.Hashes) {
			fn(k[:len(k)-8])
		}
		n++
	})
	return err == nil && n == len(b.Hashes)
}

// hasKeys tells whether EachKey can give the block's keys.
func (b *BlockKeys) hasKeys() bool { return b.Keys != nil || b.src != nil || len(b.Hashes) == 0 }

// Len returns the number of the block's entries.
func (b *BlockKeys) Len() int {
	if b.Keys == nil {
		return len(b.Hashes)
	}
	return len(b.Keys)
}

// ReadKeys returns the handles, user keys and key hashes of t's data blocks.
func ReadKeys(t *table.Table) ([]BlockKeys, error) {
	return new(KeyStore).ReadKeys(t)
}

// KeyStore is memory ReadKeys reuses: results last until the next call.
type KeyStore struct {
	arenas [][]byte   // chunks the keys are copied into
	slices [][][]byte // chunks of the blocks' key slices
	blocks []BlockKeys
	hashes []uint32
}

// ReadKeys is the package's ReadKeys in s's memory.
func (s *KeyStore) ReadKeys(t *table.Table) ([]BlockKeys, error) {
	return s.read(t, true)
}

// ReadHashes is ReadKeys keeping only hashes (4 bytes a key), all that a
// bloom.PolicyName rebuild needs (Compare); whatever looks at keys reads
// them again from t (BlockKeys.EachKey) while it is open and unchanged.
func (s *KeyStore) ReadHashes(t *table.Table) ([]BlockKeys, error) {
	return s.read(t, false)
}

// read is ReadKeys, or ReadHashes unless keep.
func (s *KeyStore) read(t *table.Table, keep bool) ([]BlockKeys, error) {
	blocks := s.blocks[:0]
	if cap(blocks) < t.NumDataBlocks() {
		blocks = make([]BlockKeys, 0, t.NumDataBlocks())
	}
	// Keys and their slices share chunks never grown in place, so earlier
	// keys stay put; chunks grow with the file up to a limit.
	size := int(min(t.Size(), math.MaxInt32))
	arenaChunk := min(64<<10, max(size/4, 256))
	sliceChunk := min(4<<10, max(size/64, 16))
	var arena []byte
	var slices [][]byte
	hashes := s.hashes[:0]
	nextArena, nextSlices := 0, 0 // the chunks of s to use next
	first := 0                    // where the current block's slices start
	hstart := 0                   // where its hashes start
	err := t.DataKeys(func(k []byte) {
		// Every key is a valid internal key: drop the 8-byte tag.
		u := k[:len(k)-8]
		if len(hashes) == cap(hashes) {
			hashes = growHashes(hashes, t.Size())
		}
		hashes = append(hashes, bloom.Hash(u, filterblock.Seed))
		if !keep {
			return
		}
		var stored []byte
		switch {
		case len(u) > arenaChunk/4:
			stored = make([]byte, len(u))
			copy(stored, u)
		case cap(arena)-len(arena) < len(u):
			if nextArena < len(s.arenas) && cap(s.arenas[nextArena]) >= arenaChunk {
				arena = s.arenas[nextArena][:0]
			} else {
				arena = make([]byte, 0, arenaChunk)
				s.arenas = append(s.arenas, nil)
				copy(s.arenas[nextArena+1:], s.arenas[nextArena:])
				s.arenas[nextArena] = arena
			}
			nextArena++
			fallthrough
		default:
			start := len(arena)
			arena = append(arena, u...)
			stored = arena[start:len(arena):len(arena)]
			if stored == nil {
				stored = []byte{} // an empty user key, as ReadDataBlock gives it
			}
		}
		if len(slices) == cap(slices) {
			cur := slices[first:]
			want := max(2*len(cur), sliceChunk)
			var chunk [][]byte
			if nextSlices < len(s.slices) && cap(s.slices[nextSlices]) >= want {
				chunk = s.slices[nextSlices][:0]
			} else {
				chunk = make([][]byte, 0, want)
				s.slices = append(s.slices, nil)
				copy(s.slices[nextSlices+1:], s.slices[nextSlices:])
				s.slices[nextSlices] = chunk
			}
			nextSlices++
			slices = append(chunk, cur...)
			first = 0
		}
		slices = append(slices, stored)
	}, func(i int, h table.BlockHandle, n int) error {
		var keys [][]byte
		if keep {
			keys = [][]byte{} // as ReadDataBlock gives a block without entries
			if n > 0 {
				keys = slices[first:len(slices):len(slices)]
			}
			first = len(slices)
		}
		// Its hashes for now, to be sliced again below.
		bk := BlockKeys{Handle: h, Keys: keys, Hashes: hashes[hstart:]}
		if !keep {
			bk.src, bk.index = t, i
		}
		blocks = append(blocks, bk)
		hstart = len(hashes)
		return nil
	})
	// Re-slice the hashes, which appending may have moved.
	start := 0
	for i := range blocks {
		end := start + len(blocks[i].Hashes)
		blocks[i].Hashes = hashes[start:end:end]
		start = end
	}
	s.blocks, s.hashes = blocks, hashes
	if err != nil {
		return nil, err
	}
	return blocks, nil
}

// growHashes returns hashes with room for more: first one per 32 bytes of
// the table (up to 4 Mi; untouched memory costs nothing), then twice as
// many, since append's quarter steps fault in new memory each time.
func growHashes(hashes []uint32, size int64) []uint32 {
	n := max(2*cap(hashes), int(min(size/32, 1<<20)), 1024)
	grown := make([]uint32, len(hashes), n)
	copy(grown, hashes)
	return grown
}

// Build returns the filter block TableBuilder writes with p for blocks.
func Build(blocks []BlockKeys, p bloom.FilterPolicy) []byte {
	return buildWith(filterblock.New(p), blocks)
}

// buildWith is Build with fb (new or Reset); the block is fb's until reuse.
func buildWith(fb *filterblock.Builder, blocks []BlockKeys) []byte {
	fb.StartBlock(0)
	for _, b := range blocks {
		switch {
		case !b.hasKeys():
			// Only hashes, and no table to read keys from: use them.
			if !fb.AddHashes(b.Hashes) {
				panic("filtercheck: a filter block rebuilt from hashes alone with a policy that does not build from them; read the keys (ReadKeys)")
			}
		case len(b.Hashes) != b.Len() || !fb.AddHashes(b.Hashes):
			b.EachKey(fb.AddKey)
		}
		fb.StartBlock(b.Handle.End())
	}
	return fb.Finish()
}

// builders keeps builders by policy for reuse (Builder.Reset).
var builders sync.Map // builderKey -> *sync.Pool of *filterblock.Builder

// builderKey tells policies apart: name, bits/key, legacy tail hash.
type builderKey struct {
	name       string
	bitsPerKey int
	signed     bool
}

// getBuilder returns a Reset builder for p; putBuilder gives it back.
func getBuilder(key builderKey, p bloom.FilterPolicy) *filterblock.Builder {
	pool, _ := builders.LoadOrStore(key, new(sync.Pool))
	if fb, ok := pool.(*sync.Pool).Get().(*filterblock.Builder); ok {
		fb.Reset()
		return fb
	}
	return filterblock.New(p)
}

func putBuilder(key builderKey, fb *filterblock.Builder) {
	pool, _ := builders.Load(key)
	pool.(*sync.Pool).Put(fb)
}

// Rebuild returns the filter block upstream would write for t's keys with p.
func Rebuild(t *table.Table, p bloom.FilterPolicy) ([]byte, error) {
	blocks, err := ReadKeys(t)
	if err != nil {
		return nil, err
	}
	return Build(blocks, p), nil
}

// RebuiltSize returns Build's block size at bitsPerKey, without building it.
func RebuiltSize(blocks []BlockKeys, bitsPerKey int) uint64 {
	return rebuiltSize(rebuiltFilters(nil, blocks), bitsPerKey)
}

// rebuiltSize is RebuiltSize of the filters rebuiltFilters returns.
func rebuiltSize(filters []rebuiltFilter, bitsPerKey int) uint64 {
	var size uint64
	for _, f := range filters {
		if f.keys > 0 {
			size += filterSize(f.keys, bitsPerKey)
		}
	}
	return size + 4*uint64(len(filters)) + 5
}

// filterSize is util/bloom.cc's filter size, k byte included.
func filterSize(n, bitsPerKey int) uint64 { return filterblock.FilterBits(n, bitsPerKey)/8 + 1 }

// rebuiltFilter is one filter of Build's block: keys of blocks[lo:hi].
type rebuiltFilter struct {
	lo, hi int
	keys   int
}

// rebuiltFilters returns Build's filters in dst's memory, replaying its
// builder calls: StartBlock(end) makes a filter per 2 KiB range before
// end's without one, the first holding the keys pending; Finish one more
// if keys are pending.
func rebuiltFilters(dst []rebuiltFilter, blocks []BlockKeys) []rebuiltFilter {
	const baseLg = filterblock.BaseLg
	fs := dst[:0]
	if n := len(blocks); n > 0 {
		// A filter per 2 KiB up to the last block's end, and one more,
		// never more than the handles make room for.
		fs = slices.Grow(fs, int(min(blocks[n-1].Handle.End()>>baseLg+1, uint64(4*n))))
	}
	lo, keys := 0, 0 // pending: blocks[lo:i], keys in them
	for i := range blocks {
		b := &blocks[i]
		keys += b.Len()
		for idx := b.Handle.End() >> baseLg; uint64(len(fs)) < idx; {
			fs = append(fs, rebuiltFilter{lo, i + 1, keys})
			lo, keys = i+1, 0
		}
	}
	if keys > 0 {
		fs = append(fs, rebuiltFilter{lo, len(blocks), keys})
	}
	return fs
}

// maxRebuild is the largest block Compare builds whole for a stored block
// of n bytes; a larger one cannot equal it and could take far more memory
// than the table (see InferParams), so rebuildDiff computes only what the
// comparison needs.
func maxRebuild(n int) uint64 { return 2*uint64(n) + 64<<10 }

// rebuildDiff returns what Compare(stored, Build(blocks, p)) does for a
// bloom p of bitsPerKey, allocating little beyond stored's size, and true;
// false, comparing nothing, when that needs keys and blocks hold only
// hashes. bufs is memory it may use.
func rebuildDiff(stored []byte, blocks []BlockKeys, p bloom.FilterPolicy, bitsPerKey int, signed bool, bufs *compareBufs) (*Diff, bool) {
	bufs.rebuilt = rebuiltFilters(bufs.rebuilt, blocks)
	size := rebuiltSize(bufs.rebuilt, bitsPerKey)
	if size <= maxRebuild(len(stored)) {
		key := builderKey{p.Name(), bitsPerKey, signed}
		fb := getBuilder(key, p)
		d := FirstDiff(stored, buildWith(fb, blocks))
		putBuilder(key, fb)
		return d, true
	}
	if keyless(blocks) {
		return nil, false // rebuildPrefix makes filters of the keys
	}
	d := FirstDiff(stored, rebuildPrefix(blocks, p, bitsPerKey, len(stored)+1))
	d.RebuiltLen = int(min(size, math.MaxInt))
	return d, true
}

// rebuildPrefix returns the first n bytes of a longer Build(blocks, p):
// only the bytes before n of a straddling filter are computed
// (filterblock.AppendFilterPrefix).
func rebuildPrefix(blocks []BlockKeys, p bloom.FilterPolicy, bitsPerKey int, n int) []byte {
	out := make([]byte, 0, n)
	filters := rebuiltFilters(nil, blocks)
	// bloom's filters need only each key's hash (filterblock.HashPolicy).
	hp := p.(filterblock.HashPolicy)
	var hashes []uint32
	for _, f := range filters {
		if f.keys == 0 {
			continue
		}
		hashes = hashes[:0]
		for i := f.lo; i < f.hi; i++ {
			blocks[i].EachKey(func(k []byte) { hashes = append(hashes, hp.HashKey(k)) })
		}
		if size := filterSize(f.keys, bitsPerKey); size <= uint64(n-len(out)) {
			out = filterblock.AppendFilterPrefix(out, hashes, bitsPerKey, int(size))
			continue
		}
		return filterblock.AppendFilterPrefix(out, hashes, bitsPerKey, n-len(out))
	}
	// Every filter fits: the rest is the offset array and the tail.
	arr := uint32(len(out))
	at := uint32(0)
	for _, f := range filters {
		if len(out) >= n {
			return out[:n]
		}
		out = binary.LittleEndian.AppendUint32(out, at)
		if f.keys > 0 {
			at += uint32(filterSize(f.keys, bitsPerKey))
		}
	}
	out = binary.LittleEndian.AppendUint32(out, arr)
	out = append(out, filterblock.BaseLg)
	return out[:min(n, len(out))]
}
