package stdio

import (
	"bytes"
	"io"
	"sync"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/capture"
)

// memLog is an in-memory log file; block, when set, holds every write until
// it is closed, and entered is told when a write is waiting.
type memLog struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	fail    error
	block   chan struct{}
	entered chan struct{}
	closed  bool
}

func (m *memLog) Write(p []byte) (int, error) {
	if m.block != nil {
		select {
		case m.entered <- struct{}{}:
		default:
		}
		<-m.block
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fail != nil {
		return 0, m.fail
	}
	return m.buf.Write(p)
}

func (m *memLog) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed = true
	return nil
}

func (m *memLog) frames(t *testing.T) []capture.Frame {
	t.Helper()
	m.mu.Lock()
	data := bytes.Clone(m.buf.Bytes())
	m.mu.Unlock()
	r := capture.NewReader(bytes.NewReader(data), "log")
	var out []capture.Frame
	for {
		f, _, err := r.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("%v\n%s", err, data)
		}
		out = append(out, f.Clone())
	}
}

func newTestLog(out io.WriteCloser, warn io.Writer) *capture.LogWriter {
	return capture.NewLogWriter(out, capture.LogOptions{SessionID: "srv-1-aaaaaaaaaaaa", Label: "srv", Path: "test.jsonl", Warn: warn})
}

func (m *memLog) isClosed() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.closed
}
