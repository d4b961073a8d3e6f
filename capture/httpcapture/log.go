package httpcapture

import (
	"encoding/json"
	"io"
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture"
)

// Log writes the session log of one HTTP proxy run through the one log
// writer every capture uses (capture.LogWriter): one bounded queue, one
// writer goroutine, wire order, drops counted and never waited for, every
// lost frame a gap in seq, the capture.Redactor applied on the writer's
// goroutine before anything is written.
//
// What the proxy queues is an HTTP observation (a request body, a response
// body, one SSE event, a bare status), which can hold several messages (a
// JSON-RPC batch); how many is known only once its last byte has been
// seen, but its place in the log is fixed before that, when its first byte
// is forwarded. The writer frames it (see framer) and gives its frames the
// next seqs, in queue order. An observation that gives no frame (an empty
// request body) takes no seq; one that is dropped takes one, left unused.
//
// An observation still open at the head of the queue (a request body the
// client sends slowly, a response body the server streams slowly) holds
// the line, but only for a short while (StallBound): past that the writer
// parks it and goes on with the observations behind it, except those of the
// same exchange, which wait behind it. So within one exchange frames are
// always in wire order (a response is never logged before its request);
// across exchanges they are in wire order unless an observation stayed open
// longer than the stall bound, in which case it is logged when it finishes
// (its ts still says when it began).
type Log struct {
	w   *capture.LogWriter
	mem *memBudget // the log copies of bodies still being observed
	// warn carries the log's warnings (lost frames, the memory budget):
	// never waited for, so a full stderr delays neither the writer nor a
	// forwarded body. Close closes it when it was made here (ownWarn).
	warn    *capture.Notices
	ownWarn bool
}

// StallBound is how long an open observation holds up the observations
// behind it before the log goes on without it (see Log).
const StallBound = time.Second

// What an observation is.
const (
	obsRequest  = iota // a request body: c2s frames
	obsResponse        // a response body or one SSE event: s2c frames
	obsZChunk          // a chunk of a compressed event stream: the events it completes
	obsZEnd            // the end of a compressed event stream: its last events
)

// observation is one HTTP observation as the proxy hands it to the log.
type observation struct {
	kind      int
	x         *exchange
	resp      *responseInfo // s2c only
	coding    string        // a whole response body in this content-coding
	z         *zstream      // obsZChunk, obsZEnd
	clean     bool          // obsZEnd: the stream ended cleanly
	body      []byte
	truncated bool
}

// exchange is what the log records of one HTTP request. Its fields are set
// before the request's first observation is queued and only read after,
// except replyTo, which only the writer goroutine touches.
type exchange struct {
	conn        string
	httpMethod  string // the request's HTTP method
	httpPath    string // its URL path, without the query
	method      string // Mcp-Method
	name        string // Mcp-Name
	version     string // MCP-Protocol-Version
	params      []capture.ParamHeader
	contentType string
	accept      string
	origin      string
	host        string // the Host header the client sent
	// replyTo is the raw id of the body's JSON-RPC request, when the body
	// was exactly one request; set by the writer when it writes the body.
	replyTo json.RawMessage
}

// responseInfo is what the log records of one HTTP response.
type responseInfo struct {
	status      int
	challenge   string
	contentType string
	streamEmpty bool // the marker of an event stream that ended without an event
	byProxy     bool // the proxy's own answer (a refusal); the server never saw the request
}

// LogOptions configures a Log.
type LogOptions struct {
	SessionID string
	Label     string
	Path      string            // how messages name the log
	Redactor  *capture.Redactor // applied to every frame before it is written; nil for none
	// Warn is where the log's warnings go (lost frames, the memory
	// budget), through a capture.Notices (Warn itself when it is one), so
	// that nothing waits on it; nil for nowhere.
	Warn io.Writer
	// MaxSize bounds the bytes of frames the log writes (0: no bound), as
	// capture.LogOptions.MaxSize.
	MaxSize int64
	// MaxBodyMemory bounds the memory held for the log copies of all the
	// bodies and SSE events being observed at once (DefaultBodyMemory when
	// 0, no bound when negative). Past it, a body's copy is not extended:
	// the body is forwarded in full and logged as the fragment kept so far,
	// marked truncated, like a body over capture.MaxLogLine.
	MaxBodyMemory int

	stall      time.Duration // StallBound when 0; for tests
	queueBytes int           // the writer queue's memory budget (capture.QueueBytes when 0); for tests
}

// DefaultBodyMemory is the default LogOptions.MaxBodyMemory.
const DefaultBodyMemory = 256 << 20

// NewLog starts writing frames of the HTTP session o.SessionID to out,
// which it closes on Close.
func NewLog(out io.WriteCloser, o LogOptions) *Log {
	return newLog(out, o, 0)
}

func newLog(out io.WriteCloser, o LogOptions, queue int) *Log {
	stall := o.stall
	if stall <= 0 {
		stall = StallBound
	}
	l := &Log{}
	l.warn, l.ownWarn = capture.NoticesFor(o.Warn)
	var warn io.Writer
	if l.warn != nil {
		warn = l.warn
	}
	l.w = capture.NewLogWriter(out, capture.LogOptions{
		SessionID: o.SessionID, Label: o.Label, Transport: capture.TransportHTTP, Path: o.Path,
		Redactor: o.Redactor, Warn: warn, MaxSize: o.MaxSize,
		Framer: framer{}, Stall: stall, Queue: queue, QueueMemory: o.queueBytes,
	})
	l.mem = newMemBudget(o.MaxBodyMemory, l.warn)
	return l
}

// Path is the log's path as given in LogOptions.
func (l *Log) Path() string { return l.w.Path() }

// SessionID is the id every frame of this log carries.
func (l *Log) SessionID() string { return l.w.SessionID() }

// Lost is how many frames were dropped from the log so far.
func (l *Log) Lost() uint64 { return l.w.Lost() }

// Close stops taking observations, writes those queued (ones begun but
// never finished are lost), and closes the file. It returns how many
// frames were lost in all.
func (l *Log) Close() uint64 {
	lost := l.w.Close()
	if l.ownWarn {
		l.warn.Close(capture.NoticeFlush)
	}
	return lost
}

// begin queues an observation whose content comes later (finish), or now
// when its body is given with done set. It returns the observation's
// ticket.
func (l *Log) begin(o observation, done bool) capture.Ticket {
	dir := capture.ServerToClient
	if o.kind == obsRequest {
		dir = capture.ClientToServer
	}
	info := &obsInfo{kind: o.kind, x: o.x, resp: o.resp, coding: o.coding, z: o.z, clean: o.clean}
	if done {
		if o.kind == obsZChunk {
			return l.w.AddStream(dir, o.x, info, o.body)
		}
		return l.w.Add(dir, o.x, info, o.body, o.truncated)
	}
	return l.w.Begin(dir, o.x, info)
}

// meta queues the session's meta frame; before any other, it is seq 1.
func (l *Log) meta(m capture.SessionMeta) { l.w.Meta(m) }

// add queues a finished observation.
func (l *Log) add(o observation) { l.begin(o, true) }

// finish gives a begun observation its content: the bytes observed (an
// empty request body gives no frame, an empty response body a bare status).
func (l *Log) finish(t capture.Ticket, body []byte, truncated bool) {
	l.w.Finish(t, body, truncated)
}
