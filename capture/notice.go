package capture

import (
	"io"
	"sync"
	"time"
)

// Notices writes a capture's own lines for the user (warnings, why it ends
// a server, what the log lost) to stderr from a goroutine of its own, never
// waiting for it: stderr may be a pipe nobody reads, and a write to a full
// one blocks for good. A line is queued and the caller goes on; a line
// that finds NoticeQueue others waiting is dropped. A nil *Notices drops
// everything.
//
// A Notices is an io.Writer, for options that take one: each Write is one
// notice, copied.
type Notices struct {
	mu     sync.Mutex
	ch     chan string
	done   chan struct{}
	closed bool
}

// NoticeQueue is how many notices may wait to be written.
const NoticeQueue = 16

// NoticeFlush is how long a capture waits at its end for its notices to be
// written before it goes on without them.
const NoticeFlush = time.Second

// NewNotices starts writing notices to w.
func NewNotices(w io.Writer) *Notices {
	n := &Notices{ch: make(chan string, NoticeQueue), done: make(chan struct{})}
	go func() {
		defer close(n.done)
		for msg := range n.ch {
			_, _ = io.WriteString(w, msg)
		}
	}()
	return n
}

// NoticesFor is w as a Notices: w itself when it is one (own false: its
// owner closes it), else a new one writing to w (own true), or nil for a
// nil w.
func NoticesFor(w io.Writer) (n *Notices, own bool) {
	switch w := w.(type) {
	case nil:
		return nil, false
	case *Notices:
		return w, false
	}
	return NewNotices(w), true
}

// Say queues msg (a whole line) without waiting.
func (n *Notices) Say(msg string) {
	if n == nil {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return
	}
	select {
	case n.ch <- msg:
	default:
	}
}

// Write queues p as one notice without waiting; it never fails.
func (n *Notices) Write(p []byte) (int, error) {
	n.Say(string(p))
	return len(p), nil
}

// Close takes no more notices and waits up to bound for those queued to be
// written. Closing twice is harmless.
func (n *Notices) Close(bound time.Duration) {
	if n == nil {
		return
	}
	n.mu.Lock()
	if !n.closed {
		n.closed = true
		close(n.ch)
	}
	n.mu.Unlock()
	t := time.NewTimer(bound)
	defer t.Stop()
	select {
	case <-n.done:
	case <-t.C:
	}
}
