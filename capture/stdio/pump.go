package stdio

import (
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture"
)

// pumpBuffer is how much one read may take: a pipe holds 64 KiB.
const pumpBuffer = 64 << 10

// pump copies src to dst chunk by chunk as it arrives, with no buffering
// of its own, showing each chunk to the splitter (when there is a log)
// before forwarding it and handing the lines it ends to the log after.
// It returns when src ends or fails.
//
// When dst fails, pump keeps reading src, so that the peer writing to it is
// never blocked by one that went away, and forwards nothing more. With
// gone set, dst is the client: pump then also stops logging (what it reads
// reaches nobody; a line the failed chunk left open is logged as far as it
// got, truncated) and reports the failure to gone, once.
//
// With gate set, each chunk is logged (numbered, forwarded, filled) inside
// the gate, so that whoever closes the log can first close the gate and
// wait for a chunk in the middle of being logged (see logGate); once the
// gate is closed pump forwards without logging.
func pump(src io.Reader, dst io.Writer, l *capture.LineSplitter, gone func(error), gate *logGate) {
	var buf []byte
	if l == nil {
		buf = make([]byte, pumpBuffer)
	}
	flusher, _ := dst.(interface{ Flush() error })
	dstOK := true
	for {
		if l != nil {
			buf = l.Buffer(pumpBuffer)
		}
		n, err := src.Read(buf)
		if n > 0 {
			chunk := buf[:n:n]
			if l != nil && !gate.enter() {
				// The log is being closed: what comes now is forwarded only.
				// A line left open is lost with the log's close, counted.
				l = nil
				buf = make([]byte, pumpBuffer)
			}
			if l != nil {
				l.Number(chunk)
			}
			var werr error
			if dstOK {
				if _, werr = dst.Write(chunk); werr != nil {
					dstOK = false
				} else if flusher != nil {
					_ = flusher.Flush()
				}
			}
			if l != nil {
				if hook := testHookForwarded.Load(); hook != nil {
					(*hook)(gate)
				}
				l.Fill()
				gate.leave()
			}
			if werr != nil && gone != nil {
				if l != nil {
					l.Cut()
					l = nil
					buf = make([]byte, pumpBuffer)
				}
				gone(werr)
			}
		}
		if err != nil {
			if l != nil {
				l.End()
			}
			return
		}
	}
}

// testHookForwarded, when set (by tests), runs in pump between forwarding
// a logged chunk and handing its lines to the log.
var testHookForwarded atomic.Pointer[func(gate *logGate)]

// logGate lets the log be closed while a pump that is not waited for (the
// client's: once the server is gone there is nobody to forward to) still
// runs. pump numbers a chunk's lines before forwarding it and hands them
// to the log after; a log closed in between would lose lines that were
// forwarded whole (the request a crashing server read last), each a seq
// gap. close shuts the gate after the chunk in flight, if any, is handed
// over: no chunk is numbered after that. A nil gate is always open.
type logGate struct {
	mu     sync.Mutex
	busy   bool          // a chunk is between enter and leave
	closed bool          // no more chunks are logged
	idle   chan struct{} // closed by leave, when close waits
}

// enter starts logging a chunk; false means the gate is closed.
func (g *logGate) enter() bool {
	if g == nil {
		return true
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return false
	}
	g.busy = true
	return true
}

// leave ends logging a chunk.
func (g *logGate) leave() {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.busy = false
	if g.idle != nil {
		close(g.idle)
		g.idle = nil
	}
}

// close shuts the gate, waiting at most max for a chunk being logged (its
// write to the server may block when something the server started holds
// its stdin open without reading it).
func (g *logGate) close(max time.Duration) {
	g.mu.Lock()
	g.closed = true
	if !g.busy {
		g.mu.Unlock()
		return
	}
	idle := make(chan struct{})
	g.idle = idle
	g.mu.Unlock()
	if hook := testHookGateWait.Load(); hook != nil {
		(*hook)()
	}
	t := time.NewTimer(max)
	defer t.Stop()
	select {
	case <-idle:
	case <-t.C:
	}
}

// testHookGateWait, when set (by tests), runs when logGate.close starts
// waiting for a chunk.
var testHookGateWait atomic.Pointer[func()]
