package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/checker"
	"github.com/mcpsnoop/mcpsnoop/checker/tooldef"
)

// Revisions the replay tells apart.
const (
	// Modern is the first revision without the initialize handshake: every
	// request carries its own _meta, and servers ask the client for input
	// through MRTR results instead of requests of their own.
	Modern = "2026-07-28"
	// DefaultLegacy is the revision a replay initializes with when the
	// recording shows no handshake and no sign of Modern.
	DefaultLegacy = "2025-11-25"
)

// Recording is one recorded session, reduced to what a replay sends and
// what it answers with.
type Recording struct {
	Source    string // the log as reports name it (the path as given, or stdin)
	Path      string // "" for stdin
	SessionID string
	Label     string
	Transport string // stdio or http

	// Command and Cwd come from the stdio shim's meta frame.
	Command []string
	Cwd     string

	// Revision is the protocol revision the session spoke ("" unknown):
	// the one initialize negotiated, else a request's _meta or header,
	// else Modern when the recording holds an MRTR input_required result.
	Revision string
	// Init is the recorded initialize request; nil when there was none
	// (a Modern session, or a capture that began after the handshake).
	Init *Request
	// Steps are the client's other requests and notifications in wire
	// order. MRTR retries are folded into the request they continue.
	Steps []*Request

	// modern is set when the session shows the Modern revision without
	// an initialize handshake.
	modern bool
	// ownMeta is set when a modern session's requests declare no revision
	// in their _meta (a hand-made or cut capture): the replay then gives
	// each request a _meta of its own, since there is none to keep.
	ownMeta bool
	// answers are the client's recorded answers to server requests, by
	// method, in order.
	answers map[string][]recordedAnswer
	// listing is the recorded tool listing: every tool of the last
	// tools/list, pages together.
	listing  map[string]tooldef.Tool
	listed   bool
	capsUsed map[string]bool // input kinds the server asked for (elicitation, sampling, roots)

	// What the check engine made of the session: each call as it ended
	// (by id and start), and the session's summary.
	calls    map[string]checker.CallRecord
	report   *checker.SessionReport
	sessions int // sessions in the log
}

// recordedAnswer is the client's answer to a server request: the whole
// response message, and whether redaction changed it at capture (its
// placeholders are then never sent).
type recordedAnswer struct {
	msg      json.RawMessage
	redacted bool
}

// callKey names a call by its first request's raw id and timestamp.
func callKey(id string, start time.Time) string {
	return id + "\x00" + start.UTC().Format(time.RFC3339Nano)
}

// Request is one client message of a recorded session.
type Request struct {
	Seq  uint64
	Line int
	TS   time.Time
	// ID is the raw JSON id; nil for a notification.
	ID     json.RawMessage
	Method string
	// Name is the operation name: params.name of tools/call and
	// prompts/get, params.uri of resources/read.
	Name string
	// Params are the recorded params, nil when there were none.
	Params json.RawMessage
	// Declared is the revision the request's own _meta declares ("" when
	// it declares none): such a request is replayed with its recorded
	// _meta, whatever the session spoke.
	Declared string
	// Headers are the recorded Mcp-Param-* headers (HTTP).
	Headers []capture.ParamHeader
	// Redacted: mcpsnoop's redaction changed this frame when it was
	// recorded. Truncated: the frame was cut at capture and holds no
	// message.
	Redacted, Truncated bool
	ConnID              string

	// Answer is the recorded final answer; nil when none arrived.
	Answer *Answer
	// Rounds are the inputResponses the client sent on each MRTR retry,
	// in order.
	Rounds []map[string]json.RawMessage
	// roundsRedacted says which retries redaction changed at capture:
	// their inputResponses are never sent.
	roundsRedacted []bool

	parked     bool   // its last answer was input_required
	issued     string // the requestState of that answer
	issuedSet  bool
	retryLines []int
	retrySeqs  []uint64
	// lastID is the id of the last request of the call (its last MRTR
	// retry), the one its final answer answers; lastTS is when it was
	// sent. answerLines are the lines of every answer (input_required
	// ones included).
	lastID      json.RawMessage
	lastTS      time.Time
	answerLines []int
}

// Notification reports whether the message has no id.
func (r *Request) Notification() bool { return r.ID == nil }

// Answer is what answered a request.
type Answer struct {
	Seq  uint64
	Line int
	TS   time.Time
	// Message is the JSON-RPC response; nil when the answer was an HTTP
	// status without one (Status, Text).
	Message json.RawMessage
	Status  int
	Text    string
}

// message is the part of a JSON-RPC message a recording reads.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

func (m *message) hasID() bool { return len(m.ID) > 0 }

// Load reads the session sessionID ("" for the first) of the log in.
func Load(in capture.Input, stdin io.Reader, sessionID string) (*Recording, error) {
	rec := &Recording{Source: in.Name, Path: in.Path, SessionID: sessionID,
		answers: map[string][]recordedAnswer{}, listing: map[string]tooldef.Tool{}, capsUsed: map[string]bool{},
		calls: map[string]checker.CallRecord{}}
	b := &builder{rec: rec, open: map[string]*Request{}, serverReqs: map[string]string{}}
	eng := checker.New(checker.Config{OnCall: func(c checker.CallRecord) {
		rec.calls[callKey(c.ID, c.Start)] = c
	}})
	seen := map[string]bool{}
	lost := func() {}
	err := in.Read(stdin, nil, func(f *capture.Frame, line int) bool {
		if f.SessionID == "" {
			return false
		}
		if !seen[f.SessionID] {
			seen[f.SessionID] = true
			rec.sessions++
		}
		if rec.SessionID == "" {
			rec.SessionID = f.SessionID
		}
		if f.SessionID == rec.SessionID {
			b.frame(f, line)
			eng.Ingest(f, checker.Position{Path: in.Path, Name: in.Name, Line: line})
			lost = eng.TornTail
		} else {
			lost = func() {}
		}
		return true
	}, func() { lost() })
	if err != nil {
		return nil, err
	}
	if !b.seen {
		return nil, fmt.Errorf("%s: no session %q in this log", in.Name, sessionID)
	}
	b.finish()
	if r := eng.Report(); len(r.Sessions) > 0 {
		rec.report = r.Sessions[0]
	}
	return rec, nil
}

// builder folds frames into a Recording.
type builder struct {
	rec  *Recording
	seen bool
	// open maps a request's key (id and connection) to the request it
	// belongs to: a step, the handshake, or the step an MRTR retry
	// continues.
	open map[string]*Request
	// serverReqs maps a server request's key to its method, until the
	// client answers it.
	serverReqs map[string]string
	// listPage collects a tools/list answer's pages.
	pendingList map[string]tooldef.Tool
	headerRev   string
	metaRev     string
	// mrtr: an answer was an MRTR input_required result, which only a
	// 2026-07-28 exchange carries (a resultType alone says nothing: a
	// server may write it under any revision).
	mrtr bool
}

func key(id json.RawMessage, conn string) string { return string(id) + "\x00" + conn }

func (b *builder) frame(f *capture.Frame, line int) {
	b.seen = true
	rec := b.rec
	if f.ServerLabel != "" {
		rec.Label = f.ServerLabel
	}
	if rec.Transport == "" && f.Transport != "" {
		rec.Transport = f.Transport
	}
	switch f.Direction {
	case capture.Meta:
		var m capture.SessionMeta
		if json.Unmarshal(f.Raw, &m) == nil {
			rec.Command, rec.Cwd = m.Command, m.Cwd
		}
	case capture.ClientToServer:
		if f.McpProtocolVersion != "" && b.headerRev == "" {
			b.headerRev = f.McpProtocolVersion
		}
		if len(f.Raw) == 0 {
			if f.Truncated {
				rec.Steps = append(rec.Steps, &Request{Seq: f.Seq, Line: line, TS: f.TS, Truncated: true, ID: json.RawMessage("null"), ConnID: f.ConnID})
			}
			return
		}
		b.eachMessage(f.Raw, func(raw []byte, first bool) { b.clientMessage(f, raw, line, first) })
	case capture.ServerToClient:
		if len(f.Raw) == 0 {
			if f.Status != 0 && len(f.ReplyTo) > 0 {
				if r := b.open[key(f.ReplyTo, f.ConnID)]; r != nil {
					r.Answer = &Answer{Seq: f.Seq, Line: line, TS: f.TS, Status: f.Status, Text: f.Text}
					r.answerLines = append(r.answerLines, line)
					r.parked = false
				}
			}
			return
		}
		b.eachMessage(f.Raw, func(raw []byte, _ bool) { b.serverMessage(f, raw, line) })
	}
}

// eachMessage calls fn for the message in raw, or for each element of a
// batch (a stdio array); first is true for the first one.
func (b *builder) eachMessage(raw []byte, fn func(raw []byte, first bool)) {
	if t := bytes.TrimLeft(raw, " \t\r\n"); len(t) > 0 && t[0] == '[' {
		if elems, ok := capture.ArrayElements(raw); ok {
			for i, e := range elems {
				fn(e, i == 0)
			}
		}
		return
	}
	fn(raw, true)
}

func (b *builder) clientMessage(f *capture.Frame, raw []byte, line int, first bool) {
	var m message
	if json.Unmarshal(raw, &m) != nil {
		return
	}
	rec := b.rec
	switch {
	case m.Method != "":
		rev := metaRevision(m.Params)
		if rev != "" && b.metaRev == "" {
			b.metaRev = rev
		}
		r := &Request{Seq: f.Seq, Line: line, TS: f.TS, Method: m.Method, Params: nonNull(m.Params), Declared: rev,
			Redacted: f.Redacted, ConnID: f.ConnID, Name: operationName(m.Method, m.Params)}
		if m.hasID() {
			r.ID = m.ID
		}
		r.lastID, r.lastTS = r.ID, r.TS
		if first {
			r.Headers = f.McpParamHeaders
		}
		if !r.Notification() {
			if root := b.retryOf(r); root != nil {
				root.Rounds = append(root.Rounds, inputResponses(r.Params))
				root.roundsRedacted = append(root.roundsRedacted, r.Redacted)
				root.retryLines = append(root.retryLines, line)
				root.retrySeqs = append(root.retrySeqs, f.Seq)
				root.lastID, root.lastTS = r.ID, r.TS
				root.parked = false
				b.open[key(r.ID, r.ConnID)] = root
				return
			}
		}
		switch {
		case m.Method == "initialize" && !r.Notification() && rec.Init == nil:
			rec.Init = r
		case m.Method == "notifications/initialized":
			return // the replay's handshake sends its own
		default:
			rec.Steps = append(rec.Steps, r)
		}
		if !r.Notification() {
			b.open[key(r.ID, r.ConnID)] = r
		}
	case m.hasID() && (m.Result != nil || m.Error != nil):
		// The client answering a server request.
		k := key(m.ID, f.ConnID)
		if method, ok := b.serverReqs[k]; ok {
			delete(b.serverReqs, k)
			rec.answers[method] = append(rec.answers[method], recordedAnswer{msg: json.RawMessage(bytes.Clone(raw)), redacted: f.Redacted})
		}
	}
}

func (b *builder) serverMessage(f *capture.Frame, raw []byte, line int) {
	var m message
	if json.Unmarshal(raw, &m) != nil {
		return
	}
	switch {
	case m.Method != "" && m.hasID():
		b.serverReqs[key(m.ID, f.ConnID)] = m.Method
		b.noteAsked(m.Method)
	case m.Method == "" && m.hasID() && (m.Result != nil || m.Error != nil):
		r := b.open[key(m.ID, f.ConnID)]
		if r == nil {
			return
		}
		r.Answer = &Answer{Seq: f.Seq, Line: line, TS: f.TS, Message: json.RawMessage(bytes.Clone(raw)), Status: f.Status}
		r.answerLines = append(r.answerLines, line)
		var res struct {
			ResultType    string                     `json:"resultType"`
			RequestState  *string                    `json:"requestState"`
			InputRequests map[string]json.RawMessage `json:"inputRequests"`
			NextCursor    *string                    `json:"nextCursor"`
			Tools         []json.RawMessage          `json:"tools"`
		}
		if len(m.Result) > 0 && json.Unmarshal(m.Result, &res) == nil {
			r.parked = res.ResultType == "input_required"
			if r.parked {
				b.mrtr = true
				r.issued, r.issuedSet = "", res.RequestState != nil
				if res.RequestState != nil {
					r.issued = *res.RequestState
				}
				for _, ir := range res.InputRequests {
					var q struct {
						Method string `json:"method"`
					}
					if json.Unmarshal(ir, &q) == nil {
						b.noteAsked(q.Method)
					}
				}
			}
			if r.Method == "tools/list" {
				b.listPage(r, res.Tools, res.NextCursor != nil)
			}
		}
		if r == b.rec.Init {
			var ir struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			if json.Unmarshal(m.Result, &ir) == nil && ir.ProtocolVersion != "" {
				b.rec.Revision = ir.ProtocolVersion
			}
		}
	}
}

// noteAsked remembers which client capabilities the server relied on.
func (b *builder) noteAsked(method string) {
	switch method {
	case "elicitation/create":
		b.rec.capsUsed["elicitation"] = true
	case "sampling/createMessage":
		b.rec.capsUsed["sampling"] = true
	case "roots/list":
		b.rec.capsUsed["roots"] = true
	}
}

// listPage adds one tools/list page to the recorded listing: a request
// without a cursor starts a new listing, the last page completes it.
func (b *builder) listPage(r *Request, tools []json.RawMessage, more bool) {
	var p struct {
		Cursor *string `json:"cursor"`
	}
	_ = json.Unmarshal(r.Params, &p)
	if p.Cursor == nil || b.pendingList == nil {
		b.pendingList = map[string]tooldef.Tool{}
	}
	for _, raw := range tools {
		if t, ok := tooldef.Parse(raw); ok {
			if _, dup := b.pendingList[t.Name]; !dup {
				b.pendingList[t.Name] = t
			}
		}
	}
	if !more {
		b.rec.listing, b.rec.listed = b.pendingList, true
		b.pendingList = nil
	}
}

// retryOf finds the parked request r continues, as the checker links MRTR
// retries: the request whose answer issued the requestState r echoes, else
// the one parked request with the same method and operation name.
func (b *builder) retryOf(r *Request) *Request {
	var p struct {
		RequestState   *string                    `json:"requestState"`
		InputResponses map[string]json.RawMessage `json:"inputResponses"`
	}
	if len(r.Params) == 0 || json.Unmarshal(r.Params, &p) != nil || (p.RequestState == nil && len(p.InputResponses) == 0) {
		return nil
	}
	var candidate *Request
	n := 0
	for i := len(b.rec.Steps) - 1; i >= 0; i-- {
		s := b.rec.Steps[i]
		if !s.parked || s.ConnID != r.ConnID {
			continue
		}
		if p.RequestState != nil && s.issuedSet && s.issued == *p.RequestState {
			return s
		}
		if s.Method == r.Method && s.Name == r.Name {
			if candidate == nil {
				candidate = s
			}
			n++
		}
	}
	if n == 1 {
		return candidate
	}
	return nil
}

func (b *builder) finish() {
	rec := b.rec
	if rec.Revision == "" && rec.Init != nil {
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		if json.Unmarshal(rec.Init.Params, &p) == nil {
			rec.Revision = p.ProtocolVersion
		}
	}
	if rec.Revision == "" {
		rec.Revision = b.metaRev
	}
	if rec.Revision == "" {
		rec.Revision = b.headerRev
	}
	if rec.Revision == "" && b.mrtr {
		rec.Revision = Modern
	}
	rec.modern = rec.Init == nil && rec.Revision >= Modern
	rec.ownMeta = rec.modern && b.metaRev == ""
	if rec.Transport == "" {
		rec.Transport = capture.TransportStdio
	}
}

// Modern reports whether the session spoke the Modern revision or later.
func (rec *Recording) Modern() bool { return rec.modern }

// Listed reports whether the recording holds a complete tool listing.
func (rec *Recording) Listed() bool { return rec.listed }

// Tool is the recorded definition of a tool.
func (rec *Recording) Tool(name string) (tooldef.Tool, bool) {
	t, ok := rec.listing[name]
	return t, ok
}

// Find returns the recorded request the frame at seq belongs to: the
// request itself, the request an MRTR retry continues, or the request an
// answer answers. nil when seq is none of them.
func (rec *Recording) Find(seq uint64) *Request {
	for _, r := range rec.Steps {
		if r.Seq == seq || (r.Answer != nil && r.Answer.Seq == seq) {
			return r
		}
		for _, s := range r.retrySeqs {
			if s == seq {
				return r
			}
		}
	}
	return nil
}

// FindLine is Find by log line, for frames that carry no seq. It also
// finds MRTR retries by their line.
func (rec *Recording) FindLine(line int) *Request {
	for _, r := range rec.Steps {
		if r.Line == line || (r.Answer != nil && r.Answer.Line == line) {
			return r
		}
		for _, l := range r.retryLines {
			if l == line {
				return r
			}
		}
	}
	return nil
}

// operationName is the name a request operates on: params.name for
// tools/call and prompts/get, params.uri for the resources methods.
func operationName(method string, params json.RawMessage) string {
	var p struct {
		Name string `json:"name"`
		URI  string `json:"uri"`
	}
	if len(params) == 0 || json.Unmarshal(params, &p) != nil {
		return ""
	}
	switch method {
	case "tools/call", "prompts/get":
		return p.Name
	case "resources/read", "resources/subscribe", "resources/unsubscribe":
		return p.URI
	}
	return ""
}

// metaRevision is the protocol version a request's _meta declares.
func metaRevision(params json.RawMessage) string {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if len(params) == 0 || json.Unmarshal(params, &p) != nil {
		return ""
	}
	var v string
	_ = json.Unmarshal(p.Meta[metaProtocolVersion], &v)
	return v
}

// inputResponses are the inputResponses of an MRTR retry's params.
func inputResponses(params json.RawMessage) map[string]json.RawMessage {
	var p struct {
		InputResponses map[string]json.RawMessage `json:"inputResponses"`
	}
	_ = json.Unmarshal(params, &p)
	if p.InputResponses == nil {
		return map[string]json.RawMessage{}
	}
	return p.InputResponses
}

func nonNull(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	return raw
}
