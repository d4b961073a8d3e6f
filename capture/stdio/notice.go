package stdio

import (
	"io"
	"time"
)

// notices writes the shim's own notices (why it ends the server, that it
// kills it, what the log lost) from a goroutine of its own. The shim's
// stderr may be a pipe nobody reads: a notice written in line would block
// the supervision, and a kill waiting on a full pipe never comes. A notice
// that finds noticeQueue others waiting is dropped.
type notices struct {
	ch   chan string
	done chan struct{}
}

const noticeQueue = 16

// noticeFlush is how long the shim waits at its end for its notices to be
// written before it exits without them.
const noticeFlush = time.Second

func newNotices(w io.Writer) *notices {
	n := &notices{ch: make(chan string, noticeQueue), done: make(chan struct{})}
	go func() {
		defer close(n.done)
		for msg := range n.ch {
			_, _ = io.WriteString(w, msg)
		}
	}()
	return n
}

// say queues msg (a whole line) without waiting.
func (n *notices) say(msg string) {
	select {
	case n.ch <- msg:
	default:
	}
}

// close takes no more notices and waits up to bound for those queued to
// be written.
func (n *notices) close(bound time.Duration) {
	close(n.ch)
	t := time.NewTimer(bound)
	defer t.Stop()
	select {
	case <-n.done:
	case <-t.C:
	}
}
