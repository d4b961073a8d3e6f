package checker

// Who is at fault when the rule alone cannot say: an error that refuses a
// malformed request, an HTTP status, the server's own -32020. The party
// constants and --blame are in party.go.

import (
	"net/http"
	"strings"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/checker/wire"
	"github.com/tidwall/gjson"
)

// The JSON-RPC codes a peer answers a request it cannot accept with.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeInvalidParams  = -32602
)

// Bounds on the requests kept to judge a refusal against the schema: a
// refusal is judged from the rules alone for a request past them.
const (
	maxBlameRequest = 16 << 10 // bytes of one request
	maxBlameBytes   = 8 << 20  // bytes held by one session's open calls
)

// refusesMalformed reports an error object that says the request itself
// was wrong: Invalid Request or Invalid params.
func refusesMalformed(errVal gjson.Result) bool {
	if !errVal.IsObject() {
		return false
	}
	code := errVal.Get("code")
	return code.Type == gjson.Number && (code.Num == codeInvalidRequest || code.Num == codeInvalidParams)
}

// unreadableRequestError reports the errors JSON-RPC answers with a null
// id, for a request whose id could not be read: Parse error and Invalid
// Request.
func unreadableRequestError(errVal gjson.Result) bool {
	code := errVal.Get("code")
	return errVal.IsObject() && code.Type == gjson.Number && (code.Num == codeParseError || code.Num == codeInvalidRequest)
}

// answerParty is who is at fault for an error answering call c: the side
// that answered, unless it refused a request that broke a rule or its
// revision's schema (-32600, -32602), whose routing headers disagreed with
// its body (-32020), or that called a tool the server does not offer,
// which it was right to do.
func (s *session) answerParty(fc *frameCtx, c *call) Party {
	m := &fc.msg
	switch {
	case m.hasError && refusesMalformed(m.errorVal) && s.requestBroke(c):
		return c.caller()
	case m.hasError && isHeaderMismatchError(m.errorVal) && c.headerMismatch:
		return c.caller()
	case s.unlistedTool(c) && (m.isErrorResult() || (m.hasError && refusesMalformed(m.errorVal))):
		// Some SDKs refuse an unknown tool with an isError result.
		return c.caller()
	}
	return sender(fc.f.Direction)
}

// unlistedTool reports a client's tools/call of a tool the server's
// complete listing does not offer: calling it is the client's mistake.
func (s *session) unlistedTool(c *call) bool {
	return c.isTool && c.key.dir == capture.ClientToServer && s.inv.listed && s.inv.complete && !s.inv.index[c.tool]
}

// statusParty is who is at fault for an HTTP failure with no JSON-RPC
// answer: a gateway's 502, 503 or 504 is the transport's; a 4xx refusing
// a request that broke a rule is the client's, and so is a 404 to a
// request on a session the client had ended; any other is the server's.
func (fc *frameCtx) statusParty() Party {
	switch fc.f.Status {
	case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return PartyTransport
	}
	if c := fc.call; c != nil && fc.f.Status < 500 && fc.s.requestBroke(c) {
		return c.caller()
	}
	if c := fc.call; c != nil && fc.f.Status == http.StatusNotFound && fc.s.http.ended {
		// A request on a session the client ended itself (DELETE): the
		// 404 is what the server must answer (2025-11-25 transports).
		return c.caller()
	}
	return sender(fc.f.Direction)
}

// requestBroke reports whether c's request broke a catalogue rule, or its
// revision's JSON schema (validated now, from the copy keepRequestForBlame
// made).
func (s *session) requestBroke(c *call) bool {
	if c.faulty {
		return true
	}
	if c.blameRaw == nil || !wire.Known(c.blameRev) {
		return false
	}
	msg := wire.Message{Revision: c.blameRev, Kind: wire.Request, Sender: wire.Client, Method: c.method, Raw: c.blameRaw}
	if c.key.dir != capture.ClientToServer {
		msg.Sender = wire.Server
	}
	f, err := wire.Validate(msg)
	return err == nil && f != nil
}

// keepRequestForBlame keeps a copy of a small request while its call is
// open, so that a refusal can be judged against the schema.
func (s *session) keepRequestForBlame(fc *frameCtx, c *call) {
	raw := fc.f.Raw
	if fc.f.Redacted || len(raw) > maxBlameRequest || s.blameBytes+len(raw) > maxBlameBytes {
		return
	}
	rev := fc.revision()
	if !wire.Known(rev) || !wire.Linked() { // nothing could judge it
		return
	}
	c.blameRaw, c.blameRev = append([]byte(nil), raw...), clone(rev)
	s.blameBytes += len(raw)
}

// releaseRequestForBlame drops the copy once the call has ended.
func (s *session) releaseRequestForBlame(c *call) {
	s.blameBytes -= len(c.blameRaw)
	c.blameRaw = nil
}

// markFaultyRequest remembers that the request the frame carries broke a
// rule, so that a refusal of it is its sender's fault.
func (fc *frameCtx) markFaultyRequest() {
	if fc.msg.kind == kindRequest && fc.call != nil {
		fc.call.faulty = true
	}
}

// emitMismatch reports the frame's routing mismatch: a client's header that
// disagrees with the body (W36-W40, W45), or the server's -32020 answer
// (M1), which is the client's fault when its request's headers disagreed
// and the server's otherwise.
func (fc *frameCtx) emitMismatch(warning string) {
	fc.s.counters.Mismatches++
	ids := fc.rules
	party := sender(fc.f.Direction)
	text := "a routing header disagrees with the body"
	if warning != "" {
		text = "routing header mismatch: " + warning
	}
	if fc.msg.hasError && isHeaderMismatchError(fc.msg.errorVal) {
		ids = append(ids[:len(ids):len(ids)], "M1")
		switch c := fc.call; {
		case c == nil:
			text = "the server answered -32020 (HeaderMismatch) to a request this log does not hold"
		case c.headerMismatch:
			party = c.caller()
			text += " (the server answered -32020, HeaderMismatch)"
		case warning == "":
			text = "the server answered -32020 (HeaderMismatch), yet the request's routing headers, as recorded, agree with its body"
		}
	}
	if fc.msg.kind == kindRequest && fc.call != nil {
		fc.call.headerMismatch = true
		fc.refusable(refuseHeaders)
	}
	refs := ruleRefs(ids, fc.revision(), func(r *Rule) bool { return r.Mismatch || r.Signal == SignalMismatch })
	fc.emitRules(SignalMismatch, rankMismatch, party, strings.Join(fc.kinds, ", "), text, refs)
}
