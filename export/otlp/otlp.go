// Package otlp writes an export as an OTLP/JSON trace payload, the body an
// OpenTelemetry collector takes on POST /v1/traces: one resourceSpans per
// session, each with one scopeSpans (scope "mcpsnoop") holding a span per
// call, in the order of the json export's calls.
//
// The OTLP/JSON is written by a small encoder of the package's own
// (otlpjson.go): trace and span ids as hex, 64-bit integers as strings,
// enums as their numbers, the same bytes the OpenTelemetry collector's
// pdata writes (its tests hold them against pdata, which the binary does
// not link: it would cost every shim start-up time and memory). A
// session's spans are streamed one at a time rather than held in memory.
//
// Trace context: a call whose params._meta.traceparent is valid (W3C rules,
// package tracecontext) gets that trace id, the client's span as its
// parent, and the request's tracestate when it can be passed on. Any other
// call gets a synthetic trace id (see traceFor).
package otlp

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/mcpsnoop/mcpsnoop/checker"
	"github.com/mcpsnoop/mcpsnoop/export"
	"github.com/mcpsnoop/mcpsnoop/tracecontext"
	"github.com/tidwall/gjson"
)

// New returns the otlp format.
func New() export.Format { return &format{} }

type format struct {
	sessions int // resourceSpans written so far (for the commas)
}

// callRec is what Call keeps of a call: no bodies, only what its span
// shows, with the trace context already read from its params.
type callRec struct {
	ID           string `json:"id"`
	Method       string `json:"m"`
	Tool         string `json:"t,omitempty"`
	Dir          string `json:"d"`
	State        string `json:"st"`
	Status       string `json:"s"`
	IsTool       bool   `json:"it,omitempty"`
	IsError      bool   `json:"ie,omitempty"`
	ToolError    bool   `json:"te,omitempty"`
	LateResult   bool   `json:"lr,omitempty"`
	Start        int64  `json:"b"`            // unix ns
	End          int64  `json:"e,omitempty"`  // unix ns, 0 while open
	Duration     int64  `json:"du,omitempty"` // ns, with HasDuration
	HasDuration  bool   `json:"hd,omitempty"`
	RoundTrips   int    `json:"rt,omitempty"`
	ServerTime   int64  `json:"sv,omitempty"` // ns
	TaskID       string `json:"ti,omitempty"`
	TaskStatus   string `json:"tt,omitempty"`
	CancelledAt  string `json:"ca,omitempty"` // RFC 3339, as captured
	CancelReason string `json:"cr,omitempty"`
	ErrMessage   string `json:"em,omitempty"`
	ErrCode      string `json:"ec,omitempty"` // the JSON-RPC error's code, as written
	// OpName is the prompt of a prompts/get, the resource of a resources/*
	// request (Tool holds a tools/call's).
	OpName string `json:"n,omitempty"`
	// TraceID, ParentID and Flags come from a valid traceparent ("" when
	// there was none); TraceState is the tracestate to pass on.
	TraceID    string `json:"tr,omitempty"`
	ParentID   string `json:"pa,omitempty"`
	Flags      byte   `json:"fl,omitempty"`
	TraceState string `json:"ts,omitempty"`
	// ProtocolVersion is mcp.protocol.version: the revision the call ran
	// under.
	ProtocolVersion string `json:"pv,omitempty"`
}

// Event keeps nothing: only calls become spans.
func (f *format) Event(*checker.FrameEvent) ([]byte, error) { return nil, nil }

// Call renders what the call's span needs.
func (f *format) Call(r *checker.CallRecord) ([]byte, error) {
	c := newCallRec(r)
	return json.Marshal(c)
}

// newCallRec keeps what the span of call r shows (the export's Call and a
// live stream's Span both start here).
func newCallRec(r *checker.CallRecord) callRec {
	c := callRec{
		ID: r.ID, Method: r.Method, Dir: r.Direction, State: r.State, Status: r.Status,
		IsTool: r.IsTool, IsError: r.IsError, ToolError: r.ToolError, LateResult: r.LateResult,
		Start: unixNano(r.Start), HasDuration: r.HasDuration, RoundTrips: r.RoundTrips,
		TaskID: r.TaskID, TaskStatus: r.TaskStatus, CancelReason: r.CancelReason,
		ProtocolVersion: r.ProtocolVersion,
	}
	if r.IsTool {
		c.Tool = r.Name
	} else {
		c.OpName = r.Name
	}
	if !r.End.IsZero() {
		c.End = unixNano(r.End)
	}
	if r.HasDuration {
		c.Duration, c.ServerTime = int64(r.Duration), int64(r.ServerTime)
	}
	if !r.CancelledAt.IsZero() {
		c.CancelledAt = r.CancelledAt.Format(time.RFC3339Nano)
	}
	if m := gjson.GetBytes(r.Error, "message"); m.Type == gjson.String {
		c.ErrMessage = m.Str
	}
	if code := gjson.GetBytes(r.Error, "code"); code.Type == gjson.Number {
		c.ErrCode = code.Raw
	}
	c.TraceID, c.ParentID, c.Flags, c.TraceState = traceContext(r.Params)
	return c
}

// unixNano is t in nanoseconds since the Unix epoch, for an OTLP timestamp
// (an unsigned count): 0 for a time before the epoch (a frame without ts
// reads as the zero time, whose UnixNano is undefined), the largest value
// for one past what int64 nanoseconds hold (the year 2262).
func unixNano(t time.Time) int64 {
	switch {
	case t.Before(time.Unix(0, 0)):
		return 0
	case t.After(time.Unix(0, math.MaxInt64)):
		return math.MaxInt64
	}
	return t.UnixNano()
}

// traceContext reads _meta.traceparent and _meta.tracestate from a
// request's params (exact keys, string values). An invalid traceparent is
// ignored whole, and its tracestate is then not read at all; a tracestate
// that cannot be passed on is dropped without touching the traceparent.
func traceContext(params []byte) (traceID, parentID string, flags byte, state string) {
	if len(params) == 0 {
		return
	}
	meta := gjson.GetBytes(params, "_meta")
	if !meta.IsObject() {
		return
	}
	tp := meta.Get("traceparent")
	if tp.Type != gjson.String {
		return
	}
	p, err := tracecontext.ParseTraceParent(tp.Str)
	if err != nil {
		return
	}
	if ts := meta.Get("tracestate"); ts.Type == gjson.String {
		state, _ = tracecontext.PassTraceState(ts.Str)
	}
	return p.TraceID, p.ParentID, p.Flags, state
}

// Begin opens the payload.
func (f *format) Begin(w io.Writer, _ *export.Output) error {
	_, err := io.WriteString(w, "{\n  \"resourceSpans\": [")
	return err
}

// End closes the payload.
func (f *format) End(w io.Writer, _ *export.Output) error {
	end := "\n  ]\n}\n"
	if f.sessions == 0 {
		end = "]\n}\n"
	}
	_, err := io.WriteString(w, end)
	return err
}

// Indentation of the pieces inside the payload.
const (
	rsIndent   = "    "         // a resourceSpans element
	keyIndent  = "      "       // its keys
	ssIndent   = "        "     // the scopeSpans element
	ssKey      = "          "   // its keys
	spanIndent = "            " // a span
)

// Session writes the session's resourceSpans, streaming its spans.
func (f *format) Session(w io.Writer, s *export.Session) error {
	rep := s.Report
	if rep == nil {
		return errors.New("otlp: session without a report")
	}
	fallback, err := traceFor(s)
	if err != nil {
		return err
	}
	head := header(s)
	var b bytes.Buffer
	if f.sessions > 0 {
		b.WriteByte(',')
	}
	f.sessions++
	b.WriteString("\n" + rsIndent + "{\n" + keyIndent + `"resource": `)
	if err := indent(&b, head.resource, keyIndent); err != nil {
		return err
	}
	b.WriteString(",\n" + keyIndent + `"scopeSpans": [` + "\n" + ssIndent + "{\n" + ssKey + `"scope": `)
	if err := indent(&b, head.scope, ssKey); err != nil {
		return err
	}
	b.WriteString(",\n" + ssKey + `"spans": [`)
	if _, err := w.Write(b.Bytes()); err != nil {
		return err
	}

	sb := newSpanBuilder(rep.ID, fallback)
	spans := 0
	if s.Calls != nil {
		err = export.EachKept(s.Calls, func(i, n int, raw []byte) error {
			spans++
			var c callRec
			if err := json.Unmarshal(raw, &c); err != nil {
				return fmt.Errorf("otlp: reading a kept call: %w", err)
			}
			span, err := sb.span(i, &c)
			if err != nil {
				return err
			}
			b.Reset()
			if n > 0 {
				b.WriteByte(',')
			}
			b.WriteString("\n" + spanIndent)
			if err := indent(&b, span, spanIndent); err != nil {
				return err
			}
			_, err = w.Write(b.Bytes())
			return err
		})
		if err != nil {
			return err
		}
	}
	b.Reset()
	if spans > 0 {
		b.WriteString("\n" + ssKey)
	}
	b.WriteString("]\n" + ssIndent + "}\n" + keyIndent + "]\n" + rsIndent + "}")
	_, err = w.Write(b.Bytes())
	return err
}

// indent writes raw re-indented as if it sat len(prefix)/2 levels deep, with
// the exporter's indenter (the same bytes as json.Indent, several times
// faster on every span of a long session).
func indent(b *bytes.Buffer, raw []byte, prefix string) error {
	b.Write(export.AppendIndent(b.AvailableBuffer(), raw, len(prefix)/2))
	return nil
}

// head is a session's resource and scope in OTLP/JSON.
type head struct{ resource, scope []byte }

// header builds the session's resource and the scope.
func header(s *export.Session) head {
	res := resourceOf(s)
	return head{resource: appendResource(nil, res.attributes(nil)), scope: appendScope(nil, scopeName)}
}

// scopeName is the instrumentation scope of every span.
const scopeName = "mcpsnoop"

// resource is what a session's resource says: its attributes, in the order
// of capture-store-export.md 7.6, then ours.
type resource struct {
	SessionID     string
	Label         string
	LateResults   int
	MissingFrames int
	Transport     string // "" when unknown
	ServerName    string // from the initialize result's serverInfo, "" when absent
	ServerVersion string
	// ProtocolVersion is the negotiated revision, "" when unknown.
	ProtocolVersion string
	// RunID and RunKeyKind name the session's run, "" when it has none.
	RunID, RunKeyKind string
	hasServerName     bool
	hasServerVersion  bool
}

// resourceOf is the resource of an exported session.
func resourceOf(s *export.Session) resource {
	rep := s.Report
	r := resource{
		SessionID: rep.ID, Label: rep.Label, LateResults: rep.Counters.LateResults,
		MissingFrames: rep.Counters.MissingFrames, Transport: rep.Transport,
		ProtocolVersion: rep.Capabilities.ProtocolVersion,
	}
	r.serverInfo(rep.Capabilities.ServerInfo)
	if s.Run != nil {
		r.RunID, r.RunKeyKind = s.Run.ID, s.Run.KeyKind
	}
	return r
}

// serverInfo reads the name and version of an initialize result's
// serverInfo (string values only).
func (r *resource) serverInfo(si []byte) {
	if len(si) == 0 {
		return
	}
	if v := gjson.GetBytes(si, "name"); v.Type == gjson.String {
		r.ServerName, r.hasServerName = v.Str, true
	}
	if v := gjson.GetBytes(si, "version"); v.Type == gjson.String {
		r.ServerVersion, r.hasServerVersion = v.Str, true
	}
}

// attributes appends the resource's attributes to a.
func (r *resource) attributes(a attrs) attrs {
	a.putStr("service.name", "mcpsnoop")
	a.putStr("mcpsnoop.session.id", r.SessionID)
	a.putStr("mcpsnoop.session.label", r.Label)
	a.putInt("mcpsnoop.session.late_results", int64(r.LateResults))
	a.putInt("mcpsnoop.session.missing_frames", int64(r.MissingFrames))
	if r.Transport != "" {
		a.putStr("mcpsnoop.session.transport", r.Transport)
	}
	if r.hasServerName {
		a.putStr("mcpsnoop.server.name", r.ServerName)
	}
	if r.hasServerVersion {
		a.putStr("mcpsnoop.server.version", r.ServerVersion)
	}
	if r.ProtocolVersion != "" {
		a.putStr("mcpsnoop.session.protocol_version", r.ProtocolVersion)
	}
	if r.RunID != "" {
		a.putStr("mcpsnoop.run.id", r.RunID)
		a.putStr("mcpsnoop.run.key_kind", r.RunKeyKind)
	}
	return a
}

// spanBuilder turns a session's kept calls into spans, one at a time, in
// a reused span and buffer.
type spanBuilder struct {
	session  string
	fallback TraceID
	sp       span
	buf      []byte
	seen     map[string]bool // request keys that already named a span
}

func newSpanBuilder(session string, fallback TraceID) *spanBuilder {
	return &spanBuilder{session: session, fallback: fallback, seen: map[string]bool{}}
}

// W3C trace flags, and the OTLP span flags saying the parent is remote.
const (
	flagHasIsRemote = 0x100
	flagIsRemote    = 0x200
)

// span renders call index i as one span's OTLP/JSON, valid until the
// next call.
func (sb *spanBuilder) span(i int, c *callRec) ([]byte, error) {
	if err := fillSpan(&sb.sp, sb.spanID(i, c), sb.fallback, c); err != nil {
		return nil, err
	}
	sb.buf = appendSpan(sb.buf[:0], &sb.sp)
	return sb.buf, nil
}

// fillSpan maps call c to span sp, with span id id and, when the call
// carries no valid traceparent, the trace fallback. It is the one mapping
// of a call to a span, for the export and for live streaming alike.
//
// Names and attributes follow the OpenTelemetry semantic conventions for
// MCP: the span is named after the method and, for a tool call or a
// prompt, its tool or prompt ("tools/call read_file"), and carries
// mcp.method.name, jsonrpc.request.id, gen_ai.tool.name (with
// gen_ai.operation.name execute_tool) or gen_ai.prompt.name,
// mcp.resource.uri, mcp.protocol.version (the revision the call ran
// under), and error.type (the JSON-RPC error code, or tool_error for a
// result marked isError). The mcpsnoop.* attributes stay.
func fillSpan(sp *span, id SpanID, fallback TraceID, c *callRec) error {
	*sp = span{attrs: sp.attrs[:0], name: spanName(c), kind: kindClient, spanID: id, traceID: fallback}
	if c.Dir == "s2c" {
		sp.kind = kindServer
	}
	if c.TraceID != "" {
		tid, err1 := hex.DecodeString(c.TraceID)
		pid, err2 := hex.DecodeString(c.ParentID)
		if err1 != nil || err2 != nil || len(tid) != 16 || len(pid) != 8 {
			return fmt.Errorf("otlp: kept trace context %s-%s is not hex", c.TraceID, c.ParentID)
		}
		sp.traceID = TraceID(tid)
		sp.parentID = SpanID(pid)
		sp.flags = uint32(c.Flags) | flagHasIsRemote | flagIsRemote
		sp.traceState = c.TraceState
	}
	sp.start = uint64(c.Start)
	end := c.End
	if end < c.Start { // not ended, or the capture clock stepped back
		end = c.Start
	}
	sp.end = uint64(end)

	a := &sp.attrs
	a.putStr("rpc.system", "mcp")
	a.putStr("rpc.method", c.Method)
	a.putStr("mcp.method.name", c.Method)
	a.putStr("jsonrpc.request.id", requestID(c.ID))
	if c.ProtocolVersion != "" {
		a.putStr("mcp.protocol.version", c.ProtocolVersion)
	}
	switch c.Method {
	case "tools/call":
		if c.Tool != "" {
			a.putStr("gen_ai.tool.name", c.Tool)
		}
		a.putStr("gen_ai.operation.name", "execute_tool")
	case "prompts/get":
		if c.OpName != "" {
			a.putStr("gen_ai.prompt.name", c.OpName)
		}
	case "resources/read", "resources/subscribe", "resources/unsubscribe":
		if c.OpName != "" {
			a.putStr("mcp.resource.uri", c.OpName)
		}
	}
	if et := errorType(c); et != "" {
		a.putStr("error.type", et)
		if c.ErrCode != "" {
			a.putStr("rpc.response.status_code", c.ErrCode)
		}
	}
	a.putStr("mcpsnoop.call.id", c.ID)
	a.putStr("mcpsnoop.call.status", c.Status)
	a.putStr("mcpsnoop.call.state", c.State)
	a.putBool("mcpsnoop.call.is_tool", c.IsTool)
	a.putBool("mcpsnoop.call.is_error", c.IsError)
	a.putBool("mcpsnoop.call.tool_error", c.ToolError)
	if c.Tool != "" {
		a.putStr("mcpsnoop.call.tool_name", c.Tool)
	}
	if c.HasDuration {
		a.putDouble("mcpsnoop.call.duration_ms", float64(c.Duration)/1e6)
	}
	if c.CancelledAt != "" {
		a.putStr("mcpsnoop.call.cancelled_at", c.CancelledAt)
	}
	if c.CancelReason != "" {
		a.putStr("mcpsnoop.call.cancel_reason", c.CancelReason)
	}
	if c.LateResult {
		a.putBool("mcpsnoop.call.late_result", true)
	}
	if c.RoundTrips > 1 {
		a.putInt("mcpsnoop.call.round_trips", int64(c.RoundTrips))
		if c.HasDuration {
			a.putDouble("mcpsnoop.call.server_time_ms", float64(c.ServerTime)/1e6)
		}
	}
	if c.TaskID != "" {
		a.putStr("mcpsnoop.call.task_id", c.TaskID)
	}
	if c.TaskStatus != "" {
		a.putStr("mcpsnoop.call.task_status", c.TaskStatus)
	}

	// A failed call's status is Error; every other span's stays Unset, as
	// the conventions ask of instrumentation (Ok is the application's to
	// set), whether the call succeeded or never finished on its own.
	if c.IsError {
		sp.status.code = statusError
		sp.status.message = c.ErrMessage
		if sp.status.message == "" && c.ToolError {
			sp.status.message = "tool result marked isError"
		}
	}
	return nil
}

// spanName is "{mcp.method.name} {target}", the target being the tool of
// a tools/call or the prompt of a prompts/get; the method alone otherwise
// (a resource's uri would make names of unbounded cardinality).
func spanName(c *callRec) string {
	switch {
	case c.Method == "tools/call" && c.Tool != "":
		return c.Method + " " + c.Tool
	case c.Method == "prompts/get" && c.OpName != "":
		return c.Method + " " + c.OpName
	}
	return c.Method
}

// requestID is a request id as the conventions want it: a string id
// without its quotes, a number as written.
func requestID(raw string) string {
	if strings.HasPrefix(raw, `"`) {
		if v := gjson.Parse(raw); v.Type == gjson.String {
			return v.Str
		}
	}
	return raw
}

// errorType is error.type of a failed call: its JSON-RPC error code,
// tool_error for a result marked isError, _OTHER for a failure without
// either (an HTTP refusal); "" when the call did not fail.
func errorType(c *callRec) string {
	switch {
	case !c.IsError:
		return ""
	case c.ErrCode != "":
		return c.ErrCode
	case c.ToolError:
		return "tool_error"
	}
	return "_OTHER"
}

// spanID is 8 bytes of SHA-256("span\0" session "\0" raw id "\0"
// direction "\0"), as the reference derives it. A request key used again
// later in the session (a superseded id, an id reused after its call
// ended) would repeat that span id within the trace, which tracing
// backends take for the same span; from its second use on, the call index
// is added as one more part: SHA-256("span\0" ... direction "\0" index
// "\0").
func (sb *spanBuilder) spanID(i int, c *callRec) SpanID {
	return spanIDFor(sb.seen, sb.session, i, c)
}

// spanIDFor is the span id of call index i of session, seen holding the
// request keys that already named a span (see spanBuilder.spanID).
func spanIDFor(seen map[string]bool, session string, i int, c *callRec) SpanID {
	key := c.Dir + "\x00" + c.ID
	if len(key) > 64 {
		key = string(digest("key", key)) // a long id is not kept whole
	}
	if seen[key] {
		return SpanID(digest("span", session, c.ID, c.Dir, strconv.Itoa(i))[:8])
	}
	seen[key] = true
	return SpanID(digest("span", session, c.ID, c.Dir)[:8])
}

// digest is SHA-256 over the parts, each followed by a NUL byte.
func digest(parts ...string) []byte {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return h.Sum(nil)
}

// SessionTraceID is the synthetic trace id of a session outside any run:
// 16 bytes of SHA-256("trace\0" session id "\0").
func SessionTraceID(session string) TraceID {
	return TraceID(digest("trace", session)[:16])
}

// RunTraceID is the synthetic trace id of a run whose client sent no
// trace context (a client-process run): 16 bytes of SHA-256("run\0" run id
// "\0"). It depends on the run id alone, so every session of the run, and
// every export of it, lands in one trace. The "run" part keeps it apart
// from session trace ids even if a session id looked like a run id.
func RunTraceID(runID string) TraceID {
	return TraceID(digest("run", runID)[:16])
}

// traceFor is the trace of the session's calls that carry no valid
// traceparent:
//   - outside a run, the session's synthetic trace (SessionTraceID);
//   - in a run the client traced, that run's real trace id, so the
//     untraced calls join the client's trace (the run id holds only 16 of
//     its 32 hex digits: the full id is taken from a call of the session
//     that carried it, else from the run's label);
//   - in a client-process run, the run's synthetic trace (RunTraceID).
func traceFor(s *export.Session) (TraceID, error) {
	if s.Run == nil {
		return fallbackTrace(s.Report.ID, "", "", ""), nil
	}
	full := ""
	if s.Run.KeyKind == checker.RunKeyTrace {
		prefix := strings.TrimPrefix(s.Run.ID, "t-")
		if s.Calls != nil {
			errFound := errors.New("found")
			err := s.Calls.Each(func(_ int, raw []byte) error {
				if t := gjson.GetBytes(raw, "tr"); t.Type == gjson.String && strings.HasPrefix(t.Str, prefix) {
					full = t.Str
					return errFound
				}
				return nil
			})
			if err != nil && err != errFound {
				return TraceID{}, err
			}
		}
		if full == "" {
			if t, ok := strings.CutPrefix(s.Run.Label, "trace "); ok && strings.HasPrefix(t, prefix) {
				full = t
			}
		}
	}
	return fallbackTrace(s.Report.ID, s.Run.ID, s.Run.KeyKind, full), nil
}

// fallbackTrace is the trace of a session's untraced calls given its run
// (runID "" for none) and, for a trace run, the run's full trace id when
// known (see traceFor).
func fallbackTrace(session, runID, kind, fullTrace string) TraceID {
	if runID == "" {
		return SessionTraceID(session)
	}
	if kind == checker.RunKeyTrace {
		if id, err := hex.DecodeString(fullTrace); err == nil && len(id) == 16 {
			return TraceID(id)
		}
	}
	return RunTraceID(runID)
}
