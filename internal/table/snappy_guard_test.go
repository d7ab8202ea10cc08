//go:build linux

package table

import (
	"bytes"
	"encoding/binary"
	"math/rand"
	"syscall"
	"testing"
)

// guarded is memory mapped between two inaccessible pages, so that any
// read or write outside it faults.
type guarded struct {
	mem  []byte // the whole mapping, guard pages included
	body []byte // the accessible pages
}

func newGuarded(t *testing.T, pages int) *guarded {
	t.Helper()
	ps := syscall.Getpagesize()
	mem, err := syscall.Mmap(-1, 0, (pages+2)*ps, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Skipf("mmap: %v", err)
	}
	if err := syscall.Mprotect(mem[:ps], syscall.PROT_NONE); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mprotect(mem[(pages+1)*ps:], syscall.PROT_NONE); err != nil {
		t.Fatal(err)
	}
	g := &guarded{mem: mem, body: mem[ps : (pages+1)*ps : (pages+1)*ps]}
	t.Cleanup(func() { syscall.Munmap(mem) })
	return g
}

// at returns n bytes of g holding p (when not nil), against its start or
// against its end.
func (g *guarded) at(n int, p []byte, atEnd bool) []byte {
	b := g.body[:n:n]
	if atEnd {
		b = g.body[len(g.body)-n:]
	}
	copy(b, p)
	return b
}

// TestSnappyDecodeGuarded decodes streams, valid and not, whose input
// starts or ends at a page next to an inaccessible one, into a buffer of
// exactly the decoded length placed the same way: a read or write of
// decodeSnappy's word-at-a-time loops outside its input or output faults
// the test instead of going unseen.
func TestSnappyDecodeGuarded(t *testing.T) {
	in, out := newGuarded(t, 4), newGuarded(t, 16)
	r := rand.New(rand.NewSource(3))
	streams := snappySeeds()
	for i := 0; i < 60; i++ {
		enc := encodeSnappy(snappyTestData(r, r.Intn(4*4096)), byte(i))
		if len(enc) <= len(in.body) {
			streams = append(streams, enc, mutateSnappy(enc, []byte{byte(r.Intn(256)), byte(1 + r.Intn(255))}))
		}
	}
	for _, src := range streams {
		want, wantOK, _ := refDecodeSnappy(nil, src, 1<<20)
		for _, atEnd := range []bool{false, true} {
			s := in.at(len(src), src, atEnd)
			var dst []byte
			if n, k := binary.Uvarint(src); k > 0 && n <= uint64(len(out.body)) {
				dst = out.at(int(n), nil, atEnd)
			}
			got, ok, _ := decodeSnappy(dst, s, 1<<20)
			if ok != wantOK || ok && !bytes.Equal(got, want) {
				t.Fatalf("decodeSnappy(%x) = %x, %v; the reference decodes %x, %v", src, got, ok, want, wantOK)
			}
		}
	}
}
