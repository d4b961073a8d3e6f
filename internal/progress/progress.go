// Package progress draws the one line on stderr that says how far a long
// read has got (`reading 123 MB of 417 MB, 210 MB/s, ETA 1s`), for the
// commands that read whole logs (check, export, verify, open).
//
// The line is drawn only for a person watching: when stderr is a terminal
// and the inputs are over Threshold. A CI log, a pipe or a small log gets
// nothing, not even an empty line. It is redrawn in place with a carriage
// return and padded with spaces rather than cleared with an escape
// sequence, so that it works on any terminal, and erased at the end.
package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/charmbracelet/x/term"
)

// Threshold is the input size, in bytes, at or below which no line is
// drawn: a read this short is over before a line would help.
const Threshold = 50_000_000

// Interval is how often the line is redrawn (it is first drawn at once).
const Interval = 250 * time.Millisecond

// IsTerminal reports whether w is a terminal.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(f.Fd())
}

// Shown reports whether a line is drawn for a read of total bytes, given
// whether its writer is a terminal.
func Shown(terminal bool, total int64) bool {
	return terminal && total > Threshold
}

// Line is a progress line being drawn. A nil *Line (nothing shown) may be
// stopped.
type Line struct {
	w      io.Writer
	prefix string // what the read is for, before "reading"
	total  int64
	read   *atomic.Int64
	start  time.Time
	stop   chan struct{}
	done   chan struct{}

	mu    sync.Mutex
	width int // of what is on the line now, to pad over and erase
}

// Start draws the progress of read (bytes read so far, added to as the
// read goes) towards total on w, at once and every Interval until Stop,
// when Shown says so; otherwise it draws nothing and returns nil.
func Start(w io.Writer, terminal bool, total int64, read *atomic.Int64) *Line {
	return StartFor(w, terminal, "", total, read)
}

// StartFor is Start for a read that is not the command's main one, named
// by prefix ("finding runs: " gives `finding runs: reading 12 MB of ...`).
func StartFor(w io.Writer, terminal bool, prefix string, total int64, read *atomic.Int64) *Line {
	if !Shown(terminal, total) {
		return nil
	}
	l := &Line{w: w, prefix: prefix, total: total, read: read, start: time.Now(), stop: make(chan struct{}), done: make(chan struct{})}
	l.draw(l.prefix + Render(read.Load(), total, 0)) // at once: the read may be over before a tick
	go l.run()
	return l
}

func (l *Line) run() {
	defer close(l.done)
	t := time.NewTicker(Interval)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case now := <-t.C:
			l.draw(l.prefix + Render(l.read.Load(), l.total, now.Sub(l.start)))
		}
	}
}

// draw puts s on the line, over what was there.
func (l *Line) draw(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	pad := max(l.width-len(s), 0)
	fmt.Fprint(l.w, "\r"+s+strings.Repeat(" ", pad))
	l.width = len(s)
}

// Say writes msg, a whole line or more, on the line's writer above the
// line: the line is erased, msg written, and the line drawn again after
// it, so that the two never mix.
func (l *Line) Say(msg string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	erase := ""
	if l.width > 0 {
		erase = "\r" + strings.Repeat(" ", l.width) + "\r"
	}
	select {
	case <-l.stop: // stopped: the line is gone and stays gone
		fmt.Fprint(l.w, erase+msg)
		l.width = 0
		return
	default:
	}
	s := l.prefix + Render(l.read.Load(), l.total, time.Since(l.start))
	fmt.Fprint(l.w, erase+msg+s)
	l.width = len(s)
}

// Stop ends the line and erases it, leaving the cursor where the line
// began, so that what is written next starts a clean line.
func (l *Line) Stop() {
	if l == nil {
		return
	}
	close(l.stop)
	<-l.done
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.width > 0 {
		fmt.Fprint(l.w, "\r"+strings.Repeat(" ", l.width)+"\r")
		l.width = 0
	}
}

// Render is the line for read bytes of total after elapsed: bytes in MB
// (10^6 bytes), the rate so far, and the time left at that rate. A file
// read twice can count past total; the line stops at total.
func Render(read, total int64, elapsed time.Duration) string {
	read = min(max(read, 0), total)
	s := "reading " + Amount(read, total)
	if read == 0 || elapsed <= 0 {
		return s
	}
	rate := float64(read) / elapsed.Seconds()
	eta := time.Duration(float64(total-read) / rate * float64(time.Second))
	return s + fmt.Sprintf(", %s/s, ETA %s", mb(int64(rate)), eta.Round(time.Second))
}

// Amount is read bytes of total in MB, "123 MB of 417 MB" (for the
// viewer's loading line too), read stopping at total.
func Amount(read, total int64) string {
	return mb(min(max(read, 0), total)) + " of " + mb(total)
}

// mb is n bytes in whole MB.
func mb(n int64) string {
	return fmt.Sprintf("%d MB", (n+500_000)/1_000_000)
}
