package capture

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// An output that takes nothing does not hold Close past its bound: what
// was not written is counted as lost, every frame of the write that never
// returned and every observation still queued, and the one warning says
// why. Should the write ever return, the writer does nothing more.
func TestLogWriterCloseIsBounded(t *testing.T) {
	for _, tt := range []struct {
		name   string
		queued int // lines added once the writer is stuck
	}{
		{"only the stuck write", 0},
		{"and a queue behind it", 5},
	} {
		t.Run(tt.name, func(t *testing.T) {
			defer func(d time.Duration) { closeTimeout = d }(closeTimeout)
			closeTimeout = 50 * time.Millisecond
			out := &memLog{block: make(chan struct{}), entered: make(chan struct{}, 1)}
			w := NewLogWriter(out, LogOptions{SessionID: "s", Label: "l", Path: "stuck.jsonl"})
			w.Meta(SessionMeta{})
			w.Add(ClientToServer, nil, nil, []byte("one"), false)
			select {
			case <-out.entered: // the writer is stuck writing the meta frame and "one"
			case <-time.After(10 * time.Second):
				t.Fatal("the writer never wrote")
			}
			for i := 0; i < tt.queued; i++ {
				w.Add(ClientToServer, nil, nil, []byte("more"), false)
			}
			closed := make(chan uint64, 1)
			go func() { closed <- w.Close() }()
			var lost uint64
			select {
			case lost = <-closed:
			case <-time.After(closeTimeout + 10*time.Second):
				t.Fatal("Close waited on an output that takes nothing")
			}
			if want := uint64(2 + tt.queued); lost != want {
				t.Errorf("lost %d, want %d", lost, want)
			}
			close(out.block) // the write returns at last: nothing more happens
			<-w.finished
			if got := w.Lost(); got != lost {
				t.Errorf("Lost() %d after the write returned, Close said %d", got, lost)
			}
			out.mu.Lock()
			outClosed := out.closed
			out.mu.Unlock()
			if outClosed || len(out.frames(t)) != 2 {
				t.Errorf("after the stuck write: closed %v, %d frames", outClosed, len(out.frames(t)))
			}
		})
	}
}

// slowLog is an output that takes every write, each after a pause.
type slowLog struct {
	memLog
	pause time.Duration
}

func (s *slowLog) Write(p []byte) (int, error) {
	time.Sleep(s.pause)
	return s.memLog.Write(p)
}

// An output that is slow but takes what it is given is waited for, however
// long the whole takes: only one call that does not return is given up on.
// Each call pauses a fortieth of the bound, so a loaded machine has a wide
// margin, and the calls together outlast it.
func TestLogWriterCloseWaitsForASlowOutput(t *testing.T) {
	defer func(d time.Duration) { closeTimeout = d }(closeTimeout)
	closeTimeout = time.Second
	out := &slowLog{pause: closeTimeout / 40}
	w := NewLogWriter(out, LogOptions{SessionID: "s", Label: "l", Path: "slow.jsonl"})
	// Frames of a write piece each: 48 calls, past the bound in all.
	line := []byte(strings.Repeat("x", writePiece-256))
	const n = 48
	for range n {
		w.Add(ClientToServer, nil, nil, line, false)
	}
	if lost := w.Close(); lost != 0 {
		t.Errorf("lost %d", lost)
	}
	if got := len(out.frames(t)); got != n {
		t.Errorf("%d frames, want %d", got, n)
	}
}

// firstWriteLog takes its first write and blocks on every later one until
// block is closed.
type firstWriteLog struct {
	memLog
	calls atomic.Int32
	hold  chan struct{}
}

func (f *firstWriteLog) Write(p []byte) (int, error) {
	if f.calls.Add(1) > 1 {
		<-f.hold
	}
	return f.memLog.Write(p)
}

// A Close that gives up on a write part-way through the buffer (written in
// pieces) counts as lost only the frames the earlier pieces did not write
// whole.
func TestLogWriterCloseCountsWhatWasWritten(t *testing.T) {
	defer func(d time.Duration) { closeTimeout = d }(closeTimeout)
	closeTimeout = 50 * time.Millisecond
	out := &firstWriteLog{hold: make(chan struct{})}
	defer close(out.hold)
	w := NewLogWriter(out, LogOptions{SessionID: "s", Label: "l", Path: "part.jsonl"})
	line := []byte(strings.Repeat("x", writePiece*5/8))
	for range 3 {
		w.Add(ClientToServer, nil, nil, line, false)
	}
	// The first piece holds the first frame whole: only the other two are
	// lost, however the writer batched them.
	if lost := w.Close(); lost != 2 {
		t.Errorf("lost %d, want 2", lost)
	}
}
