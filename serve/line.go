package serve

import (
	"net/http"
	"slices"
	"sort"
	"strconv"
	"sync"

	"github.com/tidwall/gjson"
)

// line is one peer and the requests in flight on it: it sends the
// clients' messages and routes the server's to the streams they belong to.
//
// A stdio server's messages carry no link to the HTTP request they are
// about, so the line ties them as the protocol lets it: a response by its
// id, a progress notification by its token, a subscription's notification
// by its subscription id. Anything else (a log message, a server's
// request) belongs to the one request in flight on an event stream when
// there is exactly one; else, on a session, to its GET stream when one is
// open, else to the newest request on an event stream. On the shared
// 2026-07-28 line, whose requests come from different clients, a message
// that cannot be tied to one request is dropped and counted rather than
// guessed into another client's stream.
type line struct {
	h      *Handler
	peer   Peer
	modern bool
	sess   *session // nil for the shared line

	mu       sync.Mutex
	next     int64                // the last id given on the shared line
	inflight map[string]*exchange // by the id the server sees
	tokens   map[string]*exchange // by the progress token the server sees
	order    []*exchange          // in flight, oldest first
	get      *stream              // the session's GET stream, when open
	gone     bool                 // the peer has ended
	dropped  int                  // server messages that had no stream to go to
}

// exchange is one client request in flight.
type exchange struct {
	clientID    []byte // the id as the client sent it
	serverID    string // as the server sees it
	clientToken []byte // the progress token as the client sent it
	serverToken string
	method      string
	out         *stream // nil once its client is gone
}

func newLine(h *Handler, modern bool, sess *session) *line {
	return &line{h: h, modern: modern, sess: sess, inflight: map[string]*exchange{}, tokens: map[string]*exchange{}}
}

// edit is one value of a message to replace.
type edit struct {
	at  gjson.Result
	val []byte
}

// rewrite applies edits to raw, from the last in the message to the first
// so that earlier positions hold.
func rewrite(raw []byte, edits ...edit) ([]byte, error) {
	sort.Slice(edits, func(i, j int) bool { return edits[i].at.Index > edits[j].at.Index })
	var err error
	for _, e := range edits {
		if raw, err = replace(raw, e.at, e.val); err != nil {
			return nil, err
		}
	}
	return raw, nil
}

// request sends a client's request to the server, its answer to go to out.
// On the shared line its id (and progress token) are replaced by the
// line's own, so that two clients' ids never meet at the server.
func (l *line) request(m message, out *stream) (*exchange, *refusal) {
	x := &exchange{clientID: []byte(m.id.Raw), method: m.method, out: out}
	tok := m.get("params._meta.progressToken")
	raw := m.raw
	l.mu.Lock()
	if l.gone {
		l.mu.Unlock()
		return nil, l.goneRefusal()
	}
	if l.modern {
		l.next++
		n := strconv.FormatInt(l.next, 10)
		x.serverID = n
		edits := []edit{{m.id, []byte(n)}}
		if tok.Exists() {
			x.clientToken, x.serverToken = []byte(tok.Raw), strconv.Quote("p"+n)
			edits = append(edits, edit{tok, []byte(x.serverToken)})
		}
		var err error
		if raw, err = rewrite(raw, edits...); err != nil {
			l.mu.Unlock()
			return nil, refuse(http.StatusBadRequest, codeInvalidRequest, "cannot read the request's id: %v", err)
		}
	} else {
		x.serverID = key(m.id)
		if _, dup := l.inflight[x.serverID]; dup {
			l.mu.Unlock()
			return nil, refuse(http.StatusBadRequest, codeInvalidRequest, "request id %s is already in flight on this session", m.id.Raw)
		}
		if tok.Exists() {
			x.clientToken, x.serverToken = []byte(tok.Raw), key(tok)
		}
	}
	l.inflight[x.serverID] = x
	if x.serverToken != "" {
		l.tokens[x.serverToken] = x
	}
	l.order = append(l.order, x)
	l.mu.Unlock()
	if err := l.peer.Send(raw); err != nil {
		l.mu.Lock()
		l.forget(x)
		l.mu.Unlock()
		return nil, refuse(http.StatusBadGateway, codeInternalError, "the server is gone: %v", err)
	}
	return x, nil
}

// goneRefusal answers a request that came after the peer ended.
func (l *line) goneRefusal() *refusal {
	if l.sess != nil {
		return refuse(http.StatusNotFound, codeInvalidRequest, "the session has ended")
	}
	return refuse(http.StatusServiceUnavailable, codeInternalError, "the server has exited")
}

// notify sends a client's notification or response.
func (l *line) notify(m message) *refusal {
	raw := m.raw
	if l.modern && m.method == "notifications/cancelled" {
		// The client names its own id: the server knows the line's.
		id := m.get("params.requestId")
		l.mu.Lock()
		x := l.onlyByClientID(id.Raw)
		l.mu.Unlock()
		if x == nil {
			return nil // nothing of the client's is in flight under that id
		}
		var err error
		if raw, err = rewrite(raw, edit{id, []byte(x.serverID)}); err != nil {
			return refuse(http.StatusBadRequest, codeInvalidRequest, "cannot read the cancellation's request id: %v", err)
		}
	}
	l.mu.Lock()
	gone := l.gone
	l.mu.Unlock()
	if gone {
		return l.goneRefusal()
	}
	if err := l.peer.Send(raw); err != nil {
		return refuse(http.StatusBadGateway, codeInternalError, "the server is gone: %v", err)
	}
	return nil
}

// onlyByClientID finds the one exchange in flight with this client id.
func (l *line) onlyByClientID(id string) *exchange {
	var found *exchange
	for _, x := range l.order {
		if string(x.clientID) == id {
			if found != nil {
				return nil // two clients used it: which one is meant cannot be told
			}
			found = x
		}
	}
	return found
}

// forget removes an exchange from the tables (l.mu held).
func (l *line) forget(x *exchange) {
	if l.inflight[x.serverID] == x {
		delete(l.inflight, x.serverID)
	}
	if x.serverToken != "" && l.tokens[x.serverToken] == x {
		delete(l.tokens, x.serverToken)
	}
	if i := slices.Index(l.order, x); i >= 0 {
		l.order = slices.Delete(l.order, i, i+1)
	}
}

// deliver routes one message of the server's.
func (l *line) deliver(raw []byte) {
	m := parseMessage(raw)
	switch m.kind {
	case kindResponse:
		l.deliverResponse(m)
	case kindNotification:
		l.deliverNotification(m)
	case kindRequest:
		l.deliverRequest(m)
	default:
		// Not JSON-RPC: the server's log has it, and the check judges it;
		// no client could read it.
		l.drop()
	}
}

func (l *line) deliverResponse(m message) {
	l.mu.Lock()
	x := l.inflight[key(m.id)]
	if x != nil {
		l.forget(x)
	}
	l.mu.Unlock()
	if x != nil && l.modern && x.method == "tools/list" {
		l.h.params.learn(m.get("result"))
	}
	if x == nil || x.out == nil {
		l.drop() // its client went away, or it answers nothing asked
		return
	}
	msg := m.raw
	if l.modern {
		var err error
		if msg, err = rewrite(msg, edit{m.id, x.clientID}); err != nil {
			l.drop()
			x.out.end()
			return
		}
	}
	x.out.push(msg, true)
}

func (l *line) deliverNotification(m message) {
	var x *exchange
	var at gjson.Result
	var val []byte
	l.mu.Lock()
	if tok := m.get("params.progressToken"); m.method == "notifications/progress" && tok.Exists() {
		if x = l.tokens[key(tok)]; x != nil {
			at, val = tok, x.clientToken
		}
	} else if sub := m.get(metaPath(metaSubscriptionID)); sub.Exists() {
		if x = l.inflight[key(sub)]; x != nil {
			at, val = sub, x.clientID
		}
	} else if req := m.get("params.requestId"); l.modern && m.method == "notifications/cancelled" && req.Exists() {
		if x = l.inflight[key(req)]; x != nil {
			at, val = req, x.clientID
		}
	}
	var out *stream
	if x != nil {
		out = x.out
	} else {
		out = l.loneTarget()
	}
	l.mu.Unlock()
	msg := m.raw
	if x != nil && l.modern {
		var err error
		if msg, err = rewrite(msg, edit{at, val}); err != nil {
			out = nil
		}
	}
	if out == nil || !out.push(msg, false) {
		l.drop()
	}
}

// deliverRequest carries a server's request to the client, where the
// protocol lets it. 2026-07-28 forbids server requests on its streams (a
// server asks for input inside its result instead), so one on the shared
// line is answered -32601 for the client, and noted; on a session with no
// stream to carry it, it is answered -32603, so that the server does not
// wait for ever.
func (l *line) deliverRequest(m message) {
	var out *stream
	if !l.modern {
		l.mu.Lock()
		out = l.loneTarget()
		l.mu.Unlock()
		if out != nil && out.push(m.raw, false) {
			return
		}
	}
	code, why := codeMethodNotFound, "the server sent a "+m.method+" request, which 2026-07-28 forbids on Streamable HTTP"
	if !l.modern {
		code, why = codeInternalError, "the server sent a "+m.method+" request and no event stream was open to carry it to the client"
	}
	note := l.h.name + ": " + why + "; answered it " + strconv.Itoa(code) + " for the client"
	answer := errorResponse([]byte(m.id.Raw), code, l.h.name+": "+why)
	l.peer.Note(note)
	l.h.say(l.peer.Name() + ": " + why + "; answered " + strconv.Itoa(code))
	// Not from this goroutine: it is the one reading the server's output,
	// and a server that writes while we wait to write to it would wait on
	// us in turn.
	go func() { _ = l.peer.SendOwn(answer, why) }()
}

// loneTarget is where a message tied to no request goes (l.mu held); nil
// for nowhere.
func (l *line) loneTarget() *stream {
	var last *stream
	n := 0
	for _, x := range l.order {
		if x.out != nil && x.out.mode == modeSSE {
			last = x.out
			n++
		}
	}
	switch {
	case n == 1:
		return last
	case l.modern:
		return nil
	case l.get != nil:
		return l.get
	}
	return last
}

func (l *line) drop() {
	l.mu.Lock()
	l.dropped++
	l.mu.Unlock()
	l.h.dropped.Add(1)
}

// clientGone is told that the client of x stopped reading its answer. On
// the shared line the server is sent the cancellation that closing a
// 2026-07-28 stream means (on stdio a client must send one); a session's
// request goes on (2025-11-25 says a disconnect is no cancellation), its
// answer dropped when it comes.
func (l *line) clientGone(x *exchange) {
	l.mu.Lock()
	x.out = nil
	cancel := l.modern && !l.gone && l.inflight[x.serverID] == x
	if l.modern {
		l.forget(x)
	}
	l.mu.Unlock()
	if cancel {
		why := "the client closed the stream of request " + string(x.clientID) + " before its answer"
		_ = l.peer.SendOwn(cancelled([]byte(x.serverID), l.h.name+": "+why), why)
	}
}

// setGet opens the session's GET stream; false when one is open already.
func (l *line) setGet(s *stream) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.get != nil || l.gone {
		return false
	}
	l.get = s
	return true
}

// clearGet closes the GET stream s, if it is still the session's.
func (l *line) clearGet(s *stream) {
	l.mu.Lock()
	if l.get == s {
		l.get = nil
	}
	l.mu.Unlock()
}

// busy reports whether anything is in flight or a GET stream is open.
func (l *line) busy() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.order) > 0 || l.get != nil
}

// ended is told that the peer is gone: every request still in flight is
// answered with an error naming why, and the GET stream ends.
func (l *line) ended(why string) (unanswered, dropped int) {
	l.mu.Lock()
	if l.gone {
		l.mu.Unlock()
		return 0, 0
	}
	l.gone = true
	order := l.order
	l.order, l.inflight, l.tokens = nil, map[string]*exchange{}, map[string]*exchange{}
	get := l.get
	l.get = nil
	dropped = l.dropped
	l.mu.Unlock()
	for _, x := range order {
		unanswered++
		if x.out != nil {
			x.out.push(errorResponse(x.clientID, codeInternalError, l.h.name+": the server exited before answering ("+why+")"), true)
		}
	}
	if get != nil {
		get.end()
	}
	return unanswered, dropped
}

// abort ends every stream of the line without an answer (shutdown).
func (l *line) abort() {
	l.mu.Lock()
	order := append([]*exchange(nil), l.order...)
	get := l.get
	l.mu.Unlock()
	for _, x := range order {
		if x.out != nil {
			x.out.end()
		}
	}
	if get != nil {
		get.end()
	}
}
