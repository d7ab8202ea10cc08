package table

import (
	"bytes"
	"encoding/binary"
	"testing"
)

func wkey(user string, seq uint64) []byte {
	return binary.LittleEndian.AppendUint64([]byte(user), seq<<8|uint64(KindValue))
}

// TestWriterRefuses: what upstream asserts against (keys out of order, a
// key shorter than its tag, a restart interval under 1) is an error, not
// a table.
func TestWriterRefuses(t *testing.T) {
	if _, err := NewWriter(WriterOptions{BlockSize: 4096}); err == nil {
		t.Error("restart interval 0 accepted")
	}
	w, err := NewWriter(WriterOptions{BlockSize: 4096, RestartInterval: 16})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Add([]byte("short"), nil); err == nil {
		t.Error("a 5-byte key accepted")
	}
	if err := w.Add(wkey("b", 5), nil); err != nil {
		t.Fatal(err)
	}
	for _, k := range [][]byte{wkey("a", 9), wkey("b", 5), wkey("b", 6)} {
		if err := w.Add(k, nil); err == nil {
			t.Errorf("key %x accepted after %x", k, wkey("b", 5))
		}
	}
}

// TestSeparators: FindShortestSeparator and FindShortSuccessor of
// db/dbformat.cc over util/comparator.cc, on upstream's own examples
// (db/dbformat_test.cc) and the edges.
func TestSeparators(t *testing.T) {
	seek := func(user string) []byte {
		return binary.LittleEndian.AppendUint64([]byte(user), MaxSequence<<8|uint64(KindValue))
	}
	for _, c := range []struct{ start, limit, want []byte }{
		{wkey("foo", 100), wkey("foo", 99), wkey("foo", 100)},     // same user key
		{wkey("foo", 100), wkey("hello", 200), seek("g")},         // shortened
		{wkey("foo", 100), wkey("foobar", 200), wkey("foo", 100)}, // a prefix
		{wkey("foobar", 100), wkey("foo", 200), wkey("foobar", 100)},
		{wkey("abc1", 1), wkey("abc2", 1), wkey("abc1", 1)},        // no room between
		{wkey("a\xff\x01", 1), wkey("b", 1), wkey("a\xff\x01", 1)}, // 'a'+1 is not < 'b'
		{wkey("a\x01x", 1), wkey("a\x03", 1), seek("a\x02")},
	} {
		if got := shortestSeparator(c.start, c.limit); !bytes.Equal(got, c.want) {
			t.Errorf("separator(%x, %x) = %x, want %x", c.start, c.limit, got, c.want)
		}
	}
	for _, c := range []struct{ key, want []byte }{
		{wkey("foo", 100), seek("g")},
		{wkey("\xff\xff", 100), wkey("\xff\xff", 100)},
		{wkey("\xff\x01x", 1), seek("\xff\x02")},
		{wkey("a", 1), wkey("a", 1)}, // "b" is no shorter
		{wkey("", 1), wkey("", 1)},
	} {
		if got := shortSuccessor(c.key); !bytes.Equal(got, c.want) {
			t.Errorf("successor(%x) = %x, want %x", c.key, got, c.want)
		}
	}
}
