package serve

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// session is one MCP session of a revision up to 2025-11-25: an
// Mcp-Session-Id and the peer it started.
type session struct {
	id   string
	line *line

	mu     sync.Mutex
	active int         // requests in flight and GET streams open
	timer  *time.Timer // the idle bound, armed while nothing is active
}

// newSessionID is an Mcp-Session-Id: 128 random bits in hex, visible
// ASCII as the transport asks.
func newSessionID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
	return hex.EncodeToString(b[:])
}

// newSession starts a peer for a new session; its initialize counts as in
// flight (the caller deactivates it).
func (h *Handler) newSession() (*session, error) {
	s := &session{id: newSessionID(), active: 1}
	s.line = newLine(h, false, s)
	if err := h.start(s.line); err != nil {
		return nil, err
	}
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		s.line.peer.Close()
		return nil, errClosed
	}
	h.sessions[s.id] = s
	h.mu.Unlock()
	h.say(fmt.Sprintf("%s: started for session %s…", s.line.peer.Name(), s.id[:8]))
	return s, nil
}

func (h *Handler) lookup(id string) *session {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.sessions[id]
}

// activate counts a request or stream of s as in flight (s may be nil).
func (h *Handler) activate(s *session) {
	if s == nil {
		return
	}
	s.mu.Lock()
	s.active++
	if s.timer != nil {
		s.timer.Stop()
		s.timer = nil
	}
	s.mu.Unlock()
}

// deactivate ends one; with nothing left in flight the idle bound starts.
func (h *Handler) deactivate(s *session) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.active--
	if s.active == 0 && h.idle > 0 && s.timer == nil {
		s.timer = time.AfterFunc(h.idle, func() { h.expire(s) })
	}
}

func (s *session) stopTimer() {
	s.mu.Lock()
	if s.timer != nil {
		s.timer.Stop()
		s.timer = nil
	}
	s.mu.Unlock()
}

// expire ends s if it is still idle.
func (h *Handler) expire(s *session) {
	s.mu.Lock()
	idle := s.active == 0 && s.timer != nil
	s.timer = nil
	s.mu.Unlock()
	if idle && !s.line.busy() {
		h.endSession(s, fmt.Sprintf("the session had nothing in flight for %s", h.idle))
	}
}

// endSession forgets s and ends its peer; the requests still in flight
// are answered when it has exited.
func (h *Handler) endSession(s *session, why string) bool {
	h.mu.Lock()
	if h.sessions[s.id] != s {
		h.mu.Unlock()
		return false
	}
	delete(h.sessions, s.id)
	h.mu.Unlock()
	s.stopTimer()
	s.line.peer.Note(h.name + ": " + why + ": ending the server")
	h.say(s.line.peer.Name() + ": " + why + ": ending the server")
	s.line.peer.Close()
	return true
}

// sessionOf finds the session a GET or DELETE names, answering when there
// is none: 405 for a 2026-07-28 client (it has no sessions), 400 without
// an Mcp-Session-Id, 404 for one that is not open.
func (h *Handler) sessionOf(w http.ResponseWriter, r *http.Request) *session {
	if isModern(r.Header.Get(headerProtocolVersion)) {
		w.Header().Set("Allow", "POST")
		http.Error(w, h.name+": 2026-07-28 has no sessions: only POST", http.StatusMethodNotAllowed)
		return nil
	}
	sid := r.Header.Get(headerSessionID)
	if sid == "" {
		http.Error(w, h.name+": the "+headerSessionID+" header is required", http.StatusBadRequest)
		return nil
	}
	s := h.lookup(sid)
	if s == nil {
		http.Error(w, h.name+": no session "+strconv.Quote(sid)+": it ended, or never was", http.StatusNotFound)
	}
	return s
}

// get serves a session's GET stream: the server's messages tied to no
// request. One at a time (409 for a second).
func (h *Handler) get(w http.ResponseWriter, r *http.Request) {
	s := h.sessionOf(w, r)
	if s == nil {
		return
	}
	if !acceptsEvents(r.Header.Get("Accept")) {
		http.Error(w, h.name+": a GET stream is text/event-stream: Accept must name it", http.StatusNotAcceptable)
		return
	}
	out := newStream(modeSSE, false)
	if !s.line.setGet(out) {
		http.Error(w, h.name+": this session's GET stream is open already", http.StatusConflict)
		return
	}
	h.activate(s)
	defer h.deactivate(s)
	out.serve(r.Context(), w, 0)
	s.line.clearGet(out)
}

// delete ends a session and its server.
func (h *Handler) delete(w http.ResponseWriter, r *http.Request) {
	s := h.sessionOf(w, r)
	if s == nil {
		return
	}
	h.endSession(s, "the client ended the session (DELETE)")
	w.WriteHeader(http.StatusNoContent)
}

func itoa(n int) string { return strconv.Itoa(n) }
