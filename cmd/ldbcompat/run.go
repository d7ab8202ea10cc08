package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/ldbcompat/ldbcompat/internal/verify"
)

// openFile opens a table file read-only. Tests replace it to simulate files
// that fail or change while they are read.
var openFile = verify.OpenFile

// options are the options the commands check tables with.
func options(keep, paranoid bool) verify.Options {
	return verify.Options{Open: func(p string) (verify.File, error) { return openFile(p) }, Keep: keep, Paranoid: paranoid}
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

// searchStep is how many directories a search goes through between two
// lines of progress when stderr is not a terminal.
var searchStep = 4096

// search reports a search's progress: dirs directories searched, dbs
// databases found.
func (p *progress) search(dirs, dbs int) {
	if !p.tty {
		if dirs/searchStep <= p.done {
			return
		}
		p.done = dirs / searchStep
	}
	p.line(false, "%s %d directories, %d databases found", p.verb, dirs, dbs)
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
	if !p.enabled || (!p.tty && p.done%max(p.total/10, 1) != 0 && p.done != p.total) {
		return
	}
	p.line(p.done == p.total, "%s %d/%d tables", p.verb, p.done, p.total)
}

// line prints a progress line: on a terminal in place, at most every 100 ms
// unless final; otherwise a line of its own.
func (p *progress) line(final bool, format string, args ...any) {
	if !p.tty {
		fmt.Fprintf(p.w, format+"\n", args...)
	} else if now := time.Now(); final || now.Sub(p.last) > 100*time.Millisecond {
		p.last = now
		fmt.Fprintf(p.w, "\r\033[K"+format, args...)
		p.shown = true
	}
}

// finish ends the progress display.
func (p *progress) finish() {
	if p.shown {
		fmt.Fprintln(p.w)
		p.shown = false
	}
}
