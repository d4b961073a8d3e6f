package checker

import (
	"net/url"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// The elicitation ledger: every question a server put to the user, in which
// mode, and what the user did. Under MRTR the question rides an
// input_required answer and the user's answer a later retry, paired only by
// the retry link; under 2025-11-25 the question is a server request and the
// answer the client's response. A row never carries a submitted value: only
// the action is read from an answer.

// Caps far above any real question; a row says when one was cut.
const (
	maxElicitMessage = 4096
	maxElicitURL     = 4096
	maxElicitFields  = 256
	maxElicitations  = 1000 // rows per session report
)

// Elicitation is one question and what became of it (shape:
// spec/interfaces.md, "Elicitations").
type Elicitation struct {
	// RootID, Method and Name are the operation the question interrupted:
	// the MRTR call, or the tools/call a 2025-11-25 server request arrived
	// during (when that is certain; else the request itself).
	RootID           string        `json:"root_id"`
	Method           string        `json:"method"`
	Name             string        `json:"name"`
	Key              string        `json:"key"`
	Mode             string        `json:"mode"` // form or url
	Message          string        `json:"message"`
	MessageTruncated bool          `json:"message_truncated"`
	Fields           []ElicitField `json:"fields"`
	FieldsTruncated  bool          `json:"fields_truncated,omitempty"`
	URL              string        `json:"url,omitempty"`
	Host             string        `json:"host,omitempty"`
	Action           string        `json:"action,omitempty"` // accept, decline, cancel, or what the client sent
	ElapsedMs        *float64      `json:"elapsed_ms"`       // question to answer; null while pending
	Pending          bool          `json:"pending"`
	// RequestID is the id of a 2025-11-25 elicitation/create request
	// whose row names the call it interrupted (RootID is then the call's).
	RequestID string    `json:"request_id,omitempty"`
	asked     time.Time // when the question was seen
	serial    int       // creation order
}

// ElicitField is one property a form asked for, with its declared type
// ("unknown" when redaction replaced the subschema).
type ElicitField struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// elicitRows reads the elicitation/create entries of an input_required
// answer to call c.
func (s *session) elicitRows(c *call, m *message, ts time.Time, redacted bool) {
	var rows []*Elicitation
	m.resultField("inputRequests").ForEach(func(key, req gjson.Result) bool {
		if req.Get("method").String() != "elicitation/create" {
			return true // sampling and roots questions are not elicitations
		}
		rows = append(rows, s.newElicitation(c.key.id, c.method, c.tool, key.Str, req.Get("params"), ts, redacted))
		return true
	})
	sort.Slice(rows, func(i, j int) bool { return rows[i].Key < rows[j].Key })
	c.elicits = append(c.elicits, rows...)
}

func (s *session) newElicitation(rootID, method, name, key string, params gjson.Result, ts time.Time, redacted bool) *Elicitation {
	e := &Elicitation{RootID: rootID, Method: method, Name: clone(name), Key: clone(key), Mode: "form", Fields: []ElicitField{}, Pending: true, asked: ts}
	if mode := params.Get("mode"); mode.Type == gjson.String && mode.Str != "" {
		e.Mode = clone(mode.Str)
	}
	e.Message, e.MessageTruncated = capString(params.Get("message").String(), maxElicitMessage)
	if e.Mode == "url" {
		e.URL, _ = capString(params.Get("url").String(), maxElicitURL)
		if u, err := url.Parse(e.URL); err == nil {
			e.Host = u.Hostname()
		}
		return e
	}
	params.Get("requestedSchema.properties").ForEach(func(k, schema gjson.Result) bool {
		if len(e.Fields) == maxElicitFields {
			e.FieldsTruncated = true
			return false
		}
		e.Fields = append(e.Fields, ElicitField{Name: clone(k.Str), Type: fieldType(schema, redacted)})
		return true
	})
	return e
}

// fieldType is a property's declared type: "unknown" when there is none to
// read, or when redaction replaced the subschema with its placeholder.
func fieldType(schema gjson.Result, redacted bool) string {
	if schema.Type == gjson.String && strings.Contains(schema.Str, "[REDACTED]") {
		return "unknown"
	}
	t := schema.Get("type")
	switch {
	case t.Type == gjson.String && !(redacted && t.Str == "[REDACTED]"):
		return clone(t.Str)
	case t.IsArray():
		var names []string
		t.ForEach(func(_, v gjson.Result) bool {
			names = append(names, v.String())
			return true
		})
		return clone(strings.Join(names, "|"))
	}
	return "unknown"
}

// answerElicitations pairs the questions of root's last round with the
// retry's inputResponses: each answered key gets its action and elapsed
// time. A retry answers only the round it was issued from, so questions it
// leaves out stay pending for good.
func (s *session) answerElicitations(root *call, m *message, ts time.Time) {
	if len(root.elicits) == 0 {
		return
	}
	responses := m.paramField("inputResponses")
	for _, e := range root.elicits {
		if r := responses.Get(escapeKey(e.Key)); r.Exists() {
			e.Pending = false
			e.Action = clone(r.Get("action").String())
			elapsed := ms(duration(e.asked, ts))
			e.ElapsedMs = &elapsed
		}
		s.keepElicitation(e)
	}
	root.elicits = nil
}

// keepElicitation files a finished (or never answered) row in the ledger.
func (s *session) keepElicitation(e *Elicitation) {
	if len(s.elicitations) >= maxElicitations {
		s.elicitationsTruncated++
		return
	}
	e.serial = s.elicitSerial
	s.elicitSerial++
	s.elicitations = append(s.elicitations, e)
}

// closeElicitations files the rows still waiting when a call leaves play.
func (s *session) closeElicitations(c *call) {
	for _, e := range c.elicits {
		s.keepElicitation(e)
	}
	c.elicits = nil
}

// A 2025-11-25 server request: the question is the request itself, asked
// in the middle of a client's call when that can be told for certain.
func (s *session) elicitRequest(fc *frameCtx, c *call) {
	if c.method != "elicitation/create" || fc.f.Direction != capture.ServerToClient {
		return
	}
	e := s.newElicitation(c.key.id, c.method, "", "", fc.msg.params, fc.f.TS, fc.f.Redacted)
	if root := s.interrupted(fc.f); root != nil {
		e.RequestID = e.RootID
		e.RootID, e.Method, e.Name = root.key.id, root.method, root.tool
	}
	c.elicits = []*Elicitation{e}
}

// interrupted is the tools/call a server's request arrived during, when
// that is certain. Over HTTP our capture records, on a server request that
// came on the event stream of a client's POST, the id of that POST's
// request (reply_to): the call it interrupted. Without reply_to an HTTP
// request could have come on any stream, so it names nothing. On stdio
// there is one channel, and a request names a call only when exactly one
// tools/call from the client is open.
func (s *session) interrupted(f *capture.Frame) *call {
	if len(f.ReplyTo) > 0 {
		c := s.calls.open[callKey{dir: capture.ClientToServer, id: string(f.ReplyTo), conn: f.ConnID}]
		if c != nil && c.isTool && c.open() {
			return c
		}
		return nil
	}
	if f.Transport == capture.TransportHTTP || s.transport == capture.TransportHTTP {
		return nil
	}
	var only *call
	for c := range s.calls.pending {
		if c.isTool && c.key.dir == capture.ClientToServer {
			if only != nil {
				return nil
			}
			only = c
		}
	}
	return only
}

// elicitAnswer records the client's answer to a 2025-11-25 question.
func (s *session) elicitAnswer(c *call, m *message, ts time.Time) {
	if c.method != "elicitation/create" || len(c.elicits) == 0 {
		return
	}
	e := c.elicits[0]
	if m.hasResult {
		e.Pending = false
		e.Action = clone(m.resultField("action").String())
		elapsed := ms(duration(e.asked, ts))
		e.ElapsedMs = &elapsed
	}
}

// sortedElicitations returns the ledger in the order the questions came.
func (s *session) sortedElicitations() []Elicitation {
	sort.SliceStable(s.elicitations, func(i, j int) bool {
		a, b := s.elicitations[i], s.elicitations[j]
		if !a.asked.Equal(b.asked) {
			return a.asked.Before(b.asked)
		}
		return a.serial < b.serial
	})
	out := make([]Elicitation, len(s.elicitations))
	for i, e := range s.elicitations {
		out[i] = *e
	}
	return out
}

// capString cuts s to at most n bytes on a rune boundary.
func capString(s string, n int) (string, bool) {
	if len(s) <= n {
		return clone(s), false
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return clone(s[:n]), true
}
