package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
	"sync"
	"time"

	"github.com/ldbcompat/ldbcompat/internal/filtercheck"
	"github.com/ldbcompat/ldbcompat/internal/table"
)

// tableFile is an open table file: what openChecked needs of an *os.File.
type tableFile interface {
	io.ReaderAt
	io.Closer
	Stat() (fs.FileInfo, error)
}

// openFile opens a table file read-only. Tests replace it to simulate files
// that fail or change while they are read.
var openFile = func(path string) (tableFile, error) { return os.Open(path) }

// openChecked opens the table file at path read-only, reads it and checks
// its filter block. The file is closed on return: everything the result
// needs is in memory.
//
// Anything but a regular file is refused before it is opened: opening a
// named pipe would wait for a writer forever. A table that changes while
// it is read (LevelDB may still be writing it) is an error that says so.
func openChecked(path string) (*table.Table, *filtercheck.Result, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, notRegular(path, fi)
	}
	f, err := openFile(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err = f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, notRegular(path, fi)
	}
	t, r, err := check(path, f, fi.Size())
	if now, serr := f.Stat(); serr == nil && (now.Size() != fi.Size() || !now.ModTime().Equal(fi.ModTime())) {
		changed := fmt.Sprintf("%s changed while it was read (%d bytes, modified %s, when opened; %d bytes, modified %s, after): is LevelDB still writing it?",
			path, fi.Size(), fi.ModTime().Format(time.RFC3339Nano), now.Size(), now.ModTime().Format(time.RFC3339Nano))
		if err != nil {
			return nil, nil, fmt.Errorf("%w; %s", err, changed)
		}
		return nil, nil, errors.New(changed)
	}
	return t, r, err
}

// check reads the table of size bytes in r and checks its filter block.
func check(path string, r io.ReaderAt, size int64) (*table.Table, *filtercheck.Result, error) {
	t, err := table.Open(path, r, size)
	if err != nil {
		return nil, nil, err
	}
	res, err := filtercheck.Check(t)
	if err != nil {
		return nil, nil, err
	}
	return t, res, nil
}

// notRegular is the error for a path that is not a regular file.
func notRegular(path string, fi fs.FileInfo) error {
	what := "not a regular file"
	switch m := fi.Mode(); {
	case m.IsDir():
		what += " but a directory"
	case m&fs.ModeNamedPipe != 0:
		what += " but a named pipe"
	case m&fs.ModeSocket != 0:
		what += " but a socket"
	case m&fs.ModeDevice != 0:
		what += " but a device"
	}
	return fmt.Errorf("%s: %s", path, what)
}

// forEachOrdered computes work(i) for i in [0, n) on several goroutines and
// calls emit(i, result) in order of i, from the calling goroutine.
func forEachOrdered[T any](n int, work func(i int) T, emit func(i int, v T)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	results := make([]T, n)
	done := make([]chan struct{}, n)
	for i := range done {
		done[i] = make(chan struct{})
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results[i] = work(i)
				close(done[i])
			}
		}()
	}
	go func() {
		// Feed at most a few tables ahead of the one being emitted, so
		// finished results do not pile up in memory.
		for i := 0; i < n; i++ {
			if i >= 2*workers {
				<-done[i-2*workers]
			}
			next <- i
		}
		close(next)
	}()
	for i := 0; i < n; i++ {
		<-done[i]
		emit(i, results[i])
		var zero T
		results[i] = zero
	}
	wg.Wait()
}

// progressThreshold is the number of tables above which progress is shown
// even when stderr is not a terminal.
var progressThreshold = 100

// progress reports "verified 120/800 tables" on stderr.
type progress struct {
	w       io.Writer
	verb    string
	total   int
	done    int
	tty     bool
	enabled bool
	last    time.Time
	shown   bool // a tty progress line is on screen
}

func newProgress(w io.Writer, verb string, total int) *progress {
	p := &progress{w: w, verb: verb, total: total}
	if f, ok := w.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			p.tty = true
		}
	}
	p.enabled = p.tty || total > progressThreshold
	return p
}

// clear removes the progress line from a terminal before other output.
func (p *progress) clear() {
	if p.shown {
		fmt.Fprint(p.w, "\r\033[K")
		p.shown = false
	}
}

// tick counts one more table done.
func (p *progress) tick() {
	p.done++
	if !p.enabled {
		return
	}
	if p.tty {
		if now := time.Now(); p.done == p.total || now.Sub(p.last) > 100*time.Millisecond {
			p.last = now
			fmt.Fprintf(p.w, "\r\033[K%s %d/%d tables", p.verb, p.done, p.total)
			p.shown = true
		}
		return
	}
	if step := max(p.total/10, 1); p.done%step == 0 || p.done == p.total {
		fmt.Fprintf(p.w, "%s %d/%d tables\n", p.verb, p.done, p.total)
	}
}

// finish ends the progress display.
func (p *progress) finish() {
	if p.shown {
		fmt.Fprintln(p.w)
		p.shown = false
	}
}
