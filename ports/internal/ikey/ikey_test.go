package ikey

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/syndtr/goleveldb/leveldb/comparer"
)

func ik(user string, seq uint64, typ byte) []byte {
	return binary.LittleEndian.AppendUint64([]byte(user), seq<<8|uint64(typ))
}

// TestShortening: upstream's own cases of db/dbformat_test.cc
// (InternalKeyShortSeparator, InternalKeyShortestSuccessor), where a nil
// result stands for the key left as it is.
func TestShortening(t *testing.T) {
	c := Syndtr{User: comparer.DefaultComparer}
	const max = 1<<56 - 1
	for _, tc := range []struct {
		a, b, want []byte
	}{
		{ik("foo", 100, 1), ik("foo", 99, 1), nil},
		{ik("foo", 100, 1), ik("foo", 101, 1), nil},
		{ik("foo", 100, 1), ik("foo", 100, 1), nil},
		{ik("foo", 100, 1), ik("foo", 100, 0), nil},
		{ik("foo", 100, 1), ik("bar", 99, 1), nil},
		{ik("foo", 100, 1), ik("hello", 200, 1), ik("g", max, 1)},
		{ik("foo", 100, 1), ik("foobar", 200, 1), nil},
		{ik("foobar", 100, 1), ik("foo", 200, 1), nil},
	} {
		if got := c.Separator(nil, tc.a, tc.b); !bytes.Equal(got, tc.want) {
			t.Errorf("Separator(%q, %q) = %x, want %x", tc.a, tc.b, got, tc.want)
		}
	}
	if got, want := c.Successor(nil, ik("foo", 100, 1)), ik("g", max, 1); !bytes.Equal(got, want) {
		t.Errorf("Successor(foo) = %x, want %x", got, want)
	}
	if got := c.Successor(nil, ik("\xff\xff", 100, 1)); got != nil {
		t.Errorf("Successor(ff ff) = %x, want the key left as it is", got)
	}
}

// TestCompare: user keys ascending, then sequence numbers and types
// descending (db/dbformat.cc InternalKeyComparator::Compare).
func TestCompare(t *testing.T) {
	ordered := [][]byte{ik("a", 5, 1), ik("a", 5, 0), ik("a", 4, 1), ik("ab", 9, 1), ik("b", 1, 1)}
	for i := range ordered {
		for j := range ordered {
			want := 0
			switch {
			case i < j:
				want = -1
			case i > j:
				want = 1
			}
			if got := Compare(ordered[i], ordered[j]); got != want {
				t.Errorf("Compare(%x, %x) = %d, want %d", ordered[i], ordered[j], got, want)
			}
		}
	}
}
