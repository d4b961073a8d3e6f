package checker

// HTTP failures that carry no JSON-RPC answer: how each status is judged.
// The capture spec made any status of 400 or more an error; real,
// spec-legal traffic says otherwise (a deliberate difference, recorded in
// the changelog):
//
//   - a 405 answering a GET (the server offers no SSE stream) or a DELETE
//     (it does not let clients end sessions) is what the transport spec
//     prescribes: no finding. A status-only frame that names neither its
//     HTTP method nor the request it answers (an older log) is taken for
//     one of those, since a POST's answer names its request (reply_to);
//   - a 401 is the first half of an authorization: no error when a later
//     request of the same method (for tools/call, the same tool) gets
//     through in the session (a result, or a JSON-RPC error that came with
//     neither 401 nor 403, which is judged on its own), else an error
//     quoting the challenge, the client's (it never got its credentials
//     accepted);
//   - a failure answering a POST that carried only notifications or
//     responses is a warning (W60): nothing waited for an answer;
//   - any other is an error, as before.

import (
	"net/http"
	"strconv"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/tidwall/gjson"
)

// maxHeld401 bounds the 401s a session holds until a later success
// settles them; past it a 401 is judged at once, as an error.
const maxHeld401 = 1024

// held401 is a 401 waiting for a later success of the same method.
type held401 struct {
	ordinal      int
	seq          uint64
	path         string
	line         int
	method, tool string // of the call it answered; "" for none
	challenge    string
	settled      bool
}

// httpState is what a session remembers of its HTTP exchanges.
type httpState struct {
	held []held401
	// posted is, per connection, whether the c2s frames of its latest POST
	// carried a request: frames of one POST come one after another, before
	// any answer on that connection.
	posted map[string]postedBody
	ended  bool // a DELETE ended the session (a later GET may get 404)
	// endpoints are the paths that carried JSON-RPC (endpoint.go).
	endpoints []string
	// loopbackTarget: the proxy's meta frame names a target on the
	// loopback (W50).
	loopbackTarget bool
}

type postedBody struct {
	answered   bool // an s2c frame came on the connection since
	hasRequest bool
}

// notePosted remembers what a client frame on an HTTP connection carried.
func (h *httpState) notePosted(f *capture.Frame, kind msgKind) {
	if f.Transport != capture.TransportHTTP || f.Direction != capture.ClientToServer {
		return
	}
	if h.posted == nil {
		h.posted = map[string]postedBody{}
	}
	key := f.ConnID
	b, ok := h.posted[key]
	if !ok {
		key = clone(key)
	}
	if b.answered {
		b = postedBody{}
	}
	b.hasRequest = b.hasRequest || kind == kindRequest
	h.posted[key] = b
}

// noteAnswered marks the connection's POST as answered.
func (h *httpState) noteAnswered(f *capture.Frame) {
	if f.Direction != capture.ServerToClient {
		return
	}
	if b, ok := h.posted[f.ConnID]; ok && !b.answered {
		b.answered = true
		h.posted[f.ConnID] = b
	}
}

// httpFailure judges a status of 400 or more that carries no JSON-RPC
// answer: a bare status, an error page, an OAuth error body.
func (s *session) httpFailure(fc *frameCtx) {
	f := fc.f
	s.onStatusReply(fc)
	s.originRule(fc, fc.call)
	switch {
	case s.refusedForeignOrigin(fc):
		return
	case f.Status == http.StatusMethodNotAllowed && answersGetOrDelete(f):
		return
	case f.HTTPMethod == http.MethodGet && f.Status != http.StatusUnauthorized:
		s.getAnswer(fc)
		return
	case f.Status == http.StatusUnauthorized:
		if s.hold401(fc) {
			return
		}
	case f.HTTPMethod == http.MethodPost && len(f.ReplyTo) == 0 && !s.http.postedRequest(f):
		fc.warn("W60", "HTTP <status> answered a POST that carried only notifications or responses",
			"HTTP "+strconv.Itoa(f.Status)+" answered a POST that carried only notifications or responses")
		return
	}
	fc.transportError()
}

// answersGetOrDelete reports a status that answered a GET or a DELETE, or
// one that names neither its method nor its request (an older log, where a
// POST's answer would name its request).
func answersGetOrDelete(f *capture.Frame) bool {
	switch f.HTTPMethod {
	case http.MethodGet, http.MethodDelete:
		return true
	case "":
		return len(f.ReplyTo) == 0
	}
	return false
}

// postedRequest reports whether the POST a status answers carried a
// request (it is judged an error then, as a failed call).
func (h *httpState) postedRequest(f *capture.Frame) bool {
	b, ok := h.posted[f.ConnID]
	return !ok || b.hasRequest
}

// hold401 keeps a 401 until the session shows whether a later request of
// the same method got through; false when the session holds too many.
func (s *session) hold401(fc *frameCtx) bool {
	if len(s.http.held) >= maxHeld401 {
		return false
	}
	h := held401{ordinal: fc.ordinal, seq: fc.f.Seq, path: fc.pos.Path, line: fc.pos.Line,
		challenge: clone(fc.f.AuthChallenge)}
	if c := fc.call; c != nil {
		h.method, h.tool = c.method, c.tool
	}
	s.http.held = append(s.http.held, h)
	return true
}

// succeeded settles the held 401s a successful answer to call c (nil: a
// successful HTTP exchange of no call, such as an opened GET stream)
// shows were only the first half of an authorization.
func (s *session) succeeded(c *call) {
	for i := range s.http.held {
		h := &s.http.held[i]
		if h.settled {
			continue
		}
		if h.method == "" || (c != nil && h.method == c.method && (!c.isTool || h.tool == c.tool)) {
			h.settled = true
		}
	}
}

// pastAuthorization reports whether a JSON-RPC answer with this HTTP
// status shows the request got past authorization: any answer but a 401
// or a 403 (a stdio frame's status is 0).
func pastAuthorization(status int) bool {
	return status != http.StatusUnauthorized && status != http.StatusForbidden
}

// unsettled401s reports, when the session ends, each 401 no later success
// settled: an error of the client's, quoting the challenge.
func (s *session) unsettled401s() {
	for _, h := range s.http.held {
		if h.settled {
			continue
		}
		s.counters.Errors++
		text := "the transport failed with HTTP 401 and no later request"
		if h.method != "" {
			text += " of " + h.method
			if h.tool != "" {
				text += " " + strconv.Quote(h.tool)
			}
		}
		text += " got through"
		if h.challenge != "" {
			text += " (challenge: " + s.serverWords(h.challenge) + ")"
		}
		s.addFinding(findingInput{
			signal: SignalError, party: PartyClient, phase: phaseFrames, ordinal: h.ordinal, rank: rankError,
			seq: h.seq, path: h.path, line: h.line, method: h.method, tool: h.tool,
			kind: "the transport failed with HTTP <status>", text: text,
		})
	}
}

// oauthErrorBody reports an RFC 6750 error body on an HTTP failure
// ({"error":"invalid_token"}): JSON, but no JSON-RPC message, so no W1
// and no schema finding.
func oauthErrorBody(m *message, status int) bool {
	return status >= 400 && !m.hasRPC && !m.hasID && m.method == "" && !m.hasResult &&
		m.errorVal.Type == gjson.String
}

// getAnswer applies W58 to the answer of a GET, which opens the server's
// SSE stream: an event stream, or 405 when the server offers none. A 403
// (an Origin refused) and a 404 once a DELETE ended the session are what
// the spec prescribes; a 401 is judged as any 401.
func (s *session) getAnswer(fc *frameCtx) {
	f := fc.f
	switch {
	case f.Status == http.StatusForbidden,
		f.Status == http.StatusNotFound && s.http.ended,
		f.Status < 300 && f.Status >= 200 && (f.ContentType == "" || capture.MediaType(f.ContentType) == "text/event-stream"):
		return
	}
	what := "HTTP " + strconv.Itoa(f.Status)
	if f.Status < 300 && f.ContentType != "" {
		what += " with Content-Type " + strconv.Quote(f.ContentType)
	}
	fc.warn("W58", "GET answered with <what>, neither an SSE stream nor 405",
		"GET answered with "+what+", neither an SSE stream nor 405")
}

// noteDelete remembers a DELETE the server accepted: the session is over.
func (h *httpState) noteDelete(f *capture.Frame) {
	if f.HTTPMethod == http.MethodDelete && f.Status >= 200 && f.Status < 300 {
		h.ended = true
	}
}
