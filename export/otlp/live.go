package otlp

import (
	"strconv"
	"unicode/utf8"

	"github.com/mcpsnoop/mcpsnoop/checker"
)

// Live maps the calls of sessions still being captured to spans for a
// live OTLP stream, the way the export maps a finished log: the same span
// (fillSpan), span id, fallback trace and resource attributes, from what
// the session has shown so far (checker.SessionSoFar) rather than from its
// final report. So a live span differs from the exported one only where
// the session learnt more later: its resource's counters (missing frames,
// late results) are those at the call's end, and a session that joins a
// traced run after some of its calls ended sent those calls under the
// trace it knew then (its client process's run, else its own).
//
// Live is not safe for concurrent use.
type Live struct {
	sessions map[string]*liveSession
}

// liveSession is what Live keeps of a session: the request keys that
// named a span, and what it derived last (so a span does not parse the
// server info or hash the run id again while they stay the same).
type liveSession struct {
	seen       map[string]bool
	serverInfo string // raw, as last parsed
	res        resource
	runKey     string // run id + full trace, as last hashed
	trace      TraceID
}

// maxLiveKeys bounds the request keys Live remembers per session. Past it
// the set starts again, so a long-lived capture keeps bounded memory; a
// request id reused across that boundary would get its first span id
// again, a case clients that number requests upwards never meet.
const maxLiveKeys = 1 << 16

// NewLive returns an empty mapping.
func NewLive() *Live { return &Live{sessions: map[string]*liveSession{}} }

// Span is one call mapped for the stream, as little as a queue can keep
// cheaply; AppendTraces builds the payload.
type Span struct {
	res   resource
	call  callRec
	id    SpanID
	trace TraceID
}

// SessionID is the session the span belongs to.
func (s *Span) SessionID() string { return s.res.SessionID }

// Span maps call r of session so, which has just ended.
func (l *Live) Span(so checker.SessionSoFar, r *checker.CallRecord) Span {
	ls := l.sessions[so.ID]
	if ls == nil {
		ls = &liveSession{seen: map[string]bool{}}
		l.sessions[so.ID] = ls
	}
	res := resource{
		SessionID: so.ID, Label: so.Label, LateResults: so.Counters.LateResults,
		MissingFrames: so.Counters.MissingFrames, Transport: so.Transport,
		ProtocolVersion: so.Capabilities.ProtocolVersion,
	}
	if si := so.Capabilities.ServerInfo; string(si) != ls.serverInfo || ls.res.SessionID == "" {
		ls.serverInfo = string(si)
		ls.res = resource{SessionID: so.ID}
		ls.res.serverInfo(si)
		ls.res.ServerName = CutLive(ls.res.ServerName, MaxLiveName)
		ls.res.ServerVersion = CutLive(ls.res.ServerVersion, MaxLiveName)
	}
	res.ProtocolVersion = CutLive(res.ProtocolVersion, MaxLiveName)
	res.ServerName, res.hasServerName = ls.res.ServerName, ls.res.hasServerName
	res.ServerVersion, res.hasServerVersion = ls.res.ServerVersion, ls.res.hasServerVersion
	full := ""
	switch {
	case len(so.TraceIDs) > 0 && len(so.TraceIDs[0]) == 32:
		full = so.TraceIDs[0]
		res.RunID, res.RunKeyKind = "t-"+full[:16], checker.RunKeyTrace
	case so.ProcessRunID != "":
		res.RunID, res.RunKeyKind = so.ProcessRunID, checker.RunKeyProcess
	}
	if key := res.RunID + "\x00" + full; key != ls.runKey || ls.trace.IsEmpty() {
		ls.runKey, ls.trace = key, fallbackTrace(so.ID, res.RunID, res.RunKeyKind, full)
	}
	c := newCallRec(r)
	if len(ls.seen) >= maxLiveKeys {
		ls.seen = map[string]bool{}
	}
	id := spanIDFor(ls.seen, so.ID, r.Index, &c) // from the whole request id
	c.cutLive()
	return Span{res: res, call: c, id: id, trace: ls.trace}
}

// Bounds of the wire's strings in a live span. A live stream holds up to
// its queue of spans in memory while a collector is away, so what a peer
// chose (an error message, a tool name, an id) is cut rather than copied
// whole into each: an error message to MaxLiveMessage bytes, names, ids
// and other short values to MaxLiveName, each cut value followed by a
// marker saying how long it was (see CutLive); a tracestate longer than
// MaxLiveMessage is not passed on. The span id is derived from the whole
// request id first. The export writes a file and keeps every value whole.
const (
	MaxLiveMessage = 4 << 10
	MaxLiveName    = 256
)

// CutLive is s when it holds at most n bytes, else its first n bytes (cut
// at a character boundary) followed by "…[cut from N bytes]".
func CutLive(s string, n int) string {
	if len(s) <= n {
		return s
	}
	keep := n
	for keep > 0 && !utf8.RuneStart(s[keep]) {
		keep--
	}
	return s[:keep] + "…[cut from " + strconv.Itoa(len(s)) + " bytes]" // a copy: s is not kept
}

// cutLive bounds the wire's strings of a live span's call.
func (c *callRec) cutLive() {
	c.ErrMessage = CutLive(c.ErrMessage, MaxLiveMessage)
	c.CancelReason = CutLive(c.CancelReason, MaxLiveMessage)
	for _, s := range []*string{&c.ID, &c.Method, &c.Tool, &c.OpName, &c.ErrCode, &c.TaskID, &c.TaskStatus} {
		*s = CutLive(*s, MaxLiveName)
	}
	if len(c.TraceState) > MaxLiveMessage {
		c.TraceState = "" // a cut list would not be one: not passed on
	}
}

// AppendTraces appends the OTLP/JSON export request (the body of POST
// /v1/traces) of spans: one resourceSpans per distinct resource, in the
// order they first appear, each with one scopeSpans (scope "mcpsnoop")
// holding its spans in order ({} for no spans).
func AppendTraces(b []byte, spans []Span) ([]byte, error) {
	if len(spans) == 0 {
		return append(b, "{}"...), nil
	}
	var order []resource
	groups := map[resource][]int{}
	for i := range spans {
		r := spans[i].res
		if _, ok := groups[r]; !ok {
			order = append(order, r)
		}
		groups[r] = append(groups[r], i)
	}
	var sp span
	var ra attrs // the resource's attributes, reused
	b = append(b, `{"resourceSpans":[`...)
	for n, r := range order {
		if n > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"resource":`...)
		ra = r.attributes(ra[:0])
		b = appendResource(b, ra)
		b = append(b, `,"scopeSpans":[{"scope":`...)
		b = appendScope(b, scopeName)
		b = append(b, `,"spans":[`...)
		for k, i := range groups[r] {
			s := &spans[i]
			if err := fillSpan(&sp, s.id, s.trace, &s.call); err != nil {
				return nil, err
			}
			if k > 0 {
				b = append(b, ',')
			}
			b = appendSpan(b, &sp)
		}
		b = append(b, "]}]}"...)
	}
	return append(b, "]}"...), nil
}
