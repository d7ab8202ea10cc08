// Package filtercheck checks a table's filter block against the one
// upstream LevelDB would have written for the table's keys.
//
// Rebuilding replays what table/table_builder.cc does with its
// FilterBlockBuilder: StartBlock(0) when the table starts; AddKey with the
// user key of every entry, in table order, versions and deletions included
// (TableBuilder::Add passes the internal key and the database's
// InternalFilterPolicy strips the 8-byte tag); after each data block,
// StartBlock with the offset just past the block's trailer; Finish. The
// result is compared byte for byte with the stored block.
package filtercheck

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/internal/table"
)

// Block is a data block's handle and the user keys of its entries in table
// order.
type Block struct {
	Handle table.BlockHandle // where the data block is stored
	Keys   [][]byte          // its entries' user keys, in order
}

// ReadKeys reads every data block of t and returns their handles and user
// keys.
func ReadKeys(t *table.Table) ([]Block, error) {
	blocks := make([]Block, 0, t.NumDataBlocks())
	// The keys share buffers, and their slices arrays, allocated in chunks
	// that are never grown in place, so that earlier keys stay put; a
	// block's slices are contiguous. Chunks grow with the file up to a
	// limit, so that small tables allocate little.
	size := int(min(t.Size(), math.MaxInt32))
	arenaChunk := min(64<<10, max(size/4, 256))
	sliceChunk := min(4<<10, max(size/64, 16))
	var arena []byte
	var slices [][]byte
	first := 0 // where the current block's slices start
	err := t.DataKeys(func(k []byte) {
		// Every key is a valid internal key: its user key is all but its
		// 8-byte tag.
		u := k[:len(k)-8]
		var stored []byte
		switch {
		case len(u) > arenaChunk/4:
			stored = make([]byte, len(u))
			copy(stored, u)
		case cap(arena)-len(arena) < len(u):
			arena = make([]byte, 0, arenaChunk)
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
			slices = append(make([][]byte, 0, max(2*len(cur), sliceChunk)), cur...)
			first = 0
		}
		slices = append(slices, stored)
	}, func(_ int, h table.BlockHandle, n int) error {
		keys := [][]byte{} // as ReadDataBlock gives a block without entries
		if n > 0 {
			keys = slices[first:len(slices):len(slices)]
		}
		first = len(slices)
		blocks = append(blocks, Block{Handle: h, Keys: keys})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return blocks, nil
}

// Build returns the filter block upstream's TableBuilder writes with policy
// p for a table with the given data blocks.
func Build(blocks []Block, p bloom.FilterPolicy) []byte {
	fb := bloom.NewFilterBlockBuilder(p)
	fb.StartBlock(0)
	for _, b := range blocks {
		for _, k := range b.Keys {
			fb.AddKey(k)
		}
		fb.StartBlock(b.Handle.End())
	}
	return fb.Finish()
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

// Diff is the first difference between a stored and a rebuilt filter
// block.
type Diff struct {
	// Offset is the first differing byte's offset in the filter block.
	Offset int `json:"offset"`
	// Stored and Rebuilt are the bytes at Offset, or -1 when that block
	// ends before Offset.
	Stored  int `json:"stored"`
	Rebuilt int `json:"rebuilt"`
	// StoredLen and RebuiltLen are the blocks' lengths.
	StoredLen  int `json:"stored_len"`
	RebuiltLen int `json:"rebuilt_len"`
}

// String describes d, such as "byte 17: stored 0x3f, rebuilt 0x7f".
func (d *Diff) String() string {
	b := func(v int) string {
		if v < 0 {
			return "end of block"
		}
		return fmt.Sprintf("0x%02x", v)
	}
	s := fmt.Sprintf("byte %d: stored %s, rebuilt %s", d.Offset, b(d.Stored), b(d.Rebuilt))
	if d.StoredLen != d.RebuiltLen {
		s += fmt.Sprintf(" (stored %d bytes, rebuilt %d)", d.StoredLen, d.RebuiltLen)
	}
	return s
}

// Compare returns the first difference between stored and rebuilt, or nil
// when they are equal.
func Compare(stored, rebuilt []byte) *Diff {
	n := min(len(stored), len(rebuilt))
	i := 0
	for i < n && stored[i] == rebuilt[i] {
		i++
	}
	if i == len(stored) && i == len(rebuilt) {
		return nil
	}
	d := &Diff{Offset: i, Stored: -1, Rebuilt: -1, StoredLen: len(stored), RebuiltLen: len(rebuilt)}
	if i < len(stored) {
		d.Stored = int(stored[i])
	}
	if i < len(rebuilt) {
		d.Rebuilt = int(rebuilt[i])
	}
	return d
}

// Filter is one filter of a filter block.
type Filter struct {
	Offset int // where it starts in the block
	Len    int // its length, k byte included; 0 for an empty filter
}

// K returns the probe count stored in the filter's last byte, or -1 for an
// empty filter.
func (f Filter) K(contents []byte) int {
	if f.Len == 0 {
		return -1
	}
	return int(contents[f.Offset+f.Len-1])
}

// Layout is the decoded structure of a filter block.
type Layout struct {
	Filters     []Filter // in block order; filter i covers data offsets [i<<BaseLg, (i+1)<<BaseLg)
	ArrayOffset int      // where the offset array starts
	BaseLg      int      // log2 of the data-offset range each filter covers
}

// ParseLayout decodes the structure of a well-formed filter block. Unlike
// upstream's reader, which treats damage as "may match", it reports any
// inconsistency as an error.
func ParseLayout(contents []byte) (*Layout, error) {
	n := len(contents)
	if n < 5 {
		return nil, fmt.Errorf("filter block of %d bytes is shorter than its 5-byte tail", n)
	}
	l := &Layout{BaseLg: int(contents[n-1])}
	arr := binary.LittleEndian.Uint32(contents[n-5:])
	if uint64(arr) > uint64(n-5) {
		return nil, fmt.Errorf("filter block: offset array at %d starts past its tail at %d", arr, n-5)
	}
	l.ArrayOffset = int(arr)
	if (n-5-l.ArrayOffset)%4 != 0 {
		return nil, fmt.Errorf("filter block: offset array from %d to %d is not a whole number of uint32s", l.ArrayOffset, n-5)
	}
	num := (n - 5 - l.ArrayOffset) / 4
	l.Filters = make([]Filter, num)
	for i := range l.Filters {
		start := binary.LittleEndian.Uint32(contents[l.ArrayOffset+4*i:])
		limit := binary.LittleEndian.Uint32(contents[l.ArrayOffset+4*i+4:])
		if start > limit || int64(limit) > int64(l.ArrayOffset) {
			return nil, fmt.Errorf("filter block: filter %d spans bytes %d to %d, outside 0..%d", i, start, limit, l.ArrayOffset)
		}
		l.Filters[i] = Filter{Offset: int(start), Len: int(limit - start)}
	}
	return l, nil
}

// KeysPerFilter returns how many keys the rebuilt filter block puts in each
// of num filters: keys of the data block at offset o go to filter o >> baseLg.
// Keys past the last filter are not counted.
func KeysPerFilter(blocks []Block, baseLg, num int) []int {
	counts := make([]int, num)
	for _, b := range blocks {
		i := b.Handle.Offset >> (uint(baseLg) & 63)
		if i < uint64(num) {
			counts[i] += len(b.Keys)
		}
	}
	return counts
}

// Params are the bloom filter parameters a filter block implies.
type Params struct {
	// BitsPerKey is the bits-per-key value that explains the most filters;
	// every value in MinBitsPerKey..MaxBitsPerKey explains the same ones
	// and gives the same filters.
	BitsPerKey    int `json:"bits_per_key"`
	MinBitsPerKey int `json:"min_bits_per_key"`
	MaxBitsPerKey int `json:"max_bits_per_key"`
	// K is the probe count those values give.
	K int `json:"k"`
	// Explained and Constrained count the filters that bits/key explains
	// and the filters with keys that could be checked; they differ when no
	// single bits/key value explains the block.
	Explained   int `json:"explained"`
	Constrained int `json:"constrained"`
	// Known is false when no filter has keys, so nothing can be inferred.
	Known bool `json:"known"`
}

// Consistent reports whether one bits/key value explains every filter.
func (p Params) Consistent() bool { return p.Known && p.Explained == p.Constrained }

// String formats p as "bits/key 10, k 6" or "bits/key 9..10, k 6".
func (p Params) String() string {
	if !p.Known {
		return "bits/key unknown (no keys)"
	}
	s := fmt.Sprintf("bits/key %d, k %d", p.BitsPerKey, p.K)
	if p.MinBitsPerKey != p.MaxBitsPerKey {
		s = fmt.Sprintf("bits/key %d..%d, k %d", p.MinBitsPerKey, p.MaxBitsPerKey, p.K)
	}
	if !p.Consistent() {
		s += fmt.Sprintf(" (explains %d of %d filters)", p.Explained, p.Constrained)
	}
	return s
}

// maxProbes mirrors upstream's clamp of k to 1..30.
const maxProbes = 30

// probes is upstream's k for bitsPerKey.
func probes(bitsPerKey int) int {
	return min(max(int(float64(bitsPerKey)*0.69), 1), maxProbes)
}

// interval is a closed range of bits-per-key values.
type interval struct{ lo, hi int }

// probeRange returns the bits-per-key values whose k is k, bounded above by
// hi; ok is false when there are none.
func probeRange(k, hi int) (interval, bool) {
	// k grows with bits/key and reaches its clamp (30) at 44; past that
	// every value gives k = 30.
	const clampAt = 44
	lo, top := -1, -1
	for b := 0; b <= min(hi, clampAt); b++ {
		if probes(b) == k {
			if lo < 0 {
				lo = b
			}
			top = b
		}
	}
	if k == maxProbes && top == clampAt {
		top = hi
	}
	return interval{lo, top}, lo >= 0
}

// filterInterval returns the bits-per-key values that give a filter of
// length flen (k byte included) ending in k for n > 0 keys, as
// util/bloom.cc sizes it: max(n*b, 64) bits rounded up to whole bytes.
func filterInterval(n, flen, k int) (interval, bool) {
	if flen < 9 { // at least 64 bits and the k byte
		return interval{}, false
	}
	bits := (flen - 1) * 8
	var iv interval
	if bits == 64 {
		iv = interval{0, 64 / n}
	} else {
		iv = interval{(bits-8)/n + 1, bits / n}
	}
	if iv.lo > iv.hi {
		return interval{}, false
	}
	kr, ok := probeRange(k, iv.hi)
	if !ok {
		return interval{}, false
	}
	iv = interval{max(iv.lo, kr.lo), min(iv.hi, kr.hi)}
	return iv, iv.lo <= iv.hi
}

// InferParams infers the bits-per-key value a filter block was built with
// from the size and k byte of each filter and the number of keys it should
// hold (keys[i] for filter i, as KeysPerFilter returns).
func InferParams(contents []byte, l *Layout, keys []int) Params {
	var ivs []interval
	p := Params{}
	for i, f := range l.Filters {
		if i >= len(keys) || keys[i] == 0 {
			continue
		}
		p.Constrained++
		if iv, ok := filterInterval(keys[i], f.Len, f.K(contents)); ok {
			ivs = append(ivs, iv)
		}
	}
	if p.Constrained == 0 {
		return p
	}
	p.Known = true
	// Sweep the interval endpoints for the value covered most often.
	type edge struct{ at, delta int }
	edges := make([]edge, 0, 2*len(ivs))
	for _, iv := range ivs {
		edges = append(edges, edge{iv.lo, +1}, edge{iv.hi + 1, -1})
	}
	sort.Slice(edges, func(i, j int) bool {
		if edges[i].at != edges[j].at {
			return edges[i].at < edges[j].at
		}
		return edges[i].delta < edges[j].delta
	})
	cover, best := 0, 0
	for i, e := range edges {
		cover += e.delta
		if cover > best {
			best = cover
			p.MinBitsPerKey = e.at
			p.MaxBitsPerKey = edges[i+1].at - 1 // a +1 edge is always followed by another edge
		}
	}
	if best == 0 {
		// No filter is explained by any value: report the k of the first
		// constrained filter and a bits/key value that gives it.
		for i, f := range l.Filters {
			if i < len(keys) && keys[i] > 0 && f.Len > 0 {
				if kr, ok := probeRange(f.K(contents), 100); ok {
					p.MinBitsPerKey, p.MaxBitsPerKey = kr.lo, kr.lo
				}
				break
			}
		}
	}
	p.Explained = best
	p.BitsPerKey = p.MinBitsPerKey
	p.K = probes(p.BitsPerKey)
	return p
}

// Status is the outcome of checking one table.
type Status string

// The statuses Check reports.
const (
	StatusOK            Status = "ok"             // the stored block is what upstream writes
	StatusMismatch      Status = "mismatch"       // it is not
	StatusNoFilter      Status = "no-filter"      // the table has no filter block
	StatusUnknownPolicy Status = "unknown-policy" // the filter's policy is not a bloom filter of LevelDB's
)

// Legacy hash variants, for tables whose filter is named
// "leveldb.BuiltinBloomFilter" (LevelDB before 1.16).
const (
	LegacyUnsigned = "unsigned" // written with the unsigned-char hash (ARM)
	LegacySigned   = "signed"   // written with the signed-char hash (x86)
	LegacyEither   = "either"   // both hashes give the stored block: no key tells them apart
	LegacyNeither  = "neither"  // neither hash gives the stored block
)

// Result is the outcome of checking one table's filter block.
type Result struct {
	Status Status `json:"status"`
	// Policy is the filter policy name from the metaindex ("" without a
	// filter block).
	Policy string `json:"policy,omitempty"`
	// Legacy is set for "leveldb.BuiltinBloomFilter" filters: which hash
	// wrote them (LegacyUnsigned, LegacySigned, LegacyEither,
	// LegacyNeither).
	Legacy string `json:"legacy,omitempty"`
	// Params are the bits/key and k the stored block implies.
	Params *Params `json:"params,omitempty"`
	// DataBlocks and Keys count the table's data blocks and entries.
	DataBlocks int `json:"data_blocks"`
	Keys       int `json:"keys"`
	// Filters counts the filters in the stored block (0 when its layout
	// cannot be decoded, see LayoutError).
	Filters int `json:"filters"`
	// FilterBlock locates the stored filter block in the file.
	FilterBlockOffset uint64 `json:"filter_block_offset,omitempty"`
	FilterBlockSize   int    `json:"filter_block_size,omitempty"`
	// LayoutError says why the stored block's layout could not be decoded.
	LayoutError string `json:"layout_error,omitempty"`
	// Diff is the first difference from the rebuilt block, when the status
	// is StatusMismatch.
	Diff *Diff `json:"diff,omitempty"`
	// Blocks holds the data blocks' handles and user keys; it is not
	// part of the JSON form.
	Blocks []Block `json:"-"`
}

// Check reads t's data blocks, rebuilds its filter block with the policy
// its name and layout imply, and compares the result with the stored block.
// A mismatch is a Result, not an error; the error reports a table that
// cannot be read.
func Check(t *table.Table) (*Result, error) {
	blocks, err := ReadKeys(t)
	if err != nil {
		return nil, err
	}
	r := &Result{DataBlocks: len(blocks), Blocks: blocks}
	for _, b := range blocks {
		r.Keys += len(b.Keys)
	}
	name, stored, ok := t.FilterBlock()
	if !ok {
		r.Status = StatusNoFilter
		return r, nil
	}
	h, _ := t.FilterHandle()
	r.Policy, r.FilterBlockOffset, r.FilterBlockSize = name, h.Offset, len(stored)

	params := Params{BitsPerKey: 10}
	if l, err := ParseLayout(stored); err != nil {
		r.LayoutError = err.Error()
	} else {
		r.Filters = len(l.Filters)
		params = InferParams(stored, l, KeysPerFilter(blocks, l.BaseLg, len(l.Filters)))
		if !params.Known {
			// Nothing constrains bits/key; every value rebuilds the
			// same (empty) filters.
			params.BitsPerKey = 10
		}
	}
	bpk := params.BitsPerKey
	switch name {
	case bloom.PolicyName:
		r.Params = &params
		r.Diff = rebuildDiff(stored, blocks, bloom.NewPolicy(bpk), bpk, bloom.Hash)
	case bloom.LegacyPolicyName:
		r.Params = &params
		du := rebuildDiff(stored, blocks, bloom.NewLegacyPolicy(bpk, false), bpk, bloom.Hash)
		ds := rebuildDiff(stored, blocks, bloom.NewLegacyPolicy(bpk, true), bpk, bloom.HashSignedTail)
		switch {
		case du == nil && ds == nil:
			r.Legacy = LegacyEither
		case du == nil:
			r.Legacy = LegacyUnsigned
		case ds == nil:
			r.Legacy = LegacySigned
		default:
			r.Legacy = LegacyNeither
			r.Diff = du
			if ds.Offset > du.Offset {
				r.Diff = ds
			}
		}
	default:
		r.Status = StatusUnknownPolicy
		return r, nil
	}
	r.Status = StatusOK
	if r.Diff != nil {
		r.Status = StatusMismatch
	}
	return r, nil
}

// RebuiltSize returns the size of the filter block Build writes for blocks
// with a bloom filter of bitsPerKey bits per key (NewPolicy or
// NewLegacyPolicy), without building it.
func RebuiltSize(blocks []Block, bitsPerKey int) uint64 {
	var size uint64
	bpk := uint64(max(bitsPerKey, 0))
	filters := rebuiltFilters(blocks)
	for _, f := range filters {
		if f.keys > 0 {
			size += bloomFilterSize(f.keys, bpk)
		}
	}
	return size + 4*uint64(len(filters)) + 5
}

// bloomFilterSize is the size of util/bloom.cc's filter of n keys at bpk
// bits per key, k byte included.
func bloomFilterSize(n int, bpk uint64) uint64 {
	return (max(uint64(n)*bpk, 64)+7)/8 + 1
}

// rebuiltFilter is one filter of the block Build writes: the keys of
// blocks[lo:hi], keys of them in all.
type rebuiltFilter struct {
	lo, hi int
	keys   int
}

// rebuiltFilters replays the calls Build makes on its FilterBlockBuilder
// and returns the filters the builder generates, in order: after each data
// block, StartBlock(end of the block) generates a filter for every 2 KiB
// range before end's that has none yet, the first of them holding every key
// added since the last one was generated; Finish generates one more when
// keys are pending.
func rebuiltFilters(blocks []Block) []rebuiltFilter {
	const baseLg = 11 // table/filter_block.cc kFilterBaseLg
	var fs []rebuiltFilter
	lo, keys := 0, 0 // pending: blocks[lo:i], keys in them
	for i, b := range blocks {
		keys += len(b.Keys)
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

// maxRebuild is the size up to which Check builds a filter block the
// ordinary way, with bloom.FilterBlockBuilder, to compare it with a stored
// block of n bytes. A larger rebuilt block cannot equal the stored one;
// building it whole could take far more memory than the table (a filter
// block can imply a huge bits/key, see InferParams), so rebuildDiff then
// computes only the bytes the comparison needs.
func maxRebuild(n int) uint64 { return 2*uint64(n) + 64<<10 }

// rebuildDiff compares stored with the filter block Build writes with p, a
// bloom filter of bitsPerKey bits per key whose keys are hashed by hash. It
// returns what Compare(stored, Build(blocks, p)) does without allocating
// much more than stored's size.
func rebuildDiff(stored []byte, blocks []Block, p bloom.FilterPolicy, bitsPerKey int, hash func([]byte, uint32) uint32) *Diff {
	size := RebuiltSize(blocks, bitsPerKey)
	if size <= maxRebuild(len(stored)) {
		return Compare(stored, Build(blocks, p))
	}
	d := Compare(stored, rebuildPrefix(blocks, p, bitsPerKey, hash, len(stored)+1))
	d.RebuiltLen = int(min(size, math.MaxInt))
	return d
}

// rebuildPrefix returns the first n bytes of Build(blocks, p), for p a
// bloom filter of bitsPerKey bits per key hashing keys with hash, when the
// block is longer than n. Filters that fit in the first n bytes are made
// by p; of the filter that straddles byte n, only the bytes before it are
// computed, probing as util/bloom.cc does.
func rebuildPrefix(blocks []Block, p bloom.FilterPolicy, bitsPerKey int, hash func([]byte, uint32) uint32, n int) []byte {
	out := make([]byte, 0, n)
	bpk := uint64(max(bitsPerKey, 0))
	filters := rebuiltFilters(blocks)
	var keys [][]byte
	for _, f := range filters {
		if f.keys == 0 {
			continue
		}
		keys = keys[:0]
		for _, b := range blocks[f.lo:f.hi] {
			keys = append(keys, b.Keys...)
		}
		fsize := bloomFilterSize(f.keys, bpk)
		if fsize <= uint64(n-len(out)) {
			out = p.CreateFilter(keys, out)
			continue
		}
		return bloomPrefix(out, keys, bpk, hash, n-len(out))
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
			at += uint32(bloomFilterSize(f.keys, bpk))
		}
	}
	out = binary.LittleEndian.AppendUint32(out, arr)
	out = append(out, 11)
	return out[:min(n, len(out))]
}

// bloomPrefix appends to dst the first n bytes of util/bloom.cc's filter of
// keys at bpk bits per key, n being less than the filter's bit array.
func bloomPrefix(dst []byte, keys [][]byte, bpk uint64, hash func([]byte, uint32) uint32, n int) []byte {
	const seed = 0xbc9f1d34 // util/bloom.cc BloomHash
	k := probes(int(min(bpk, math.MaxInt32)))
	bits := (bloomFilterSize(len(keys), bpk) - 1) * 8
	start := len(dst)
	dst = append(dst, make([]byte, n)...)
	prefix := dst[start:]
	for _, key := range keys {
		h := hash(key, seed)
		delta := h>>17 | h<<15
		for j := 0; j < k; j++ {
			if pos := uint64(h) % bits; pos/8 < uint64(n) {
				prefix[pos/8] |= 1 << (pos % 8)
			}
			h += delta
		}
	}
	return dst
}

// TheoreticalFPR is the textbook false-positive rate of a bloom filter of
// m bits holding n keys with k probes: (1 - e^(-kn/m))^k.
func TheoreticalFPR(m, n, k int) float64 {
	if m <= 0 || k <= 0 {
		return 1
	}
	return math.Pow(1-math.Exp(-float64(k)*float64(n)/float64(m)), float64(k))
}

// FPR is a filter block's false-positive rate on keys absent from its
// table, measured and as theory predicts.
type FPR struct {
	// Samples is the number of absent keys queried, FalsePositives the
	// number the filters did not rule out, Measured their ratio.
	Samples        int     `json:"samples"`
	FalsePositives int     `json:"false_positives"`
	Measured       float64 `json:"measured"`
	// Theoretical is (1-e^(-kn/m))^k averaged over the filters queried,
	// with n the number of distinct user keys in a filter: versions of a
	// key count towards a filter's size but set the same bits.
	Theoretical float64 `json:"theoretical"`
}

// MeasureFPR queries samples random keys that are not among the table's
// user keys against the stored filter block, read with policy p as
// upstream's FilterBlockReader reads it. Each query goes to a non-empty
// filter chosen uniformly; keys have the length of a random stored key and
// random bytes; seed makes the choice reproducible. It returns a zero FPR
// when no filter holds keys.
func MeasureFPR(contents []byte, l *Layout, blocks []Block, p bloom.FilterPolicy, samples int, seed uint64) FPR {
	keys := KeysPerFilter(blocks, l.BaseLg, len(l.Filters))
	distinct := distinctKeysPerFilter(blocks, l.BaseLg, len(l.Filters))
	var eligible []int
	var theory float64
	for i, f := range l.Filters {
		if f.Len > 1 && keys[i] > 0 {
			eligible = append(eligible, i)
			k := f.K(contents)
			if k > maxProbes {
				theory++ // upstream treats such filters as matching everything
			} else {
				theory += TheoreticalFPR((f.Len-1)*8, distinct[i], k)
			}
		}
	}
	if len(eligible) == 0 || samples <= 0 {
		return FPR{}
	}
	present := map[string]bool{}
	var lengths []int
	for _, b := range blocks {
		for _, k := range b.Keys {
			present[string(k)] = true
			lengths = append(lengths, len(k))
		}
	}
	rng := rand.New(rand.NewPCG(seed, 0x66707266707266))
	r := bloom.NewFilterBlockReader(p, contents)
	fpr := FPR{Samples: samples, Theoretical: theory / float64(len(eligible))}
	key := make([]byte, 0, 64)
	for s := 0; s < samples; s++ {
		n := lengths[rng.IntN(len(lengths))]
		for try := 0; ; try++ {
			if try > 0 && try%16 == 0 {
				n++ // short lengths may all be taken
			}
			key = key[:0]
			for j := 0; j < n; j++ {
				key = append(key, byte(rng.Uint32()))
			}
			if !present[string(key)] {
				break
			}
		}
		i := eligible[rng.IntN(len(eligible))]
		if r.KeyMayMatch(uint64(i)<<(uint(l.BaseLg)&63), key) {
			fpr.FalsePositives++
		}
	}
	fpr.Measured = float64(fpr.FalsePositives) / float64(samples)
	return fpr
}

// distinctKeysPerFilter is KeysPerFilter counting each user key once per
// filter.
func distinctKeysPerFilter(blocks []Block, baseLg, num int) []int {
	counts := make([]int, num)
	seen := map[string]bool{}
	cur := -1
	for _, b := range blocks {
		i := b.Handle.Offset >> (uint(baseLg) & 63)
		if i >= uint64(num) {
			continue
		}
		if int(i) != cur {
			cur = int(i)
			clear(seen)
		}
		for _, k := range b.Keys {
			if !seen[string(k)] {
				seen[string(k)] = true
				counts[i]++
			}
		}
	}
	return counts
}
