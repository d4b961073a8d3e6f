package mock

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/tidwall/gjson"
)

// Recording is one recorded session as the mock answers from it.
type Recording struct {
	Source    string // the log as messages name it
	SessionID string
	Label     string
	// Exchanges are the client's requests in wire order, the handshake
	// and MRTR retries among them.
	Exchanges []*Exchange
	// Unattached counts the server's messages that came before any client
	// request: nothing the mock answers can carry them.
	Unattached int
}

// Exchange is one recorded client request and what the server sent for it.
type Exchange struct {
	Line   int // the request's line in the log
	ID     json.RawMessage
	Method string
	Name   string          // params.name or params.uri, for messages
	Params json.RawMessage // nil when there were none
	// Answer is the recorded response message; nil when none came.
	Answer json.RawMessage
	// Before and After are the server's notifications and requests tied to
	// this request, sent before and after its answer.
	Before, After []Outgoing

	retry bool      // params carry requestState or inputResponses
	prev  *Exchange // the request this MRTR retry continues
	// issued is the requestState the answer carried when it asked for
	// input (issuedSet when it carried one).
	issued    string
	issuedSet bool
	parked    bool   // the answer was input_required
	token     string // the raw progress token of params._meta
	// What matching compares: params without _meta (base), with it
	// (full), both without requestState.
	base, full string
	answered   bool // the answer was seen (wire position of later server messages)
}

// Outgoing is a message of the server's that is not an answer.
type Outgoing struct {
	Raw     json.RawMessage
	Request bool // a server request, whose answer the mock awaits
}

// Describe names the exchange in messages: method, name and line.
func (x *Exchange) Describe() string {
	s := x.Method
	if x.Name != "" {
		s += " " + strconv.Quote(x.Name)
	}
	return s + " at line " + strconv.Itoa(x.Line)
}

// Load reads the session sessionID ("" for the first) of the log in.
func Load(in capture.Input, stdin io.Reader, sessionID string) (*Recording, error) {
	rec := &Recording{Source: in.Name, SessionID: sessionID}
	b := &loader{rec: rec, open: map[string]*Exchange{}}
	err := in.Read(stdin, nil, func(f *capture.Frame, line int) bool {
		if f.SessionID == "" {
			return false
		}
		if rec.SessionID == "" {
			rec.SessionID = f.SessionID
		}
		if f.SessionID == rec.SessionID {
			b.seen = true
			b.frame(f, line)
		}
		return true
	}, nil)
	if err != nil {
		return nil, err
	}
	if !b.seen {
		return nil, fmt.Errorf("%s: no session %q in this log", in.Name, sessionID)
	}
	if len(rec.Exchanges) == 0 {
		return nil, fmt.Errorf("%s: session %s holds no client request to answer", in.Name, rec.SessionID)
	}
	return rec, nil
}

// loader folds frames into a Recording.
type loader struct {
	rec  *Recording
	seen bool
	// open maps a request's id and connection to its exchange, until the
	// final answer.
	open map[string]*Exchange
	// last is the latest client request: the server's messages tied to no
	// request go with it.
	last *Exchange
}

func openKey(id, conn string) string { return id + "\x00" + conn }

func (b *loader) frame(f *capture.Frame, line int) {
	if f.ServerLabel != "" {
		b.rec.Label = f.ServerLabel
	}
	if len(f.Raw) == 0 || (f.Direction != capture.ClientToServer && f.Direction != capture.ServerToClient) {
		return
	}
	each := [][]byte{f.Raw}
	if first := bytes.TrimLeft(f.Raw, " \t\r\n"); len(first) > 0 && first[0] == '[' {
		each, _ = capture.ArrayElements(f.Raw)
	}
	for _, raw := range each {
		raw = bytes.Clone(raw)
		if f.Direction == capture.ClientToServer {
			b.client(raw, f.ConnID, line)
		} else {
			b.server(raw, f.ConnID)
		}
	}
}

// client reads one message of the client's: only requests matter.
func (b *loader) client(raw []byte, conn string, line int) {
	id := gjson.GetBytes(raw, "id")
	method := gjson.GetBytes(raw, "method")
	if !id.Exists() || method.Type != gjson.String {
		return
	}
	params := gjson.GetBytes(raw, "params")
	x := &Exchange{Line: line, ID: json.RawMessage(id.Raw), Method: method.Str}
	if params.Exists() && params.Type != gjson.Null {
		x.Params = json.RawMessage(params.Raw)
	}
	x.Name = operationName(x.Method, params)
	x.token = params.Get("_meta.progressToken").Raw
	x.retry = isRetry(params)
	x.base, x.full = matchKeys(x.Params)
	if x.retry {
		x.prev = b.continues(x, params.Get("requestState"), conn)
	}
	b.rec.Exchanges = append(b.rec.Exchanges, x)
	b.open[openKey(id.Raw, conn)] = x
	b.last = x
}

// continues finds the parked request an MRTR retry continues, as the
// checker links them: the one whose answer issued the requestState the
// retry echoes, else the latest parked request of the same method and name.
func (b *loader) continues(x *Exchange, state gjson.Result, conn string) *Exchange {
	var same *Exchange
	for i := len(b.rec.Exchanges) - 1; i >= 0; i-- {
		p := b.rec.Exchanges[i]
		if !p.parked {
			continue
		}
		if state.Type == gjson.String && p.issuedSet && p.issued == state.Str {
			return p
		}
		if same == nil && p.Method == x.Method && p.Name == x.Name {
			same = p
		}
	}
	return same
}

// server reads one message of the server's: an answer, or a message of its
// own tied to the request in flight it most likely belongs to.
func (b *loader) server(raw []byte, conn string) {
	id := gjson.GetBytes(raw, "id")
	method := gjson.GetBytes(raw, "method")
	if method.Type != gjson.String {
		if !id.Exists() {
			return
		}
		x := b.open[openKey(id.Raw, conn)]
		if x == nil || x.Answer != nil {
			return
		}
		delete(b.open, openKey(id.Raw, conn))
		x.Answer, x.answered = raw, true
		if res := gjson.GetBytes(raw, "result"); res.Get("resultType").Str == "input_required" {
			x.parked = true
			if st := res.Get("requestState"); st.Type == gjson.String {
				x.issued, x.issuedSet = st.Str, true
			}
		}
		return
	}
	out := Outgoing{Raw: raw, Request: id.Exists()}
	x := b.tiedTo(raw, method.Str)
	if x == nil {
		b.rec.Unattached++
		return
	}
	if x.answered {
		x.After = append(x.After, out)
	} else {
		x.Before = append(x.Before, out)
	}
}

// tiedTo is the exchange a server message belongs to: a progress
// notification's by its token, anything else the latest request still
// unanswered, else the latest request.
func (b *loader) tiedTo(raw []byte, method string) *Exchange {
	if tok := gjson.GetBytes(raw, "params.progressToken"); method == "notifications/progress" && tok.Exists() {
		for i := len(b.rec.Exchanges) - 1; i >= 0; i-- {
			if x := b.rec.Exchanges[i]; x.token == tok.Raw {
				return x
			}
		}
	}
	for i := len(b.rec.Exchanges) - 1; i >= 0; i-- {
		if x := b.rec.Exchanges[i]; !x.answered {
			return x
		}
	}
	return b.last
}

// isRetry reports whether params are an MRTR retry's.
func isRetry(params gjson.Result) bool {
	return params.Get("requestState").Exists() || params.Get("inputResponses").Exists()
}

// operationName is params.name of tools/call and prompts/get, params.uri of
// the resources methods.
func operationName(method string, params gjson.Result) string {
	switch method {
	case "tools/call", "prompts/get":
		return params.Get("name").String()
	case "resources/read", "resources/subscribe", "resources/unsubscribe":
		return params.Get("uri").String()
	}
	return ""
}
