package table

import (
	"bytes"
	"encoding/binary"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/klauspost/compress/s2"
)

// Tests of decodeSnappy against refDecodeSnappy, the decoder it replaced
// (snappy_ref_test.go): the same ok and tooLong for every input, the same
// output when ok, whatever dst held before.

// snappyStream builds a snappy stream element by element, for seeds.
type snappyStream struct {
	body []byte
	n    int // bytes the elements produce
}

// lit appends a literal of p, its length stored in extra bytes after the
// tag (0 for in the tag; 1..4 even where fewer would do).
func (b *snappyStream) lit(p []byte, extra int) *snappyStream {
	l := len(p) - 1
	if extra == 0 {
		b.body = append(b.body, byte(l)<<2)
	} else {
		b.body = append(b.body, byte(59+extra)<<2)
		for i := 0; i < extra; i++ {
			b.body = append(b.body, byte(l>>(8*i)))
		}
	}
	b.body = append(b.body, p...)
	b.n += len(p)
	return b
}

// copy1, copy2 and copy4 append a copy with a 1-, 2- or 4-byte offset.
func (b *snappyStream) copy1(length, offset int) *snappyStream {
	b.body = append(b.body, byte(offset>>8)<<5|byte(length-4)<<2|1, byte(offset))
	b.n += length
	return b
}

func (b *snappyStream) copy2(length, offset int) *snappyStream {
	b.body = append(b.body, byte(length-1)<<2|2, byte(offset), byte(offset>>8))
	b.n += length
	return b
}

func (b *snappyStream) copy4(length, offset int) *snappyStream {
	b.body = append(b.body, byte(length-1)<<2|3)
	b.body = binary.LittleEndian.AppendUint32(b.body, uint32(offset))
	b.n += length
	return b
}

// bytes returns the stream with a header claiming what the elements
// produce, plus delta.
func (b *snappyStream) bytes(delta int) []byte {
	return append(binary.AppendUvarint(nil, uint64(b.n+delta)), b.body...)
}

// seqBytes returns n bytes counting up from start.
func seqBytes(start, n int) []byte {
	p := make([]byte, n)
	for i := range p {
		p[i] = byte(start + i)
	}
	return p
}

// snappySeeds returns hand-built streams, valid and not: every tag type,
// copies of every offset below 17 and every length, overlapping and not,
// in the middle of a long output (the fast loop) and at its end (the slow
// one), long literals with 1 to 4 length bytes, offset 0 and offsets just
// past what has been produced, truncated tags and trailing bytes.
func snappySeeds() [][]byte {
	var seeds [][]byte
	add := func(b *snappyStream, deltas ...int) {
		for _, d := range append(deltas, 0) {
			seeds = append(seeds, b.bytes(d))
		}
	}
	pad := seqBytes(100, 200)
	for off := 1; off <= 16; off++ {
		for _, l := range []int{1, 4, 5, 7, 8, 9, 11, 15, 16, 17, 23, 24, 31, 32, 33, 47, 48, 57, 63, 64} {
			b := new(snappyStream).lit(seqBytes(off, 20), 0)
			b.copy2(l, off)
			add(b)
			if l >= 4 && l <= 11 {
				b = new(snappyStream).lit(seqBytes(off, 20), 0).copy1(l, off).copy4(l, off+1).lit(pad, 1)
				add(b)
			}
			b = new(snappyStream).lit(seqBytes(off, 20), 0).copy2(l, off).lit(pad, 2)
			add(b, 1, -1)
		}
	}
	for _, off := range []int{0, 20, 21, 22, 1 << 11, 1<<11 - 1, 1 << 16, 1<<16 - 1, 1 << 24, 1<<32 - 1} {
		add(new(snappyStream).lit(seqBytes(0, 20), 0).copy4(10, off).lit(pad, 1))
		add(new(snappyStream).lit(seqBytes(0, 20), 0).copy2(10, off&0xffff).lit(pad, 1))
		add(new(snappyStream).lit(seqBytes(0, 20), 0).copy1(10, off&0x7ff).lit(pad, 1))
	}
	for extra := 0; extra <= 4; extra++ {
		for _, l := range []int{1, 16, 17, 60, 61, 100, 255, 256, 300} {
			if extra == 0 && l > 60 {
				continue
			}
			b := new(snappyStream).lit(seqBytes(l, l), extra).copy2(64, l)
			add(b, -1, 1)
			add(new(snappyStream).lit(pad, 2).lit(seqBytes(l, l), extra).lit(pad, 0))
		}
	}
	// An element that reaches or overruns the declared length (by one)
	// while much input remains: the end of the output, not of the input,
	// stops the decoder there.
	for _, off := range []int{1, 3, 7, 8, 9, 16, 17, 20} {
		for l := 1; l <= 64; l++ {
			b := new(snappyStream).lit(seqBytes(off, 20), 0).copy2(l, off)
			end := b.n
			if l >= 4 && l <= 11 {
				b = new(snappyStream).lit(seqBytes(off, 20), 0).copy1(l, off)
			}
			b.lit(pad, 1)
			add(b, end-b.n, end-b.n-1)
		}
	}
	for _, l := range []int{1, 16, 17, 60, 64, 100} {
		b := new(snappyStream).lit(seqBytes(0, 20), 0).lit(seqBytes(l, l), 2)
		end := b.n
		b.lit(pad, 1)
		add(b, end-b.n, end-b.n-1)
	}
	// Literals of 17..64 bytes with fewer than 64 bytes of input after
	// their tag but much output still to come.
	for l := 17; l <= 64; l++ {
		add(new(snappyStream).lit(pad, 1).lit(seqBytes(l, l), 0).copy2(64, 100).copy2(64, 30))
	}
	long := new(snappyStream).lit(seqBytes(0, 40), 0).copy1(11, 3).copy2(64, 20).copy4(30, 100).lit(pad, 2).copy2(40, 7).lit(seqBytes(7, 5), 0)
	full := long.bytes(0)
	for i := range full {
		seeds = append(seeds, full[:i]) // every truncation
	}
	seeds = append(seeds, append(full[:len(full):len(full)], 0), append(full[:len(full):len(full)], 4, 'x'))
	seeds = append(seeds,
		[]byte{}, []byte{0}, []byte{0, 0}, []byte{1}, []byte{0x80},
		[]byte{0xff, 0xff, 0xff, 0xff, 0x0f}, []byte{0xff, 0xff, 0xff, 0xff, 0x1f},
		[]byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x00}, []byte{0x81, 0x80, 0x80, 0x80, 0x00, 0x00, 'a'},
		[]byte{5, 0xf0, 4, 0, 0, 0, 'a', 'b', 'c', 'd', 'e'}, []byte{5, 0xfc, 4, 0, 0, 0, 'a'},
	)
	return seeds
}

// checkSnappy decodes src with decodeSnappy and refDecodeSnappy into
// buffers of several capacities and fails t where they differ.
func checkSnappy(t *testing.T, src []byte, maxLen uint64) {
	t.Helper()
	orig := bytes.Clone(src)
	garbage := func(n int) []byte {
		p := make([]byte, n)
		for i := range p {
			p[i] = 0xa5 ^ byte(i*7)
		}
		return p
	}
	caps := []int{-1, 0, 7, 100, 5000}
	if n, k := binary.Uvarint(src); k > 0 && n > 0 && n <= 1<<16 {
		caps = append(caps, int(n), int(n)-1) // room or not
	}
	for _, c := range caps {
		var dst, ref []byte
		if c >= 0 {
			dst, ref = garbage(c)[:c/2], garbage(c)[:c/2]
		}
		wantOut, wantOK, wantLong := refDecodeSnappy(ref, src, maxLen)
		out, ok, tooLong := decodeSnappy(dst, src, maxLen)
		if ok != wantOK || tooLong != wantLong {
			t.Fatalf("decodeSnappy(%x, maxLen %d) = ok %v, tooLong %v; the reference says %v, %v", src, maxLen, ok, tooLong, wantOK, wantLong)
		}
		if !bytes.Equal(src, orig) {
			t.Fatalf("decodeSnappy changed its input")
		}
		if !ok {
			continue
		}
		if !bytes.Equal(out, wantOut) {
			t.Fatalf("decodeSnappy(%x) = %x; the reference decodes %x", src, out, wantOut)
		}
		inDst := len(out) > 0 && cap(dst) > 0 && &out[:1][0] == &dst[:1][0]
		inRef := len(wantOut) > 0 && cap(ref) > 0 && &wantOut[:1][0] == &ref[:1][0]
		if inDst != inRef {
			t.Fatalf("decoding %d bytes into a buffer of capacity %d: in it %v, the reference %v", len(out), c, inDst, inRef)
		}
	}
}

// mutateSnappy applies edits to src: each pair of bytes (position, value)
// XORs the value into the byte at the position (modulo the length), or,
// for a zero value, deletes that byte.
func mutateSnappy(src, edits []byte) []byte {
	src = bytes.Clone(src)
	for i := 0; i+1 < len(edits) && len(src) > 0; i += 2 {
		p := int(edits[i]) % len(src)
		if v := edits[i+1]; v != 0 {
			src[p] ^= v
		} else {
			src = append(src[:p], src[p+1:]...)
		}
	}
	return src
}

// encodeSnappy encodes p with one of klauspost's snappy encoders.
func encodeSnappy(p []byte, how byte) []byte {
	switch how % 3 {
	case 0:
		return s2.EncodeSnappy(nil, p)
	case 1:
		return s2.EncodeSnappyBetter(nil, p)
	default:
		return s2.EncodeSnappyBest(nil, p)
	}
}

// snappyTestData returns compressible data: runs, repeats at short and
// long distances, and random bytes.
func snappyTestData(r *rand.Rand, n int) []byte {
	p := make([]byte, 0, n)
	for len(p) < n {
		switch k := r.Intn(8); {
		case k == 0:
			p = append(p, bytes.Repeat([]byte{byte(r.Intn(256))}, 1+r.Intn(100))...)
		case k <= 3 && len(p) > 0:
			off := 1 + r.Intn(min(len(p), []int{16, 300, 70000}[k-1]))
			for l := 1 + r.Intn(80); l > 0; l-- {
				p = append(p, p[len(p)-off])
			}
		default:
			for l := 1 + r.Intn(30); l > 0; l-- {
				p = append(p, "abcdefghijklmnopqrstuvwxyz0123456789"[r.Intn(36)])
			}
		}
	}
	return p[:n]
}

// fuzzCorpusBlocks returns the snappy blocks, or the whole inputs, of the
// seed corpora of the other fuzz tests in testdata/fuzz.
func fuzzCorpusBlocks(tb testing.TB) [][]byte {
	names, _ := filepath.Glob(filepath.Join("testdata", "fuzz", "*", "*"))
	var out [][]byte
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			tb.Fatal(err)
		}
		// The first []byte value, in Go syntax: enough to find what
		// looks like table files in it without the fuzzing package.
		text := string(data)
		i := strings.Index(text, "[]byte(")
		if i < 0 {
			continue
		}
		j := strings.Index(text[i:], ")\n")
		if j < 0 {
			continue
		}
		s, err := strconv.Unquote(text[i+len("[]byte(") : i+j])
		if err != nil {
			continue
		}
		p := []byte(s)
		out = append(out, p)
		if t, err := OpenBytes(name, p, int64(len(p))); err == nil {
			for _, e := range t.Index() {
				h := e.Handle
				if e.HandleOK && h.End() <= uint64(len(p)) && p[h.Offset+h.Size] == SnappyCompression {
					out = append(out, p[h.Offset:h.Offset+h.Size])
				}
			}
		}
	}
	return out
}

func TestSnappyDecodeSeeds(t *testing.T) {
	for _, src := range snappySeeds() {
		checkSnappy(t, src, maxSnappyRatio*uint64(len(src)))
		checkSnappy(t, src, 1<<20)
		checkSnappy(t, src, 40)
	}
	for _, src := range fuzzCorpusBlocks(t) {
		checkSnappy(t, src, maxSnappyRatio*uint64(len(src)))
	}
}

// TestSnappyDecodeMutations decodes streams klauspost's encoders made, and
// every truncation of them, and the same with random bytes changed.
func TestSnappyDecodeMutations(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 300; i++ {
		enc := encodeSnappy(snappyTestData(r, r.Intn(3000)), byte(i))
		checkSnappy(t, enc, maxSnappyRatio*uint64(len(enc)))
		if i%10 == 0 {
			for j := 0; j < len(enc); j += 1 + j/64 {
				checkSnappy(t, enc[:j], 1<<20)
			}
		}
		for j := 0; j < 20; j++ {
			edits := make([]byte, 2*(1+r.Intn(3)))
			r.Read(edits)
			m := mutateSnappy(enc, edits)
			checkSnappy(t, m, 1<<20)
		}
	}
}

// FuzzSnappyDecode compares decodeSnappy with the reference on arbitrary
// inputs (enc 0) and on klauspost's encodings of arbitrary data with edits
// applied (enc 1..3, each an encoder; see mutateSnappy), with the limit
// on the decoded length the caller gives (22 times the input's length) or
// a fuzzed one below 1 MiB (decodeSnappy allocates what the header claims,
// up to the limit, before it reads the tags).
func FuzzSnappyDecode(f *testing.F) {
	for _, src := range snappySeeds() {
		f.Add(src, byte(0), []byte{}, uint32(0))
	}
	for _, src := range fuzzCorpusBlocks(f) {
		f.Add(src, byte(0), []byte{}, uint32(0))
	}
	r := rand.New(rand.NewSource(2))
	for i := 0; i < 30; i++ {
		p := snappyTestData(r, r.Intn(5000))
		f.Add(p, byte(1+i%3), []byte{}, uint32(0))
		f.Add(p, byte(1+i%3), []byte{byte(r.Intn(256)), byte(r.Intn(256))}, uint32(0))
		f.Add(p, byte(1+i%3), []byte{byte(r.Intn(256)), 0}, uint32(0))
	}
	f.Fuzz(func(t *testing.T, data []byte, enc byte, edits []byte, maxLen uint32) {
		src := data
		if enc%4 != 0 {
			src = mutateSnappy(encodeSnappy(data, enc%4-1), edits)
		}
		limit := maxSnappyRatio * uint64(len(src))
		if maxLen != 0 {
			limit = uint64(maxLen-1) % (1 << 20)
		}
		checkSnappy(t, src, limit)
	})
}
