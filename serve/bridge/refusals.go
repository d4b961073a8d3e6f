package bridge

import (
	"bytes"
	"io"
	"sync"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/capture/stdio"
	"github.com/mcpsnoop/mcpsnoop/serve"
)

// RefusalLog records the messages the HTTP layer answered itself (a
// refused Host or Origin, a header mismatch, an unknown session): they
// never reached a server, so they belong to no server's log. Each is two
// frames of an HTTP log of the bridge's own, opened on the first: the
// request as the client sent it, and the answer, a status frame with
// "by_proxy": true and reply_to naming the request, which `mcpsnoop check`
// reports as a note of the transport's, never as the server's error.
type RefusalLog struct {
	open    func() (io.WriteCloser, capture.LogOptions)
	command []string

	mu     sync.Mutex
	w      *capture.LogWriter
	opened bool
}

// NewRefusalLog records refusals in the log open opens (a nil output: none),
// whose meta frame names command, the server the bridge runs.
func NewRefusalLog(command []string, open func() (io.WriteCloser, capture.LogOptions)) *RefusalLog {
	return &RefusalLog{open: open, command: command}
}

// refusalInfo is what a refusal's frames carry.
type refusalInfo struct {
	host, origin, accept, contentType, version, method, name string
	status                                                   int
	replyTo                                                  []byte
}

// Record logs one refusal.
func (l *RefusalLog) Record(r serve.Refused) {
	w := l.writer()
	if w == nil {
		return
	}
	h := r.Request.Header
	info := &refusalInfo{
		host: r.Request.Host, origin: h.Get("Origin"), accept: h.Get("Accept"), contentType: h.Get("Content-Type"),
		version: h.Get("Mcp-Protocol-Version"), method: h.Get("Mcp-Method"), name: h.Get("Mcp-Name"),
		status: r.Status, replyTo: bytes.Clone(r.ID),
	}
	w.Add(capture.ClientToServer, nil, info, bytes.Clone(r.Body), false)
	w.Add(capture.ServerToClient, nil, info, nil, false)
}

// Close closes the log, if one was opened, returning the frames it lost.
func (l *RefusalLog) Close() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.w == nil {
		return 0
	}
	return l.w.Close()
}

// Path is the log's path, "" before the first refusal.
func (l *RefusalLog) Path() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.w == nil {
		return ""
	}
	return l.w.Path()
}

func (l *RefusalLog) writer() *capture.LogWriter {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.opened {
		return l.w
	}
	l.opened = true
	if l.open == nil {
		return nil
	}
	out, o := l.open()
	if out == nil {
		return nil
	}
	o.Transport, o.Framer = capture.TransportHTTP, refusalFramer{}
	l.w = capture.NewLogWriter(out, o)
	l.w.Meta(stdio.NewMeta(l.command))
	return l.w
}

// refusalFramer frames the refusal log.
type refusalFramer struct{}

func (refusalFramer) Frames(o *capture.Observation, out []capture.Frame) []capture.Frame {
	x, ok := o.Info.(*refusalInfo)
	if !ok { // the meta frame
		return append(out, capture.Frame{TS: o.TS, Direction: o.Direction, Raw: o.Data})
	}
	f := capture.Frame{TS: o.TS, Direction: o.Direction, Transport: capture.TransportHTTP, Host: x.host, Origin: x.origin}
	if o.Direction == capture.ServerToClient {
		f.Status, f.ByProxy, f.ReplyTo = x.status, true, x.replyTo
		return append(out, f)
	}
	if len(bytes.TrimSpace(o.Data)) == 0 {
		return out // no body: the refusal says what was refused
	}
	f.Accept, f.ContentType, f.McpProtocolVersion, f.McpMethod, f.McpName = x.accept, x.contentType, x.version, x.method, x.name
	var scratch bytes.Buffer
	if raw, ok := capture.CompactJSON(o.Data, &scratch); ok {
		f.Raw = bytes.Clone(raw)
	} else {
		f.Text = string(o.Data)
		if len(f.Text) > capture.MaxLogLine {
			f.Text, f.Truncated = f.Text[:capture.MaxLogLine], true
		}
	}
	return append(out, f)
}

func (refusalFramer) Written(*capture.Observation, []capture.Frame) {}
