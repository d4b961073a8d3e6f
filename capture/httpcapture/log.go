package httpcapture

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture"
)

// Log writes the session log of one HTTP proxy run. It is the HTTP
// counterpart of capture.LogWriter and keeps its contract: one bounded
// queue, one writer goroutine, wire order, drops counted and never waited
// for, the capture.Redactor applied on the writer's goroutine before
// anything is written.
//
// What differs is the unit it queues. An HTTP observation (a request body,
// a response body, one SSE event, a bare status) can hold several messages
// (a JSON-RPC batch), and how many is known only once its last byte has
// been seen; its place in the log must be fixed before that, when its first
// byte is forwarded. So an observation takes its place in the queue (and
// its timestamp) under the lock that hands it to the writer, and the writer
// gives it as many seqs as it has frames, in queue order. Queue order is
// wire order, so the seq order is too. An observation that gives no frame
// (an empty request body) takes no seq; one that is dropped takes one seq,
// left unused, so readers count it as missing.
//
// An observation still open at the head of the queue (a request body the
// client sends slowly, a response body the server streams slowly) holds
// the line, but only for a short while (LogOptions stall, StallBound by
// default): the writer waits that long for it, so that in the usual case
// the log is in wire order across exchanges too. Past that, the writer
// parks it and goes on with the observations behind it, except those of
// the same exchange, which are parked behind it. A parked observation is
// written, with the next seqs, once it finishes, and its exchange's parked
// observations after it, in their order. So the rule is: within one
// exchange, frames are always in wire order (a response is never logged
// before its request); across exchanges, they are in wire order unless an
// observation stayed open longer than the stall bound, in which case it is
// logged when it finishes, after frames of other exchanges that began
// later (its ts still says when it began). A parked observation still
// counts against the queue's bounds; one still open at Close is lost.
type Log struct {
	sessionID string
	label     string
	path      string
	out       io.WriteCloser
	red       *capture.Redactor
	warn      io.Writer

	mu       sync.Mutex
	ring     []observation
	head     uint64
	tail     uint64
	bytes    int
	skip     uint64 // seqs lost since the last queued observation
	stall    time.Duration
	parked   []parkedObs       // observations passed over by the line, in queue order
	parkedX  map[*exchange]int // how many observations of an exchange are parked
	mem      *memBudget        // the log copies of bodies still being observed
	closed   bool
	waiting  bool
	lost     uint64
	reason   string
	warned   bool
	wake     chan struct{}
	finished chan struct{}
}

// ticket names a begun observation until it is finished.
type ticket struct {
	pos uint64
	ok  bool // false: the observation was dropped when it began
}

// parkedObs is an observation the line went past while it was still
// open, or that waits behind one of its exchange's.
type parkedObs struct {
	pos uint64
	o   observation
}

// StallBound is how long an open observation holds up the observations
// behind it before the log goes on without it (see Log).
const StallBound = time.Second

// What an observation is.
const (
	obsRequest  = iota // a request body: c2s frames
	obsResponse        // a response body or one SSE event: s2c frames
)

// observation is one queued HTTP observation.
type observation struct {
	kind      int
	ts        time.Time
	skip      uint64 // seqs left unused just before this one
	x         *exchange
	resp      *responseInfo // s2c only
	body      []byte
	truncated bool
	ready     bool // content known
	drop      bool // lost: leave one seq unused
	gap       bool // only skip: the seqs lost before a parked observation
}

// exchange is what the log records of one HTTP request. Its fields are set
// before the request's first observation is queued and only read after,
// except replyTo, which only the writer goroutine touches.
type exchange struct {
	conn        string
	method      string // Mcp-Method
	name        string // Mcp-Name
	version     string // MCP-Protocol-Version
	params      []capture.ParamHeader
	contentType string
	accept      string
	origin      string
	// replyTo is the raw id of the body's JSON-RPC request, when the body
	// was exactly one request; set by the writer when it writes the body.
	replyTo json.RawMessage
}

// responseInfo is what the log records of one HTTP response.
type responseInfo struct {
	status      int
	challenge   string
	contentType string
}

// LogOptions configures an Log.
type LogOptions struct {
	SessionID string
	Label     string
	Path      string            // how messages name the log
	Redactor  *capture.Redactor // applied to every frame before it is written; nil for none
	Warn      io.Writer         // where the one warning about lost frames goes; nil for nowhere
	// MaxBodyMemory bounds the memory held for the log copies of all the
	// bodies and SSE events being observed at once (DefaultBodyMemory when
	// 0, no bound when negative). Past it, a body's copy is not extended:
	// the body is forwarded in full and logged as the fragment kept so far,
	// marked truncated, like a body over capture.MaxLogLine.
	MaxBodyMemory int

	stall time.Duration // StallBound when 0; for tests
}

// DefaultBodyMemory is the default LogOptions.MaxBodyMemory.
const DefaultBodyMemory = 256 << 20

// NewLog starts writing frames of the HTTP session o.SessionID to out,
// which it closes on Close.
func NewLog(out io.WriteCloser, o LogOptions) *Log {
	return newLog(out, o, capture.QueueFrames)
}

func newLog(out io.WriteCloser, o LogOptions, queue int) *Log {
	l := &Log{
		sessionID: o.SessionID, label: o.Label, path: o.Path, out: out, red: o.Redactor, warn: o.Warn,
		ring: make([]observation, queue), wake: make(chan struct{}, 1), finished: make(chan struct{}),
		stall: o.stall, parkedX: map[*exchange]int{},
		mem: newMemBudget(o.MaxBodyMemory, o.Warn),
	}
	if l.stall <= 0 {
		l.stall = StallBound
	}
	go l.loop()
	return l
}

// Path is the log's path as given in LogOptions.
func (l *Log) Path() string { return l.path }

// SessionID is the id every frame of this log carries.
func (l *Log) SessionID() string { return l.sessionID }

// Lost is how many observations were dropped from the log so far.
func (l *Log) Lost() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lost
}

// begin queues an observation whose content comes later (finish), or now
// when body is given with done set. It returns the observation's ticket.
func (l *Log) begin(o observation, done bool) ticket {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return ticket{}
	}
	if l.tail-l.head+uint64(len(l.parked)) >= uint64(len(l.ring)) {
		// When an exchange that stalled mid-body holds the head of the
		// queue, everything behind it waits; give that one up rather than
		// all that follows, so a stall costs one observation.
		stalled := false
		if h := &l.ring[l.head%uint64(len(l.ring))]; l.head < l.tail && !h.ready {
			h.ready, h.drop, stalled = true, true, true
			l.loseLocked("an exchange stalled at the head of the write queue")
		}
		l.loseLocked("the write queue is full")
		l.skip++
		l.wakeLocked(stalled)
		return ticket{}
	}
	body, truncated := o.body, o.truncated
	o.body, o.truncated, o.ready, o.drop = nil, false, false, false
	o.ts = time.Now()
	o.skip, l.skip = l.skip, 0
	t := ticket{pos: l.tail, ok: true}
	l.ring[l.tail%uint64(len(l.ring))] = o
	l.tail++
	// An open observation at the head still wakes the writer, which then
	// knows how long it may hold the line.
	wake := t.pos == l.head
	if done {
		wake = l.fillLocked(t, body, truncated)
	}
	l.wakeLocked(wake)
	return t
}

// add queues a finished observation.
func (l *Log) add(o observation) { l.begin(o, true) }

// finish gives a begun observation its content: the bytes observed (an
// empty request body gives no frame, an empty response body a bare status).
func (l *Log) finish(t ticket, body []byte, truncated bool) {
	if !t.ok {
		return
	}
	l.mu.Lock()
	if t.pos >= l.tail {
		l.mu.Unlock()
		return
	}
	if t.pos < l.head {
		for i := range l.parked {
			if p := &l.parked[i]; p.pos == t.pos {
				l.wakeLocked(l.fillObsLocked(&p.o, body, truncated))
				return
			}
		}
		l.mu.Unlock() // taken as lost by Close
		return
	}
	l.wakeLocked(l.fillLocked(t, body, truncated))
}

// fillLocked stores an observation's content and reports whether it is at
// the head of the queue (so the writer has work).
func (l *Log) fillLocked(t ticket, body []byte, truncated bool) bool {
	return l.fillObsLocked(&l.ring[t.pos%uint64(len(l.ring))], body, truncated) && t.pos == l.head
}

// fillObsLocked stores an observation's content; it reports false when
// the observation already had its content.
func (l *Log) fillObsLocked(o *observation, body []byte, truncated bool) bool {
	if o.ready {
		return false
	}
	if l.bytes+len(body) > capture.QueueBytes {
		o.drop = true
		l.loseLocked("an observation did not fit the queue's memory budget")
	} else {
		o.body, o.truncated = body, truncated
		l.bytes += len(body)
	}
	o.ready = true
	return true
}

// wakeLocked releases the lock, waking the writer when it sleeps and has
// work.
func (l *Log) wakeLocked(work bool) {
	if work && l.waiting {
		l.waiting = false
		l.mu.Unlock()
		select {
		case l.wake <- struct{}{}:
		default:
		}
		return
	}
	l.mu.Unlock()
}

func (l *Log) loseLocked(reason string) {
	l.lost++
	if l.reason == "" {
		l.reason = reason
	}
}

// Close stops taking observations, writes those queued (ones begun but
// never finished are lost), and closes the file. It returns how many
// observations were lost in all.
func (l *Log) Close() uint64 {
	l.mu.Lock()
	if !l.closed {
		l.closed = true
		l.waiting = false
		select {
		case l.wake <- struct{}{}:
		default:
		}
	}
	l.mu.Unlock()
	<-l.finished
	return l.Lost()
}

// popLocked moves what can be written into batch, in order: parked
// observations that have finished and wait for no earlier one of their
// exchange, then the ready observations at the head of the queue. An open
// observation at the head holds the line until it has been open for the
// stall bound; then it is parked, and so is every later observation of its
// exchange while it is. Once closed, open observations go too, as drops.
// When an open observation holds the line, popLocked also returns how long
// until it is parked.
func (l *Log) popLocked(batch []observation) ([]observation, time.Duration) {
	if len(l.parked) > 0 {
		blocked := map[*exchange]bool{}
		kept := l.parked[:0]
		for _, p := range l.parked {
			switch {
			case blocked[p.o.x]:
			case !p.o.ready && !l.closed:
				blocked[p.o.x] = true
			default:
				if !p.o.ready {
					p.o.drop = true
					l.loseLocked("an exchange was still open when the capture ended")
				}
				batch = append(batch, p.o)
				l.bytes -= len(p.o.body)
				if l.parkedX[p.o.x]--; l.parkedX[p.o.x] == 0 {
					delete(l.parkedX, p.o.x)
				}
				continue
			}
			kept = append(kept, p)
		}
		clear(l.parked[len(kept):])
		l.parked = kept
	}
	n := uint64(len(l.ring))
	var wait time.Duration
	for l.head < l.tail {
		o := &l.ring[l.head%n]
		park := l.parkedX[o.x] > 0
		if !o.ready && !park {
			if l.closed {
				o.drop = true
				l.loseLocked("an exchange was still open when the capture ended")
			} else if open := time.Since(o.ts); open < l.stall {
				wait = l.stall - open
				break
			} else {
				park = true
			}
		}
		if park {
			if o.skip > 0 {
				batch = append(batch, observation{skip: o.skip, gap: true})
				o.skip = 0
			}
			l.parked = append(l.parked, parkedObs{pos: l.head, o: *o})
			l.parkedX[o.x]++
		} else {
			batch = append(batch, *o)
			l.bytes -= len(o.body)
		}
		*o = observation{}
		l.head++
	}
	return batch, wait
}

// loop is the writer goroutine. It writes what is queued in big chunks and
// flushes whenever the queue runs dry, so the log is never far behind the
// wire, and at least every MaxFlushDelay under steady traffic.
func (l *Log) loop() {
	defer close(l.finished)
	var (
		buf       bytes.Buffer
		enc       = json.NewEncoder(&buf)
		batch     []observation
		frames    []capture.Frame
		seq       uint64
		pending   uint64 // frames in buf
		dead      bool
		lastFlush = time.Now()
	)
	enc.SetEscapeHTML(false)
	flush := func() {
		lastFlush = time.Now()
		if pending > 0 && !dead {
			if _, err := l.out.Write(buf.Bytes()); err != nil {
				dead = true
				l.mu.Lock()
				l.lost += pending
				if l.reason == "" {
					l.reason = fmt.Sprintf("writing failed: %v", err)
				}
				l.mu.Unlock()
			}
		}
		pending = 0
		buf.Reset()
		if buf.Cap() > 2*capture.WriteBuffer {
			buf = bytes.Buffer{} // let one huge body's buffer go, as LogWriter does
		}
	}
	var timer *time.Timer
	for {
		l.mu.Lock()
		var wait time.Duration
		batch, wait = l.popLocked(batch[:0])
		if len(batch) == 0 {
			if l.closed {
				l.mu.Unlock()
				flush()
				_ = l.out.Close()
				l.warnOnce()
				return
			}
			if pending > 0 {
				l.mu.Unlock()
				flush()
				l.warnOnce()
				continue
			}
			l.waiting = true
			l.mu.Unlock()
			if wait <= 0 {
				<-l.wake
				continue
			}
			// An open observation holds the line: wake up when it is due
			// to be parked, unless work comes first.
			if timer == nil {
				timer = time.NewTimer(wait)
			} else {
				timer.Reset(wait)
			}
			select {
			case <-l.wake:
				timer.Stop()
			case <-timer.C:
				l.mu.Lock()
				l.waiting = false
				l.mu.Unlock()
			}
			continue
		}
		l.mu.Unlock()
		for i := range batch {
			o := &batch[i]
			seq += o.skip
			if o.gap {
				continue
			}
			if o.drop {
				seq++
				continue
			}
			frames = l.frames(o, frames[:0])
			for k := range frames {
				f := &frames[k]
				seq++
				f.Seq = seq
				l.red.Apply(f)
				if o.kind == obsRequest && len(frames) == 1 && !f.Batch {
					o.x.replyTo = requestID(f.Raw)
				}
				if dead {
					l.mu.Lock()
					l.loseLocked("")
					l.mu.Unlock()
					continue
				}
				if err := enc.Encode(f); err != nil {
					// Only a bad Raw can fail, and Raw was validated.
					l.mu.Lock()
					l.loseLocked(fmt.Sprintf("encoding failed: %v", err))
					l.mu.Unlock()
					continue
				}
				pending++
			}
			clear(frames)
			*o = observation{}
			if buf.Len() >= capture.WriteBuffer {
				flush()
			}
		}
		if time.Since(lastFlush) >= capture.MaxFlushDelay {
			flush()
		}
		l.warnOnce()
	}
}

// warnOnce prints the one warning about lost frames, the first time there
// are any.
func (l *Log) warnOnce() {
	l.mu.Lock()
	if l.warned || l.lost == 0 {
		l.mu.Unlock()
		return
	}
	l.warned = true
	reason := l.reason
	l.mu.Unlock()
	if l.warn != nil {
		fmt.Fprintf(l.warn, "mcpsnoop: warning: frames are being dropped from the log %s (%s); traffic is not affected\n", l.path, reason)
	}
}

// frames turns an observation into the frames to write, without seqs.
//
// A request's routing headers (Mcp-Method, Mcp-Name, Mcp-Param-*) ride
// only the first frame of a batch; the transport's (MCP-Protocol-Version,
// Content-Type, Accept, Origin, the connection, and a response's status,
// challenge and Content-Type) ride every frame. A response frame carries
// reply_to, the id of the exchange's request, when it says nothing a
// checker could match to that request by itself: no body, or a body that is
// not JSON-RPC on an HTTP error status.
func (l *Log) frames(o *observation, out []capture.Frame) []capture.Frame {
	x := o.x
	base := capture.Frame{SessionID: l.sessionID, ServerLabel: l.label, TS: o.ts, Transport: capture.TransportHTTP, ConnID: x.conn}
	if o.kind == obsRequest {
		base.Direction = capture.ClientToServer
		base.McpProtocolVersion = x.version
		base.ContentType, base.Accept, base.Origin = x.contentType, x.accept, x.origin
	} else {
		base.Direction = capture.ServerToClient
		base.Status, base.AuthChallenge, base.ContentType = o.resp.status, o.resp.challenge, o.resp.contentType
	}
	parts, batch := splitBody(o.body, o.truncated)
	if len(parts) == 0 {
		if o.kind == obsRequest {
			return out // an empty request body is no message
		}
		f := base
		f.ReplyTo = x.replyTo
		return append(out, f)
	}
	for i, p := range parts {
		f := base
		f.Batch = batch
		if p.json {
			f.Raw = p.data
		} else {
			f.Text, f.Truncated = string(p.data), o.truncated
		}
		if o.kind == obsRequest && i == 0 {
			f.McpMethod, f.McpName = x.method, x.name
			if len(x.params) > 0 {
				f.McpParamHeaders = append([]capture.ParamHeader(nil), x.params...) // redaction edits its copy
			}
		}
		if o.kind == obsResponse && o.resp.status >= 400 && !batch && (!p.json || !looksJSONRPC(p.data) || answersNobody(p.data)) {
			f.ReplyTo = x.replyTo
		}
		out = append(out, f)
	}
	return out
}

// bodyPart is one value of an observed body: compact JSON, or text.
type bodyPart struct {
	data []byte
	json bool
}

// splitBody cuts an observed body into what the log keeps of it: each
// element of a non-empty JSON array (a batch), else one JSON value
// (compacted), else the text. A body of only whitespace has no part. A
// truncated body is kept as its fragment, unparsed.
func splitBody(body []byte, truncated bool) (parts []bodyPart, batch bool) {
	if truncated {
		return []bodyPart{{data: body}}, false
	}
	b := trimWS(body)
	if len(b) == 0 {
		return nil, false
	}
	if b[0] == '[' {
		if elems, ok := capture.ArrayElements(b); ok && len(elems) > 0 {
			for _, e := range elems {
				parts = append(parts, compactPart(e))
			}
			return parts, true
		}
	}
	return []bodyPart{compactPart(b)}, false
}

func compactPart(b []byte) bodyPart {
	var scratch bytes.Buffer
	raw, ok := capture.CompactJSON(b, &scratch)
	if !ok {
		return bodyPart{data: b}
	}
	return bodyPart{data: raw, json: true}
}

// trimWS trims JSON whitespace from both ends of b.
func trimWS(b []byte) []byte { return bytes.Trim(b, " \t\r\n") }

// requestID is the raw id of a JSON-RPC request (a string method and an
// id, the first of each name as a checker reads them), else nil.
func requestID(raw []byte) json.RawMessage {
	var method, id []byte
	capture.ObjectMembers(raw, func(name string, v []byte) {
		switch {
		case name == "method" && method == nil:
			method = v
		case name == "id" && id == nil:
			id = v
		}
	})
	if len(method) == 0 || method[0] != '"' || id == nil {
		return nil
	}
	return bytes.Clone(id)
}

// looksJSONRPC reports whether raw is an object with a member only a
// JSON-RPC message has: jsonrpc, method, result or error.
func looksJSONRPC(raw []byte) bool {
	rpc := false
	capture.ObjectMembers(raw, func(name string, _ []byte) {
		switch name {
		case "jsonrpc", "method", "result", "error":
			rpc = true
		}
	})
	return rpc
}

// answersNobody reports a JSON-RPC response whose id is null or missing,
// as servers write when they refuse a request before reading its id (the
// TypeScript SDK's 400 and 404). The HTTP exchange still says which request
// it was, so the frame carries reply_to too.
func answersNobody(data []byte) bool {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if json.Unmarshal(data, &m) != nil || m.Method != "" || (m.Result == nil && m.Error == nil) {
		return false
	}
	return len(m.ID) == 0 || string(m.ID) == "null"
}
