package capture

import (
	"bytes"
	"strconv"
	"sync"
	"testing"
	"time"
)

// gateLog is a log whose writes can be held: while held, the writer is
// stuck inside one Write, as on a full pipe.
type gateLog struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	gate    chan struct{} // nil: writes go through
	entered chan struct{}
}

func (g *gateLog) hold() {
	g.mu.Lock()
	g.gate, g.entered = make(chan struct{}), make(chan struct{}, 1)
	g.mu.Unlock()
}

func (g *gateLog) release() {
	g.mu.Lock()
	close(g.gate)
	g.gate = nil
	g.mu.Unlock()
}

func (g *gateLog) Write(p []byte) (int, error) {
	g.mu.Lock()
	gate, entered := g.gate, g.entered
	g.mu.Unlock()
	if gate != nil {
		select {
		case entered <- struct{}{}:
		default:
		}
		<-gate
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.buf.Write(p)
}

func (g *gateLog) Close() error { return nil }

// TestLogWriterQueueGrows: the queue's ring starts small (most sessions
// never queue more than a few observations) and grows to the queue's bound
// under a burst the writer cannot keep up with, every queued observation
// kept in its place and order, wrapped around the ring or not; past the
// bound observations are dropped and leave their gap, as before.
func TestLogWriterQueueGrows(t *testing.T) {
	const queue, early, dropped = 1024, 200, 3
	out := &gateLog{}
	w := NewLogWriter(out, LogOptions{SessionID: "s-1-aaaaaaaaaaaa", Label: "s", Path: "g.jsonl", Queue: queue})
	if len(w.ring) >= queue {
		t.Fatalf("the ring starts at %d entries, the whole queue", len(w.ring))
	}
	for i := range early {
		add(w, Stderr, "early "+strconv.Itoa(i))
	}
	// Drained, so the burst starts part way round the ring; the bound is
	// for a hang only.
	for deadline := time.Now().Add(time.Minute); w.Queued() > 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the queue never drained")
		}
	}
	out.hold()
	add(w, Stderr, "held")
	<-out.entered // the writer is stuck writing "held"
	for i := range queue + dropped {
		add(w, Stderr, "burst "+strconv.Itoa(i))
	}
	if lost := w.Lost(); lost != dropped {
		t.Fatalf("lost %d, want %d (the queue holds %d)", lost, dropped, queue)
	}
	if len(w.ring) != queue {
		t.Errorf("the ring grew to %d entries, want the queue's %d", len(w.ring), queue)
	}
	out.release()
	if lost := w.Close(); lost != dropped {
		t.Fatalf("lost %d after Close, want %d", lost, dropped)
	}
	var want []string
	for i := range early {
		want = append(want, "early "+strconv.Itoa(i))
	}
	want = append(want, "held")
	for i := range queue {
		want = append(want, "burst "+strconv.Itoa(i))
	}
	frames := (&memLog{buf: out.buf}).frames(t)
	for i, f := range frames[:min(len(frames), len(want))] {
		if f.Text != want[i] || f.Seq != uint64(i+1) {
			t.Fatalf("frame %d: seq %d %q, want seq %d %q", i, f.Seq, f.Text, i+1, want[i])
		}
	}
	if len(frames) != len(want)+1 || seqGaps(frames) != dropped {
		t.Errorf("%d frames with %d seqs missing, want %d and the closing frame, %d missing", len(frames), seqGaps(frames), len(want), dropped)
	}
}
