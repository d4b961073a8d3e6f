package serve

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/internal/hostcheck"
	"github.com/mcpsnoop/mcpsnoop/internal/termsafe"
)

// Defaults of Options.
const (
	DefaultPath    = "/mcp"
	DefaultHold    = 2 * time.Second
	DefaultMaxBody = 32 << 20
)

// Options configure a Handler.
type Options struct {
	// Name names the handler in its answers and notices ("mcpsnoop bridge").
	Name string
	// Path is the MCP endpoint (DefaultPath when empty); other paths are 404.
	Path    string
	Backend Backend
	// Guard is the loopback Host/Origin check; nil checks nothing.
	Guard *hostcheck.Policy
	// Notices takes the handler's lines for the user; nil drops them.
	Notices *capture.Notices
	// OnRefuse, when set, is told of every message the handler answered
	// itself and never forwarded (a refused Origin, a header mismatch, an
	// unknown session), after the answer is written.
	OnRefuse func(Refused)
	// SessionIdle ends a session that has had nothing in flight and no GET
	// stream for this long, as a DELETE would; 0 keeps sessions until
	// DELETE, their server's exit, or Close.
	SessionIdle time.Duration
	// Hold is how long a 2026-07-28 event stream waits for its first
	// message before it commits to 200 (DefaultHold when zero).
	Hold time.Duration
	// MaxBody bounds a request body (DefaultMaxBody when zero).
	MaxBody int64
}

// Refused is a message the handler answered itself.
type Refused struct {
	Request *http.Request
	Body    []byte // the request's body as read (nil when there was none)
	ID      []byte // the id of the refused request, when it had one
	Status  int
	Reason  string
}

// Handler serves MCP's Streamable HTTP transport at one endpoint, for the
// peers its Backend starts.
type Handler struct {
	name     string
	path     string
	backend  Backend
	guard    *hostcheck.Policy
	notices  *capture.Notices
	onRefuse func(Refused)
	idle     time.Duration
	hold     time.Duration
	maxBody  int64

	sharedMu sync.Mutex // held while the shared peer starts
	mu       sync.Mutex
	sessions map[string]*session
	shared   *line
	closed   bool
	dropped  atomic.Int64
	params   toolParams // the shared peer's tools' Mcp-Param bindings
}

// NewHandler returns a handler; Close ends its peers.
func NewHandler(o Options) *Handler {
	h := &Handler{
		name: o.Name, path: o.Path, backend: o.Backend, guard: o.Guard, notices: o.Notices,
		onRefuse: o.OnRefuse, idle: o.SessionIdle, hold: o.Hold, maxBody: o.MaxBody,
		sessions: map[string]*session{},
	}
	if h.name == "" {
		h.name = "mcpsnoop"
	}
	if h.path == "" {
		h.path = DefaultPath
	}
	if h.hold <= 0 {
		h.hold = DefaultHold
	}
	if h.maxBody <= 0 {
		h.maxBody = DefaultMaxBody
	}
	return h
}

// Dropped is how many of the servers' messages had no stream to go to.
func (h *Handler) Dropped() int64 { return h.dropped.Load() }

// Sessions is how many sessions are open.
func (h *Handler) Sessions() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.sessions)
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != h.path {
		http.NotFound(w, r)
		return
	}
	if why := h.guard.CheckRequest(r); why != nil {
		body, _ := io.ReadAll(io.LimitReader(r.Body, h.maxBody))
		hostcheck.Refuse(w, why, h.name)
		// The refusal names the request it answers, so that a check of
		// the log settles it as refused rather than leave it pending.
		h.refused(r, body, idOf(parseMessage(bytes.TrimSpace(body))), http.StatusForbidden, why.Error())
		return
	}
	switch r.Method {
	case http.MethodPost:
		h.post(w, r)
	case http.MethodGet:
		h.get(w, r)
	case http.MethodDelete:
		h.delete(w, r)
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		http.Error(w, h.name+": method not allowed", http.StatusMethodNotAllowed)
	}
}

// post handles one JSON-RPC message.
func (h *Handler) post(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.maxBody))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			h.answer(w, r, body, nil, refuse(http.StatusRequestEntityTooLarge, 0, "the request body is larger than %d bytes", mbe.Limit))
			return
		}
		return // the client went away mid-body
	}
	if mt := capture.MediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		h.answer(w, r, body, nil, refuse(http.StatusUnsupportedMediaType, 0, "Content-Type must be application/json, got %q", mt))
		return
	}
	if firstByte(body) == '[' {
		h.answer(w, r, body, nil, refuse(http.StatusBadRequest, codeInvalidRequest, "JSON-RPC batches are not supported"))
		return
	}
	var scratch bytes.Buffer
	raw, ok := capture.CompactJSON(body, &scratch)
	if !ok {
		h.answer(w, r, body, nil, refuse(http.StatusBadRequest, codeParseError, "the body is not JSON"))
		return
	}
	raw = bytes.Clone(raw)
	m := parseMessage(raw)
	if m.kind == kindInvalid {
		h.answer(w, r, body, nil, refuse(http.StatusBadRequest, codeInvalidRequest, "the body is no JSON-RPC request, notification or response"))
		return
	}
	if modernRequest(r, m) {
		h.postModern(w, r, m)
		return
	}
	h.postSession(w, r, m)
}

// postModern handles a message that declares 2026-07-28: the shared peer.
func (h *Handler) postModern(w http.ResponseWriter, r *http.Request, m message) {
	id := idOf(m)
	if m.kind == kindResponse {
		h.answer(w, r, m.raw, id, refuse(http.StatusBadRequest, codeInvalidRequest, "a 2026-07-28 client sends no responses"))
		return
	}
	if why := checkModernHeaders(r.Header, m); why != nil {
		h.answer(w, r, m.raw, id, why)
		return
	}
	if why := h.params.check(r.Header, m); why != nil {
		h.answer(w, r, m.raw, id, why)
		return
	}
	md := answerMode(r.Header.Get("Accept"))
	if m.kind == kindRequest && md == modeNone {
		h.answer(w, r, m.raw, id, refuse(http.StatusNotAcceptable, codeInvalidRequest, "Accept must name application/json or text/event-stream"))
		return
	}
	l, err := h.sharedLine()
	if err != nil {
		h.answer(w, r, m.raw, id, refuse(http.StatusBadGateway, codeInternalError, "%v", err))
		return
	}
	if m.kind == kindNotification {
		h.forward(w, r, l, m)
		return
	}
	h.exchange(w, r, l, m, newStream(md, true), nil)
}

// postSession handles a message of a session (2025-11-25 and earlier).
func (h *Handler) postSession(w http.ResponseWriter, r *http.Request, m message) {
	id := idOf(m)
	md := answerMode(r.Header.Get("Accept"))
	if m.kind == kindRequest && md == modeNone {
		h.answer(w, r, m.raw, id, refuse(http.StatusNotAcceptable, codeInvalidRequest, "Accept must name application/json or text/event-stream"))
		return
	}
	sid := r.Header.Get(headerSessionID)
	var s *session
	switch {
	case sid != "":
		if s = h.lookup(sid); s == nil {
			h.answer(w, r, m.raw, id, refuse(http.StatusNotFound, codeInvalidRequest, "no session %q: it ended, or never was", sid))
			return
		}
	case m.method == "initialize":
		var err error
		if s, err = h.newSession(); err != nil {
			h.answer(w, r, m.raw, id, refuse(http.StatusBadGateway, codeInternalError, "%v", err))
			return
		}
		defer h.deactivate(s) // newSession counts the initialize as in flight
	default:
		h.answer(w, r, m.raw, id, refuse(http.StatusBadRequest, codeInvalidRequest, "the %s header is required: send initialize first", headerSessionID))
		return
	}
	if m.kind != kindRequest {
		h.activate(s)
		defer h.deactivate(s)
		h.forward(w, r, s.line, m)
		return
	}
	out := newStream(md, false)
	if m.method == "initialize" {
		out.header.Set(headerSessionID, s.id)
	}
	h.exchange(w, r, s.line, m, out, s)
}

// forward sends a notification or a response: 202 once the server has it.
func (h *Handler) forward(w http.ResponseWriter, r *http.Request, l *line, m message) {
	if why := l.notify(m); why != nil {
		h.answer(w, r, m.raw, idOf(m), why)
		return
	}
	w.WriteHeader(http.StatusAccepted)
}

// exchange sends a request and serves its answer.
func (h *Handler) exchange(w http.ResponseWriter, r *http.Request, l *line, m message, out *stream, s *session) {
	h.activate(s)
	defer h.deactivate(s)
	x, why := l.request(m, out)
	if why != nil {
		h.answer(w, r, m.raw, idOf(m), why)
		return
	}
	if !out.serve(r.Context(), w, h.hold) && r.Context().Err() != nil {
		l.clientGone(x)
	}
}

// answer writes a refusal of the handler's own and reports it.
func (h *Handler) answer(w http.ResponseWriter, r *http.Request, body, id []byte, why *refusal) {
	text := h.name + ": " + why.text
	if why.code != 0 {
		writeJSON(w, nil, why.status, errorResponse(id, why.code, text))
	} else {
		http.Error(w, text, why.status)
	}
	h.refused(r, body, id, why.status, why.text)
}

func (h *Handler) refused(r *http.Request, body, id []byte, status int, why string) {
	if h.onRefuse != nil {
		h.onRefuse(Refused{Request: r, Body: body, ID: id, Status: status, Reason: why})
	}
}

// idOf is the raw id of a request, nil for anything else.
func idOf(m message) []byte {
	if m.kind != kindRequest {
		return nil
	}
	return []byte(m.id.Raw)
}

// sharedLine returns the peer of 2026-07-28 requests, starting it on the
// first such request and again after it has exited.
func (h *Handler) sharedLine() (*line, error) {
	h.sharedMu.Lock()
	defer h.sharedMu.Unlock()
	h.mu.Lock()
	l, closed := h.shared, h.closed
	h.mu.Unlock()
	if closed {
		return nil, errClosed
	}
	if l != nil && !l.isGone() {
		return l, nil
	}
	l = newLine(h, true, nil)
	if err := h.start(l); err != nil {
		return nil, err
	}
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		l.peer.Close()
		return nil, errClosed
	}
	h.shared = l
	h.mu.Unlock()
	h.say(l.peer.Name() + ": started for 2026-07-28 requests (shared by every client)")
	return l, nil
}

var errClosed = errors.New("shutting down")

// start starts the peer of l.
func (h *Handler) start(l *line) error {
	ready := make(chan struct{})
	peer, err := h.backend.Start(StartParams{
		Modern:  l.modern,
		Deliver: func(msg []byte) { <-ready; l.deliver(msg) },
		Ended:   func(why string) { <-ready; h.lineEnded(l, why) },
	})
	if err != nil {
		return err
	}
	l.peer = peer
	close(ready)
	return nil
}

func (l *line) isGone() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.gone
}

// lineEnded is told that a peer has exited.
func (h *Handler) lineEnded(l *line, why string) {
	unanswered, dropped := l.ended(why)
	h.mu.Lock()
	closing := h.closed
	if l.sess != nil && h.sessions[l.sess.id] == l.sess {
		delete(h.sessions, l.sess.id)
	}
	if h.shared == l {
		h.shared = nil
	}
	h.mu.Unlock()
	if l.sess != nil {
		l.sess.stopTimer()
	}
	msg := l.peer.Name() + ": the server exited (" + why + ")"
	if unanswered > 0 {
		msg += "; " + plural(unanswered, "request") + " it left unanswered got an error"
	}
	if dropped > 0 {
		msg += "; " + plural(dropped, "message") + " of its had no open stream to go to and were dropped"
	}
	if !closing || unanswered > 0 || dropped > 0 {
		h.say(msg)
	}
}

// Close ends every session and the shared peer, and the streams still
// open. It does not wait for the servers to exit (the backend knows).
func (h *Handler) Close() {
	h.mu.Lock()
	h.closed = true
	lines := make([]*line, 0, len(h.sessions)+1)
	for _, s := range h.sessions {
		lines = append(lines, s.line)
		s.stopTimer()
	}
	if h.shared != nil {
		lines = append(lines, h.shared)
	}
	h.mu.Unlock()
	for _, l := range lines {
		l.abort()
		l.peer.Note(h.name + ": shutting down: ending the server")
		l.peer.Close()
	}
}

func (h *Handler) say(msg string) {
	h.notices.Say(termsafe.Clean(h.name+": "+msg, false) + "\n")
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return itoa(n) + " " + what + "s"
}
