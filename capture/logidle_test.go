package capture

import (
	"bytes"
	"sync"
	"testing"
)

// gatedOutput takes writes only once opened, and keeps what it took.
type gatedOutput struct {
	open chan struct{}
	mu   sync.Mutex
	buf  bytes.Buffer
}

func (g *gatedOutput) Write(p []byte) (int, error) {
	<-g.open
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.buf.Write(p)
}

func (g *gatedOutput) Close() error { return nil }

func (g *gatedOutput) written() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.buf.String()
}

// TestLogWriterIdle: Idle is never true while something given to the
// writer is not yet in its output (here, held by an output that takes no
// write), and once it is true, everything is.
func TestLogWriterIdle(t *testing.T) {
	out := &gatedOutput{open: make(chan struct{})}
	w := NewLogWriter(out, LogOptions{SessionID: "s-1-aaaaaaaaaaaa", Label: "s", Path: "idle.jsonl"})
	l := w.Lines(ClientToServer)
	line := `{"jsonrpc":"2.0","id":7,"method":"ping"}` + "\n"
	buf := l.Buffer(len(line))
	n := copy(buf, line)
	l.Number(buf[:n])
	l.Fill()
	if w.Idle() {
		t.Fatal("idle with a line given and nothing written")
	}
	close(out.open)
	waitFlushed(t, w)
	if got := out.written(); !bytes.Contains([]byte(got), []byte(`"id":7`)) {
		t.Fatalf("idle, but the output holds only %q", got)
	}
	l.End()
	if lost := w.Close(); lost != 0 {
		t.Fatalf("lost %d", lost)
	}
}
