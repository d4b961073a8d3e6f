package bridge

import (
	"bytes"
	"sync"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/internal/termsafe"
)

// lineWriter is a server's stdout as the shim forwards it: it cuts the
// bytes into lines and delivers each one, compacted when it is JSON. It
// never fails a write, which the shim would take for a client gone.
type lineWriter struct {
	deliver  func(msg []byte)
	buf      []byte
	skipping bool // the line in progress passed maxMessage: dropped
	scratch  bytes.Buffer
}

func (w *lineWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			if !w.skipping {
				w.buf = append(w.buf, p...)
				if len(w.buf) > maxMessage {
					w.buf, w.skipping = nil, true
				}
			}
			break
		}
		if !w.skipping {
			w.buf = append(w.buf, p[:i]...)
			w.emit()
		}
		w.buf, w.skipping = w.buf[:0], false
		p = p[i+1:]
	}
	return n, nil
}

func (w *lineWriter) emit() {
	line := bytes.TrimSpace(w.buf)
	if len(line) == 0 {
		return // an empty line is no message
	}
	w.scratch.Reset()
	if raw, ok := capture.CompactJSON(line, &w.scratch); ok {
		line = raw
	}
	w.deliver(bytes.Clone(line))
}

// stderrWriter passes a server's stderr on to the bridge's notices, line
// by line, each prefixed with the server it came from and escaped (it is
// the server's text, bound for a terminal or a CI log).
type stderrWriter struct {
	p   *process
	mu  sync.Mutex
	buf []byte
}

// maxStderrLine bounds one stderr line passed on; the log keeps it whole.
const maxStderrLine = 4096

func (w *stderrWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := len(b)
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			w.buf = append(w.buf, b[:min(len(b), max(0, maxStderrLine-len(w.buf)))]...)
			break
		}
		w.buf = append(w.buf, b[:min(i, max(0, maxStderrLine-len(w.buf)))]...)
		w.flush()
		b = b[i+1:]
	}
	return n, nil
}

func (w *stderrWriter) flush() {
	line := string(bytes.TrimRight(w.buf, "\r"))
	w.buf = w.buf[:0]
	if n := w.p.b.o.Notices; n != nil {
		n.Say(w.p.Name() + ": " + termsafe.Clean(line, false) + "\n")
	}
}

// framer frames a server's log as the shim's own log would be framed (one
// frame per line), marking the lines the bridge itself wrote to the server
// with by_proxy.
type framer struct {
	mu  sync.Mutex
	own map[string]int
}

func newFramer() *framer { return &framer{own: map[string]int{}} }

// expect says msg is about to be written by the bridge itself.
func (f *framer) expect(msg []byte) {
	f.mu.Lock()
	f.own[string(msg)]++
	f.mu.Unlock()
}

// take reports whether data is a message the bridge wrote, once each.
func (f *framer) take(data []byte) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := f.own[string(data)]
	if n == 0 {
		return false
	}
	if n == 1 {
		delete(f.own, string(data))
	} else {
		f.own[string(data)] = n - 1
	}
	return true
}

func (f *framer) Frames(o *capture.Observation, out []capture.Frame) []capture.Frame {
	fr := capture.Frame{TS: o.TS, Direction: o.Direction}
	if o.JSON {
		fr.Raw = o.Data
		fr.ByProxy = o.Direction == capture.ClientToServer && f.take(o.Data)
	} else {
		fr.Text, fr.Truncated = string(o.Data), o.Truncated
	}
	return append(out, fr)
}

func (f *framer) Written(*capture.Observation, []capture.Frame) {}
