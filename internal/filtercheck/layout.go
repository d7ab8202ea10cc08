package filtercheck

import (
	"encoding/binary"
	"fmt"
	"slices"
)

// Filter is one filter of a filter block.
type Filter struct {
	Offset int // where it starts in the block
	Len    int // its length, k byte included; 0 for an empty filter
}

// K returns the filter's last byte, its k, or -1 when empty.
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

// ParseLayout decodes a well-formed filter block; unlike upstream's reader
// it reports any inconsistency as an error.
func ParseLayout(contents []byte) (*Layout, error) {
	l := new(Layout)
	if err := parseLayout(l, contents); err != nil {
		return nil, err
	}
	return l, nil
}

// parseLayout is ParseLayout into l, whose Filters' memory it reuses.
func parseLayout(l *Layout, contents []byte) error {
	n := len(contents)
	if n < 5 {
		return fmt.Errorf("filter block of %d bytes is shorter than its 5-byte tail", n)
	}
	*l = Layout{Filters: l.Filters[:0], BaseLg: int(contents[n-1])}
	arr := binary.LittleEndian.Uint32(contents[n-5:])
	if uint64(arr) > uint64(n-5) {
		return fmt.Errorf("filter block: offset array at %d starts past its tail at %d", arr, n-5)
	}
	l.ArrayOffset = int(arr)
	if (n-5-l.ArrayOffset)%4 != 0 {
		return fmt.Errorf("filter block: offset array from %d to %d is not a whole number of uint32s", l.ArrayOffset, n-5)
	}
	num := (n - 5 - l.ArrayOffset) / 4
	l.Filters = slices.Grow(l.Filters, num)[:num]
	for i := range l.Filters {
		start := binary.LittleEndian.Uint32(contents[l.ArrayOffset+4*i:])
		limit := binary.LittleEndian.Uint32(contents[l.ArrayOffset+4*i+4:])
		if start > limit || int64(limit) > int64(l.ArrayOffset) {
			return fmt.Errorf("filter block: filter %d spans bytes %d to %d, outside 0..%d", i, start, limit, l.ArrayOffset)
		}
		l.Filters[i] = Filter{Offset: int(start), Len: int(limit - start)}
	}
	return nil
}

// KeysPerFilter returns the keys the rebuilt block puts in each of num
// filters (offset o goes to o >> baseLg; past the last is not counted).
func KeysPerFilter(blocks []BlockKeys, baseLg, num int) []int {
	return keysPerFilter(nil, blocks, baseLg, num)
}

// keysPerFilter is KeysPerFilter into counts' memory.
func keysPerFilter(counts []int, blocks []BlockKeys, baseLg, num int) []int {
	counts = slices.Grow(counts[:0], num)[:num]
	clear(counts)
	for j := range blocks {
		b := &blocks[j]
		i := b.Handle.Offset >> (uint(baseLg) & 63)
		if i < uint64(num) {
			counts[i] += b.Len()
		}
	}
	return counts
}
