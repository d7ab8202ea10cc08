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

// BlockKeys is a data block's handle and the user keys of its entries in table
// order.
type BlockKeys struct {
	Handle table.BlockHandle // where the data block is stored
	// Keys are its entries' user keys, in order; nil when only their
	// hashes were read (KeyStore.ReadHashes): EachKey then reads them
	// again from the table, one at a time.
	Keys [][]byte
	// Hashes, when not nil, holds bloom.Hash(key, filterblock.Seed) of each
	// of Keys: ReadKeys hashes each key as it reads it, and a bloom
	// filter's rebuild uses those hashes instead of hashing the keys again.
	// Without Keys, they stand for the keys.
	Hashes []uint32
	// src and index are the table and the block's position in its index,
	// for EachKey, when Keys are not kept.
	src   *table.Table
	index int
}

// EachKey calls fn with each user key of the block, in order: Keys, or
// when only the hashes were kept (KeyStore.ReadHashes), the keys read
// again from the table, block by block, k then valid only during the
// call. It reports false when the block has no keys to give: hashes
// read without their table (blocks made by hand), or a table that no
// longer reads as it did (its file changed).
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

// Len returns the number of the block's entries: its keys, or its hashes
// when only they were read.
func (b *BlockKeys) Len() int {
	if b.Keys == nil {
		return len(b.Hashes)
	}
	return len(b.Keys)
}

// ReadKeys reads every data block of t and returns their handles, user
// keys and the keys' hashes.
func ReadKeys(t *table.Table) ([]BlockKeys, error) {
	return new(KeyStore).ReadKeys(t)
}

// KeyStore is the memory ReadKeys keeps keys in. One KeyStore may read
// many tables in turn, reusing its memory each time: the blocks and keys
// returned by one call are then valid only until the next.
type KeyStore struct {
	arenas [][]byte   // chunks the keys are copied into
	slices [][][]byte // chunks of the blocks' key slices
	blocks []BlockKeys
	hashes []uint32
}

// ReadKeys reads every data block of t and returns their handles, user
// keys and the keys' hashes, in s's memory: what an earlier call returned
// is overwritten.
func (s *KeyStore) ReadKeys(t *table.Table) ([]BlockKeys, error) {
	return s.read(t, true)
}

// ReadHashes is ReadKeys without the keys: each block's Keys is nil, and
// its Hashes stand for them. That is all a rebuild of a filter block of
// the policy named bloom.PolicyName needs (Compare), and it copies and
// keeps no key: 4 bytes a key, whatever the keys' length. Anything that
// looks at keys (CountFalseNegatives, HashesDiffer, a legacy filter's
// rebuild, MeasureFPR) reads them again from t, block by block
// (BlockKeys.EachKey), while t is open and reads as it did.
func (s *KeyStore) ReadHashes(t *table.Table) ([]BlockKeys, error) {
	return s.read(t, false)
}

// read is ReadKeys, or ReadHashes unless keep.
func (s *KeyStore) read(t *table.Table, keep bool) ([]BlockKeys, error) {
	blocks := s.blocks[:0]
	if cap(blocks) < t.NumDataBlocks() {
		blocks = make([]BlockKeys, 0, t.NumDataBlocks())
	}
	// The keys share buffers, and their slices arrays, allocated in chunks
	// that are never grown in place, so that earlier keys stay put; a
	// block's slices are contiguous. Chunks grow with the file up to a
	// limit, so that small tables allocate little.
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
		// Every key is a valid internal key: its user key is all but its
		// 8-byte tag.
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
	// The hashes are sliced again once all are read, since appending may
	// have moved them: each block's follow the last block's.
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

// growHashes returns hashes with room for more, for a table of size bytes.
// The first time, that is one hash per 32 bytes of the table (up to 4 MiB
// of them), more than most tables hold, and memory never touched costs
// nothing; after that twice as many: append would grow the slice a
// quarter at a time, each time into new memory, every page of which is
// faulted in again.
func growHashes(hashes []uint32, size int64) []uint32 {
	n := max(2*cap(hashes), int(min(size/32, 1<<20)), 1024)
	grown := make([]uint32, len(hashes), n)
	copy(grown, hashes)
	return grown
}

// Build returns the filter block upstream's TableBuilder writes with policy
// p for a table with the given data blocks.
func Build(blocks []BlockKeys, p bloom.FilterPolicy) []byte {
	return buildWith(filterblock.New(p), blocks)
}

// buildWith is Build with the builder fb, new or Reset; the block returned
// is fb's, valid until its next use.
func buildWith(fb *filterblock.Builder, blocks []BlockKeys) []byte {
	fb.StartBlock(0)
	for _, b := range blocks {
		switch {
		case !b.hasKeys():
			// Only hashes were read, with no table to read keys from:
			// they must do.
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

// builders keeps filter block builders between the tables that one
// process checks, by policy (name and bits/key), so that each table's
// rebuilt block reuses the memory of an earlier one's (Builder.Reset)
// instead of allocating, and later collecting, its own.
var builders sync.Map // builderKey -> *sync.Pool of *filterblock.Builder

// builderKey tells policies apart: their name, bits/key and, for the
// legacy name, the hash of its tail bytes.
type builderKey struct {
	name       string
	bitsPerKey int
	signed     bool
}

// getBuilder returns a Reset builder for the policy p of key; putBuilder
// gives it back once its block is no longer used.
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

// Rebuild reads t's keys and returns the filter block upstream would write
// for them with policy p.
func Rebuild(t *table.Table, p bloom.FilterPolicy) ([]byte, error) {
	blocks, err := ReadKeys(t)
	if err != nil {
		return nil, err
	}
	return Build(blocks, p), nil
}

// RebuiltSize returns the size of the filter block Build writes for blocks
// with a bloom filter of bitsPerKey bits per key (NewPolicy or
// NewLegacyPolicy), without building it.
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

// filterSize is the size of util/bloom.cc's filter of n keys at bitsPerKey
// bits per key, k byte included (filterblock.FilterLen, in 64 bits).
func filterSize(n, bitsPerKey int) uint64 { return filterblock.FilterBits(n, bitsPerKey)/8 + 1 }

// rebuiltFilter is one filter of the block Build writes: the keys of
// blocks[lo:hi], keys of them in all.
type rebuiltFilter struct {
	lo, hi int
	keys   int
}

// rebuiltFilters replays the calls Build makes on its FilterBlockBuilder
// and returns the filters the builder generates, in order, in dst's memory:
// after each data block, StartBlock(end of the block) generates a filter
// for every 2 KiB range before end's that has none yet, the first of them
// holding every key added since the last one was generated; Finish
// generates one more when keys are pending.
func rebuiltFilters(dst []rebuiltFilter, blocks []BlockKeys) []rebuiltFilter {
	const baseLg = filterblock.BaseLg
	fs := dst[:0]
	if n := len(blocks); n > 0 {
		// One filter per 2 KiB before the last block's end, and one more;
		// never more than the blocks' own handles make room for.
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

// maxRebuild is the size up to which Compare builds a filter block the
// ordinary way, with filterblock.Builder, to compare it with a stored
// block of n bytes. A larger rebuilt block cannot equal the stored one;
// building it whole could take far more memory than the table (a filter
// block can imply a huge bits/key, see InferParams), so rebuildDiff then
// computes only the bytes the comparison needs.
func maxRebuild(n int) uint64 { return 2*uint64(n) + 64<<10 }

// rebuildDiff compares stored with the filter block Build writes with p, a
// bloom filter of bitsPerKey bits per key (NewPolicy, or NewLegacyPolicy
// hashing tail bytes signed or not).
// It returns what Compare(stored, Build(blocks, p)) does without allocating
// much more than stored's size, and true; or false, having compared
// nothing, when that takes the keys and blocks hold only their hashes
// (ReadHashes). bufs is memory it may use.
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

// rebuildPrefix returns the first n bytes of Build(blocks, p), for p a
// bloom filter of bitsPerKey bits per key, when the block is longer than
// n. Filters that fit in the first n bytes are made by p; of the filter
// that straddles byte n, only the bytes before it are computed
// (filterblock.AppendFilterPrefix).
func rebuildPrefix(blocks []BlockKeys, p bloom.FilterPolicy, bitsPerKey int, n int) []byte {
	out := make([]byte, 0, n)
	filters := rebuiltFilters(nil, blocks)
	// p is a policy of package bloom, which makes its filters of one
	// hash a key (filterblock.HashPolicy): each filter is made of its
	// keys' hashes, 4 bytes a key, not of the keys kept.
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
