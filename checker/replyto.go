package checker

// Settling a call by the HTTP status that answered it. Over streamable
// HTTP a request can be refused before any JSON-RPC answer is written: a
// 401 challenge, a 403 for an Origin, a 502 from a gateway, a 500 error
// page. Our capture then records the response with reply_to, the raw id of
// the request of that HTTP exchange (capture-store-export.md 4.4). Such a
// call got its answer, a failure, and must not be left pending.

import (
	"strconv"

	"github.com/mcpsnoop/mcpsnoop/capture"
)

// onStatusReply settles, as failed, the call a frame's reply_to names when
// the frame is an HTTP failure (status >= 400) that carries no JSON-RPC
// message: a bare status, or an error page. The transport error the frame
// already counts is the call's one error; nothing is counted twice. A call
// that is not waiting for its first answer (settled, cancelled, holding a
// task) is left as it is, and so is everything without reply_to, so logs of
// other captures read as before.
func (s *session) onStatusReply(fc *frameCtx) {
	f := fc.f
	if len(f.ReplyTo) == 0 || f.Status < 400 || f.Direction != capture.ServerToClient {
		return
	}
	if f.HasBody() && fc.msg.kind != kindNotRPC && !oauthErrorBody(&fc.msg, f.Status) {
		return // a JSON-RPC message answers for itself
	}
	key := callKey{dir: capture.ClientToServer, id: string(f.ReplyTo), conn: f.ConnID}
	c := s.calls.open[key]
	if c == nil || !c.open() || c.answered {
		return
	}
	fc.belongsTo(c)
	c.it.answerHop(f.TS, nil)
	s.conclude(c, f.TS, true, 0) // the transport error is the call's one error
}

// refusedByProxy handles a refusal mcpsnoop's HTTP proxy wrote itself (its
// DNS-rebinding guard's 403, by_proxy): the request never reached the
// server, so it is no error of anyone's on the wire. The call reply_to
// names is settled, neither pending nor failed by the server, and the
// refusal is a note of the transport's that names what was refused.
func (s *session) refusedByProxy(fc *frameCtx) {
	f := fc.f
	if len(f.ReplyTo) > 0 {
		key := callKey{dir: capture.ClientToServer, id: string(f.ReplyTo), conn: f.ConnID}
		if c := s.calls.open[key]; c != nil && c.open() && !c.answered {
			fc.belongsTo(c)
			c.it.answerHop(f.TS, nil)
			c.answered, c.end, c.state = true, f.TS, stateFailed
			s.unpark(c)
			s.calls.retire(c)
			s.progressDone(c)
			s.ended(c)
		}
	}
	text := "the proxy refused the request itself with HTTP " + strconv.Itoa(f.Status) + " (Host " + strconv.Quote(s.serverWords(f.Host))
	if f.Origin != "" {
		text += ", Origin " + strconv.Quote(s.serverWords(f.Origin))
	}
	text += "): the server never saw it"
	s.addFinding(findingInput{
		signal: SignalError, level: LevelNote, party: PartyTransport, phase: phaseFrames,
		ordinal: fc.ordinal, rank: rankError, seq: f.Seq, path: fc.pos.Path, line: fc.pos.Line,
		method: fc.method, tool: fc.tool, kind: "the proxy refused the request itself with HTTP <status>", text: text,
	})
}

// emptyStream applies W55 to an event stream that ended without a single
// event while the request it answered (reply_to) waited: nothing can
// answer it any more. The call is settled as failed, so it is not left
// pending, and the warning is the server's.
func (s *session) emptyStream(fc *frameCtx) {
	f := fc.f
	if len(f.ReplyTo) == 0 || f.Direction != capture.ServerToClient {
		return
	}
	c := s.calls.open[callKey{dir: capture.ClientToServer, id: string(f.ReplyTo), conn: f.ConnID}]
	if c == nil || !c.open() || c.answered {
		return
	}
	fc.belongsTo(c)
	c.it.answerHop(f.TS, nil)
	s.conclude(c, f.TS, true, 0)
	fc.warn("W55", "the event stream answering <subject> ended without an event, so the request can never be answered",
		"the event stream answering "+c.subject()+" ended without an event, so the request can never be answered")
}
