package adapt

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

// logRecorder is a LogWriter that records its calls and what is written.
type logRecorder struct{ calls []string }

func (w *logRecorder) Next() (io.Writer, error) { w.calls = append(w.calls, "next"); return w, nil }

func (w *logRecorder) Write(p []byte) (int, error) {
	w.calls = append(w.calls, "write "+string(p))
	return len(p), nil
}

func (w *logRecorder) Flush() error { w.calls = append(w.calls, "flush"); return nil }

func (w *logRecorder) Close() error { w.calls = append(w.calls, "close"); return nil }

// TestWriteLog: a Next and a Write for each record, a Flush after each
// only when asked, and one Close.
func TestWriteLog(t *testing.T) {
	recs := [][]byte{[]byte("a"), []byte("b")}
	for flush, want := range map[bool]string{
		false: "next, write a, next, write b, close",
		true:  "next, write a, flush, next, write b, flush, close",
	} {
		w := &logRecorder{}
		if err := WriteLog(w, recs, flush); err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(w.calls, ", "); got != want {
			t.Errorf("flushEach %v: calls %s, want %s", flush, got, want)
		}
	}
}

// cutReader fails its read with io.ErrUnexpectedEOF.
type cutReader struct{}

func (cutReader) Read([]byte) (int, error) { return 0, io.ErrUnexpectedEOF }

// TestReadLog: records up to io.EOF; a record cut short is dropped with
// skipCut and ends the log with its error without; another error ends the
// log; a reader that never ends is stopped.
func TestReadLog(t *testing.T) {
	broken := errors.New("broken")
	script := func(rs ...io.Reader) func() (io.Reader, error) {
		return func() (io.Reader, error) {
			if len(rs) == 0 {
				return nil, io.EOF
			}
			r := rs[0]
			rs = rs[1:]
			if r == nil {
				return nil, broken
			}
			return r, nil
		}
	}
	rec := func(s string) io.Reader { return strings.NewReader(s) }
	for _, c := range []struct {
		name    string
		next    func() (io.Reader, error)
		skipCut bool
		want    string
		err     error
	}{
		{name: "all", next: script(rec("a"), rec("b")), want: "[a b]"},
		{name: "cut skipped", next: script(rec("a"), cutReader{}, rec("b")), skipCut: true, want: "[a b]"},
		{name: "cut ends", next: script(rec("a"), cutReader{}, rec("b")), want: "[a]", err: io.ErrUnexpectedEOF},
		{name: "error ends", next: script(rec("a"), nil, rec("b")), skipCut: true, want: "[a]", err: broken},
		{name: "endless", next: func() (io.Reader, error) { return rec("x"), nil }, want: "[x x x x x]", err: errNoProgress},
	} {
		got, err := ReadLog(c.next, 3, c.skipCut)
		if s := fmt.Sprintf("%s", got); s != c.want || !errors.Is(err, c.err) {
			t.Errorf("%s: ReadLog = %s, %v; want %s, %v", c.name, s, err, c.want, c.err)
		}
	}
}

// sliceIter is an EntryIterator over pairs that reuses one buffer for
// every key, as a port's iterator may.
type sliceIter struct {
	kvs [][2]string
	i   int
	buf []byte
}

func (it *sliceIter) Next() bool { it.i++; return it.i <= len(it.kvs) }

func (it *sliceIter) Key() []byte {
	it.buf = append(it.buf[:0], it.kvs[it.i-1][0]...)
	return it.buf
}

func (it *sliceIter) Value() []byte { return []byte(it.kvs[it.i-1][1]) }

// TestEntries: every entry, each key copied out of the iterator's buffer.
func TestEntries(t *testing.T) {
	got := Entries(&sliceIter{kvs: [][2]string{{"k1", "v1"}, {"k2", "v2"}}})
	if len(got) != 2 || !bytes.Equal(got[0].Key, []byte("k1")) || !bytes.Equal(got[1].Key, []byte("k2")) || !bytes.Equal(got[1].Value, []byte("v2")) {
		t.Errorf("Entries = %q", got)
	}
}

// TestPutAll: every pair put in order; on a failed put, close is called
// once and the put's error returned.
func TestPutAll(t *testing.T) {
	kvs := [][2][]byte{{[]byte("a"), []byte("1")}, {[]byte("b"), []byte("2")}, {[]byte("c"), []byte("3")}}
	var puts []string
	closes := 0
	broken := errors.New("broken")
	put := func(k, v []byte) error {
		puts = append(puts, string(k)+"="+string(v))
		if string(k) == "b" {
			return broken
		}
		return nil
	}
	err := PutAll(kvs, put, func() error { closes++; return nil })
	if !errors.Is(err, broken) || strings.Join(puts, " ") != "a=1 b=2" || closes != 1 {
		t.Errorf("PutAll: error %v, puts %v, %d closes; want %v, [a=1 b=2], 1 close", err, puts, closes, broken)
	}
}

// TestErrGetter: nil is found, the not-found error is not found, and any
// other error is returned.
func TestErrGetter(t *testing.T) {
	notFound, other := errors.New("not found"), errors.New("other")
	get := ErrGetter(func(key []byte) error {
		switch string(key) {
		case "here":
			return nil
		case "absent":
			return notFound
		}
		return other
	}, func(err error) bool { return errors.Is(err, notFound) })
	for key, want := range map[string]string{"here": "true <nil>", "absent": "false <nil>", "x": "false other"} {
		found, err := get([]byte(key))
		if got := fmt.Sprint(found, " ", err); got != want {
			t.Errorf("get(%q) = %s, want %s", key, got, want)
		}
	}
}
