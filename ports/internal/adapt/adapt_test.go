package adapt

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

// recorder is a Flusher that records its calls, and fails the call named
// by failOn.
type recorder struct {
	calls  []string
	failOn string
}

func (r *recorder) call(c string) error {
	r.calls = append(r.calls, c)
	if r.failOn != "" && strings.HasPrefix(c, r.failOn) {
		return errors.New("planted")
	}
	return nil
}

func (r *recorder) Set(key, value []byte) error { return r.call("set " + string(key)) }

func (r *recorder) Flush() error { return r.call("flush") }

func (r *recorder) Compact(start, end []byte) error {
	return r.call("compact " + string(start) + " " + string(end))
}

func (r *recorder) Close() error { return r.call("close") }

// TestWriteFlushed: batches of at most batchBytes (key, value and
// overhead for each entry; a lone entry larger than that is a batch of
// its own), a flush after each, a compaction from the least key to the
// greatest, and Close; Close also after a failure, and never twice.
func TestWriteFlushed(t *testing.T) {
	kv := func(k string, vlen int) [2][]byte { return [2][]byte{[]byte(k), make([]byte, vlen)} }
	for _, c := range []struct {
		name   string
		kvs    [][2][]byte
		failOn string
		want   string
		err    bool
	}{
		{name: "none", want: "close"},
		{name: "one key", kvs: [][2][]byte{kv("k", 1)}, want: "set k, flush, close"},
		// Each entry is 1 + 3 + 2 = 6 bytes: two fit in a batch of 12.
		{name: "batches", kvs: [][2][]byte{kv("m", 3), kv("b", 3), kv("z", 3), kv("a", 3), kv("c", 3)},
			want: "set m, set b, flush, set z, set a, flush, set c, flush, compact a z, close"},
		{name: "large entry", kvs: [][2][]byte{kv("b", 20), kv("a", 1)},
			want: "set b, flush, set a, flush, compact a b, close"},
		{name: "set fails", kvs: [][2][]byte{kv("b", 1), kv("a", 1)}, failOn: "set a", want: "set b, set a, close", err: true},
		{name: "flush fails", kvs: [][2][]byte{kv("b", 1), kv("a", 1)}, failOn: "flush", want: "set b, set a, flush, close", err: true},
		{name: "compact fails", kvs: [][2][]byte{kv("b", 1), kv("a", 1)}, failOn: "compact", want: "set b, set a, flush, compact a b, close", err: true},
	} {
		r := &recorder{failOn: c.failOn}
		err := WriteFlushed(r, c.kvs, 12, 2)
		if got := strings.Join(r.calls, ", "); got != c.want {
			t.Errorf("%s: calls\n\t%s\nwant\n\t%s", c.name, got, c.want)
		}
		if (err != nil) != c.err {
			t.Errorf("%s: error %v, want one: %v", c.name, err, c.err)
		}
	}
}

// closer counts its Close calls.
type closer struct{ n *int }

func (c closer) Close() error { *c.n++; return nil }

// TestClosingGetter: a key found is closed and reported found; the
// not-found error (also wrapped) is no error; any other error is.
func TestClosingGetter(t *testing.T) {
	notFound := errors.New("not found")
	other := errors.New("disk on fire")
	closed := 0
	get := ClosingGetter(func(key []byte) ([]byte, io.Closer, error) {
		switch string(key) {
		case "here":
			return []byte("v"), closer{&closed}, nil
		case "absent":
			return nil, nil, fmt.Errorf("get: %w", notFound)
		}
		return nil, nil, other
	}, notFound)
	found, err := ReadKeys(get, [][]byte{[]byte("here"), []byte("absent"), []byte("here")})
	if err != nil || fmt.Sprint(found) != "[true false true]" || closed != 2 {
		t.Errorf("ReadKeys = %v, %v with %d closes; want [true false true], no error, 2 closes", found, err, closed)
	}
	if _, err := ReadKeys(get, [][]byte{[]byte("here"), []byte("broken")}); !errors.Is(err, other) {
		t.Errorf("ReadKeys on a failing Get: error %v, want %v", err, other)
	}
}
