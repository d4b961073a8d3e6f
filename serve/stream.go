package serve

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/tidwall/gjson"
)

// mode is how one HTTP response carries its messages.
type mode int

const (
	modeNone mode = iota // the client accepts neither
	modeJSON             // one JSON body: the final response only
	modeSSE              // an event stream: notifications, server requests, then the response
)

// answerMode picks the answer a request's Accept header asks for: an event
// stream when it names text/event-stream (the only way the server's own
// messages about the request can reach the client), else JSON when it
// names application/json or any type (or says nothing).
func answerMode(accept string) mode {
	if strings.TrimSpace(accept) == "" {
		return modeJSON
	}
	json := false
	for _, part := range strings.Split(accept, ",") {
		typ, params, _ := strings.Cut(part, ";")
		if refused(params) {
			continue
		}
		switch strings.ToLower(strings.TrimSpace(typ)) {
		case "text/event-stream":
			return modeSSE
		case "application/json", "application/*", "*/*":
			json = true
		}
	}
	if json {
		return modeJSON
	}
	return modeNone
}

// acceptsEvents reports whether an Accept header takes an event stream (a
// GET's must).
func acceptsEvents(accept string) bool {
	for _, part := range strings.Split(accept, ",") {
		typ, params, _ := strings.Cut(part, ";")
		switch strings.ToLower(strings.TrimSpace(typ)) {
		case "text/event-stream", "text/*", "*/*":
			if !refused(params) {
				return true
			}
		}
	}
	return false
}

// refused reports whether media-range parameters say q=0.
func refused(params string) bool {
	for _, p := range strings.Split(params, ";") {
		k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
		if strings.EqualFold(k, "q") {
			v = strings.TrimRight(strings.TrimSpace(v), "0")
			return v == "0." || v == "0" || v == ""
		}
	}
	return false
}

// streamBudget bounds the bytes queued for one client that reads slower
// than its server writes; past it the stream is ended (the client gets no
// more of it) rather than hold the server up or grow without bound.
const streamBudget = 64 << 20

// stream is the queue of messages for one HTTP response, written by the
// goroutine serving that response. Delivering to it never waits on the
// client's network.
type stream struct {
	mode   mode
	modern bool // 2026-07-28: a lone protocol error goes as JSON with its status
	header http.Header

	mu    sync.Mutex
	queue [][]byte
	bytes int
	final bool // the last message is queued
	ended bool // nothing more will be queued
	over  bool // ended because the client fell behind by streamBudget
	wake  chan struct{}
}

func newStream(m mode, modern bool) *stream {
	return &stream{mode: m, modern: modern, header: http.Header{}, wake: make(chan struct{}, 1)}
}

// push queues msg, the last one when final; false means the stream takes
// no more (it ended, or the client fell too far behind and it ends now).
func (s *stream) push(msg []byte, final bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return false
	}
	if s.bytes+len(msg) > streamBudget {
		s.ended, s.over = true, true
		s.signal()
		return false
	}
	s.queue = append(s.queue, msg)
	s.bytes += len(msg)
	if final {
		s.final, s.ended = true, true
	}
	s.signal()
	return true
}

// end says nothing more will come.
func (s *stream) end() {
	s.mu.Lock()
	s.ended = true
	s.signal()
	s.mu.Unlock()
}

func (s *stream) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// take returns what is queued and whether the stream has ended.
func (s *stream) take() (msgs [][]byte, ended, final bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	msgs, s.queue, s.bytes = s.queue, nil, 0
	return msgs, s.ended, s.final
}

// wait blocks until something is queued or the stream ends (true), or the
// client is gone (false).
func (s *stream) wait(ctx context.Context) bool {
	select {
	case <-s.wake:
		return true
	case <-ctx.Done():
		return false
	}
}

// serve writes the stream to w until its final message is written (true),
// it ends without one, or the client is gone (false). hold is how long a
// 2026-07-28 event stream waits for its first message before it commits to
// 200: a request the server refuses with a protocol error is then answered
// as JSON with that error's status, as the revision asks.
func (s *stream) serve(ctx context.Context, w http.ResponseWriter, hold time.Duration) bool {
	if s.mode == modeJSON {
		return s.serveJSON(ctx, w)
	}
	var first [][]byte
	if s.modern && hold > 0 {
		t := time.NewTimer(hold)
		defer t.Stop()
		for expired := false; !expired; {
			msgs, ended, final := s.take()
			first = append(first, msgs...)
			if len(first) > 0 || ended {
				if final && len(first) == 1 {
					if status := protocolErrorStatus(first[0]); status != http.StatusOK {
						writeJSON(w, s.header, status, first[0])
						return true
					}
				}
				break
			}
			select {
			case <-s.wake:
			case <-ctx.Done():
				return false
			case <-t.C:
				expired = true
			}
		}
	}
	h := w.Header()
	for k, v := range s.header {
		h[k] = v
	}
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache, no-transform")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	flush := func() {
		if flusher != nil {
			flusher.Flush()
		}
	}
	flush()
	pending := first
	for {
		for _, m := range pending {
			if _, err := w.Write(sseEvent(m)); err != nil {
				return false
			}
		}
		if len(pending) > 0 {
			flush()
		}
		msgs, ended, final := s.take()
		if len(msgs) > 0 {
			pending = msgs
			continue
		}
		if ended {
			return final
		}
		pending = nil
		if !s.wait(ctx) {
			return false
		}
	}
}

// serveJSON waits for the final message and writes it as the body.
func (s *stream) serveJSON(ctx context.Context, w http.ResponseWriter) bool {
	for {
		msgs, ended, final := s.take()
		if final {
			last := msgs[len(msgs)-1]
			status := http.StatusOK
			if s.modern {
				status = protocolErrorStatus(last)
			}
			writeJSON(w, s.header, status, last)
			return true
		}
		if ended {
			http.Error(w, "the answer was lost: the server's stream ended without it", http.StatusBadGateway)
			return false
		}
		if !s.wait(ctx) {
			return false
		}
	}
}

func writeJSON(w http.ResponseWriter, extra http.Header, status int, body []byte) {
	h := w.Header()
	for k, v := range extra {
		h[k] = v
	}
	h.Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// protocolErrorStatus is the status 2026-07-28 gives a response when it is
// answered alone: 200 unless it is a protocol error.
func protocolErrorStatus(msg []byte) int {
	code := gjson.GetBytes(msg, "error.code")
	if code.Type != gjson.Number {
		return http.StatusOK
	}
	return modernErrorStatus(code.Int())
}

// sseEvent is one message as an event. A message is compact JSON, on one
// line, so one data field carries it.
func sseEvent(msg []byte) []byte {
	b := make([]byte, 0, len(msg)+24)
	b = append(b, "event: message\ndata: "...)
	b = append(b, msg...)
	return append(b, '\n', '\n')
}
