package kit

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/klauspost/compress/snappy"

	"github.com/ldbcompat/ldbcompat/internal/crc"
	"github.com/ldbcompat/ldbcompat/internal/table"
)

// layoutBlock is one block of a table as the writer stored it.
type layoutBlock struct {
	name     string // "data block 3", "index block", ...
	kind     string // "data", "filter", "metaindex", "index"
	h        table.BlockHandle
	typ      byte
	sum      uint32 // the trailer's checksum
	contents []byte // decompressed when typ is snappy
	badSnap  bool   // a snappy block that does not decompress
}

// layout is a table's blocks in file order and its footer.
type layout struct {
	blocks []layoutBlock
	footer []byte
	nData  int
}

// parseLayout finds a table's blocks through its footer, index and
// metaindex, without verifying checksums.
func parseLayout(data []byte) (*layout, error) {
	t, err := table.OpenBytesWith("table", data, int64(len(data)), table.Options{SkipChecksums: true})
	if err != nil {
		return nil, err
	}
	l := &layout{footer: data[len(data)-table.FooterSize:]}
	add := func(name, kind string, h table.BlockHandle) error {
		if h.Offset > uint64(len(data)) || h.Size > uint64(len(data))-h.Offset || uint64(len(data))-h.Offset-h.Size < table.TrailerSize {
			return fmt.Errorf("%s %s lies outside the file", name, h)
		}
		b := layoutBlock{name: name, kind: kind, h: h, typ: data[h.Offset+h.Size],
			sum: binary.LittleEndian.Uint32(data[h.Offset+h.Size+1:]), contents: data[h.Offset : h.Offset+h.Size]}
		if b.typ == table.SnappyCompression {
			if d, err := snappy.Decode(nil, b.contents); err == nil {
				b.contents = d
			} else {
				b.badSnap = true
			}
		}
		l.blocks = append(l.blocks, b)
		return nil
	}
	for i, e := range t.Index() {
		if !e.HandleOK {
			return nil, fmt.Errorf("index entry %d holds no block handle", i)
		}
		if err := add(fmt.Sprintf("data block %d", i), "data", e.Handle); err != nil {
			return nil, err
		}
	}
	l.nData = len(t.Index())
	if h, ok := t.FilterHandle(); ok {
		if err := add("filter block", "filter", h); err != nil {
			return nil, err
		}
	}
	if err := add("metaindex block", "metaindex", t.MetaindexHandle()); err != nil {
		return nil, err
	}
	if err := add("index block", "index", t.IndexHandle()); err != nil {
		return nil, err
	}
	return l, nil
}

// block returns the block of kind (and data block n), if any.
func (l *layout) block(kind string, n int) *layoutBlock {
	for i := range l.blocks {
		b := &l.blocks[i]
		if b.kind == kind && (kind != "data" || b.name == fmt.Sprintf("data block %d", n)) {
			return b
		}
	}
	return nil
}

// diffTables describes the first difference that counts, or "": with
// snappy, whose encoders differ, blocks compare after decompression, the
// filter and handles only where data blocks lie alike, trailers never.
func diffTables(want, got []byte, snappy bool) string {
	if !snappy && bytes.Equal(want, got) {
		return ""
	}
	wl, err := parseLayout(want)
	if err != nil {
		return fmt.Sprintf("upstream's table does not parse (%v): the kit's vectors are damaged", err)
	}
	gl, err := parseLayout(got)
	if err != nil {
		return fmt.Sprintf("the port's table (%d bytes, upstream's %d) cannot be laid out: %v; first differing byte %s", len(got), len(want), err, wl.where(firstDiff(want, got), len(want)))
	}
	sameHandles := wl.nData == gl.nData
	for i := 0; i < wl.nData && i < gl.nData; i++ {
		w, g := wl.block("data", i), gl.block("data", i)
		if d := diffBlock(w, g, snappy); d != "" {
			return d
		}
		if w.h != g.h {
			sameHandles = false
		}
	}
	if wl.nData != gl.nData {
		return fmt.Sprintf("upstream's table has %d data blocks, the port's %d, each common one the same", wl.nData, gl.nData)
	}
	compareAll := !snappy || sameHandles
	wf, gf := wl.block("filter", 0), gl.block("filter", 0)
	switch {
	case (wf == nil) != (gf == nil):
		return fmt.Sprintf("filter block: upstream's table has %s, the port's %s", presence(wf), presence(gf))
	case wf != nil && compareAll:
		if d := diffBlock(wf, gf, snappy); d != "" {
			return d
		}
	}
	for _, kind := range []string{"metaindex", "index"} {
		w, g := wl.block(kind, 0), gl.block(kind, 0)
		if d := diffEntries(w, g, compareAll); d != "" {
			return d
		}
		if compareAll {
			if d := diffBlock(w, g, snappy); d != "" {
				return d
			}
		}
	}
	if !snappy && !bytes.Equal(wl.footer, gl.footer) {
		i := firstDiff(wl.footer, gl.footer)
		return fmt.Sprintf("footer: %s: upstream % x, port % x", footerField(wl.footer, i), wl.footer, gl.footer)
	}
	if !snappy {
		p := firstDiff(want, got)
		return fmt.Sprintf("upstream %d bytes, port %d; first differing byte %s", len(want), len(got), wl.where(p, len(want)))
	}
	return ""
}

func presence(b *layoutBlock) string {
	if b == nil {
		return "none"
	}
	return "one"
}

func firstDiff(a, b []byte) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return i
}

// where names the region of upstream's table at offset p.
func (l *layout) where(p, size int) string {
	if p >= size-table.FooterSize {
		return fmt.Sprintf("%d, in the footer", p)
	}
	for _, b := range l.blocks {
		switch {
		case uint64(p) >= b.h.Offset && uint64(p) < b.h.Offset+b.h.Size:
			return fmt.Sprintf("%d, in the %s at %s", p, b.name, b.h)
		case uint64(p) >= b.h.Offset+b.h.Size && uint64(p) < b.h.End():
			return fmt.Sprintf("%d, in the trailer of the %s", p, b.name)
		}
	}
	return fmt.Sprintf("%d", p)
}

// footerField names the footer's field at byte i.
func footerField(f []byte, i int) string {
	_, n := table.DecodeBlockHandle(f)
	_, n2 := table.DecodeBlockHandle(f[n:])
	switch {
	case i >= table.FooterSize-8:
		return "magic number"
	case i < n:
		return "metaindex block handle"
	case i < n+n2:
		return "index block handle"
	}
	return "padding"
}

// diffBlock compares contents entry by entry, then handle and trailer.
func diffBlock(w, g *layoutBlock, snappy bool) string {
	if g.badSnap {
		return fmt.Sprintf("%s: the port's block is marked snappy but does not decompress", g.name)
	}
	if !bytes.Equal(w.contents, g.contents) {
		if w.kind == "filter" {
			i := firstDiff(w.contents, g.contents)
			return fmt.Sprintf("filter block (%d bytes, port %d): first difference at byte %d, in the %s", len(w.contents), len(g.contents), i, filterField(w.contents, i))
		}
		return describeEntries(w, g)
	}
	if !snappy && w.h != g.h {
		return fmt.Sprintf("%s: block handle: upstream %s, port %s", w.name, w.h, g.h)
	}
	if !snappy && w.typ != g.typ {
		return fmt.Sprintf("%s: trailer: compression type: upstream %d, port %d", w.name, w.typ, g.typ)
	}
	if !snappy && w.sum != g.sum {
		d := fmt.Sprintf("%s: trailer: checksum: upstream %08x, port %08x", w.name, w.sum, g.sum)
		if g.sum == crc.Unmask(w.sum) {
			d += " (the port's is the CRC-32C unmasked: upstream stores it masked, util/crc32c.h Mask)"
		}
		return d
	}
	return ""
}

// filterField names the region of a filter block at byte i.
func filterField(f []byte, i int) string {
	if len(f) < 5 {
		return "block"
	}
	arr := int(binary.LittleEndian.Uint32(f[len(f)-5:]))
	switch {
	case i >= len(f)-1:
		return "base lg"
	case i >= len(f)-5:
		return "offset of the offset array"
	case arr <= len(f)-5 && i >= arr:
		return fmt.Sprintf("offset array (filter %d's offset)", (i-arr)/4)
	}
	return "filters"
}

// blockEntry is one entry of a block as stored.
type blockEntry struct {
	shared, unshared, vlen uint64
	key, value             []byte
}

// parseBlock decodes a block's entries up to its restart array, and the
// array; ok is false when it does not decode.
func parseBlock(c []byte) (entries []blockEntry, restarts []uint32, ok bool) {
	if len(c) < 4 {
		return nil, nil, false
	}
	n := binary.LittleEndian.Uint32(c[len(c)-4:])
	if uint64(n)*4+4 > uint64(len(c)) {
		return nil, nil, false
	}
	end := len(c) - 4 - int(n)*4
	for i := uint32(0); i < n; i++ {
		restarts = append(restarts, binary.LittleEndian.Uint32(c[end+4*int(i):]))
	}
	var last []byte
	for p := 0; p < end; {
		var e blockEntry
		for _, f := range []*uint64{&e.shared, &e.unshared, &e.vlen} {
			var k int
			if *f, k = binary.Uvarint(c[p:end]); k <= 0 {
				return entries, restarts, false
			}
			p += k
		}
		if e.shared > uint64(len(last)) || e.unshared > uint64(end-p) || e.vlen > uint64(end-p)-e.unshared {
			return entries, restarts, false
		}
		e.key = append(append([]byte(nil), last[:e.shared]...), c[p:p+int(e.unshared)]...)
		p += int(e.unshared)
		e.value = c[p : p+int(e.vlen)]
		p += int(e.vlen)
		last = e.key
		entries = append(entries, e)
	}
	return entries, restarts, true
}

// describeEntries names the first entry and field in which two blocks'
// contents differ.
func describeEntries(w, g *layoutBlock) string {
	we, wr, wok := parseBlock(w.contents)
	ge, gr, gok := parseBlock(g.contents)
	if !wok {
		return fmt.Sprintf("%s: upstream's block does not decode", w.name)
	}
	keyField, valueField := "key bytes", "value bytes"
	switch w.kind {
	case "index":
		keyField, valueField = "index separator", "block handle"
	case "metaindex":
		keyField, valueField = "metaindex entry name", "metaindex entry's block handle"
	}
	for i := 0; i < len(we) && i < len(ge); i++ {
		a, b := we[i], ge[i]
		at := fmt.Sprintf("%s, entry %d", w.name, i)
		if w.kind == "data" {
			at += fmt.Sprintf(" (key %s)", shortHex(a.key))
		}
		switch {
		case w.kind == "data" && a.shared != b.shared:
			why := ""
			if a.shared == 0 && i > 0 {
				why = " (upstream starts a restart point here, storing the whole key)"
			} else if b.shared == 0 {
				why = " (the port starts a restart point here)"
			}
			return fmt.Sprintf("%s: shared length: upstream %d, port %d%s", at, a.shared, b.shared, why)
		case w.kind == "data" && a.unshared != b.unshared:
			return fmt.Sprintf("%s: unshared length: upstream %d, port %d", at, a.unshared, b.unshared)
		case w.kind == "data" && a.vlen != b.vlen:
			return fmt.Sprintf("%s: value length: upstream %d, port %d", at, a.vlen, b.vlen)
		case !bytes.Equal(a.key, b.key):
			return fmt.Sprintf("%s: %s: upstream %s, port %s", at, keyField, shortHex(a.key), shortHex(b.key))
		case a.shared != b.shared || a.unshared != b.unshared:
			return fmt.Sprintf("%s: shared/unshared length: upstream %d/%d, port %d/%d", at, a.shared, a.unshared, b.shared, b.unshared)
		case !bytes.Equal(a.value, b.value):
			return fmt.Sprintf("%s: %s: upstream %s, port %s", at, valueField, shortHex(a.value), shortHex(b.value))
		}
	}
	if !gok {
		return fmt.Sprintf("%s: the port's block does not decode after entry %d", w.name, len(ge))
	}
	if len(we) != len(ge) {
		if w.kind == "metaindex" && len(ge) > len(we) {
			return fmt.Sprintf("%s: the port's has an extra entry %q (upstream ignores meta blocks it does not know)", w.name, ge[len(we)].key)
		}
		return fmt.Sprintf("%s: upstream has %d entries, the port %d", w.name, len(we), len(ge))
	}
	for i := 0; i < len(wr) && i < len(gr); i++ {
		if wr[i] != gr[i] {
			return fmt.Sprintf("%s: restart array: restart point %d: upstream offset %d, port %d", w.name, i, wr[i], gr[i])
		}
	}
	return fmt.Sprintf("%s: restart array: upstream %d restart points, port %d", w.name, len(wr), len(gr))
}

// diffEntries compares index or metaindex keys when the handles cannot
// agree (data blocks elsewhere).
func diffEntries(w, g *layoutBlock, handles bool) string {
	if handles {
		return ""
	}
	we, _, _ := parseBlock(w.contents)
	ge, _, gok := parseBlock(g.contents)
	for i := 0; i < len(we) && i < len(ge); i++ {
		if !bytes.Equal(we[i].key, ge[i].key) {
			field := "index separator"
			if w.kind == "metaindex" {
				field = "metaindex entry name"
			}
			return fmt.Sprintf("%s, entry %d: %s: upstream %s, port %s", w.name, i, field, shortHex(we[i].key), shortHex(ge[i].key))
		}
	}
	if !gok {
		return fmt.Sprintf("%s: the port's block does not decode", w.name)
	}
	if len(we) != len(ge) {
		if w.kind == "metaindex" && len(ge) > len(we) {
			return ""
		}
		return fmt.Sprintf("%s: upstream has %d entries, the port %d", w.name, len(we), len(ge))
	}
	return ""
}

// shortHex writes b in hex, its middle elided beyond 48 bytes.
func shortHex(b []byte) string {
	if len(b) > 48 {
		return fmt.Sprintf("%x...%x (%d bytes)", b[:24], b[len(b)-16:], len(b))
	}
	return fmt.Sprintf("%x", b)
}
