package export

import (
	"bytes"
	"encoding/json"
	"strconv"
	"time"

	"github.com/mcpsnoop/mcpsnoop/checker"
	"github.com/tidwall/gjson"
)

// The parts of a session's document that json and html share: the session
// header, the summary, the capabilities (capture-store-export.md 7.2) and the
// call and event records.

type sessionDoc struct {
	ID            string    `json:"id"`
	Label         string    `json:"label"`
	Transport     string    `json:"transport,omitempty"`
	First         time.Time `json:"first"`
	Last          time.Time `json:"last"`
	Frames        int       `json:"frames"`
	Calls         int       `json:"calls"`
	Requests      int       `json:"requests"`
	Responses     int       `json:"responses"`
	Notifications int       `json:"notifications"`
	Errors        int       `json:"errors"`
	Warnings      int       `json:"warnings"`
	Invalid       int       `json:"invalid"`
	Pending       int       `json:"pending"`
	LateResults   int       `json:"late_results"`
	MissingFrames int       `json:"missing_frames"`
	RunIDs        []string  `json:"run_ids,omitempty"`
}

type summaryDoc struct {
	Definitions  *definitionsDoc     `json:"definitions,omitempty"`
	Tools        []checker.ToolStats `json:"tools"`
	SlowestCalls []SlowCall          `json:"slowest_calls"`
}

type definitionsDoc struct {
	Tools    int           `json:"tools"`
	Bytes    int           `json:"bytes"`
	Complete bool          `json:"complete"`
	PerTool  []toolCostDoc `json:"per_tool"`
}

type toolCostDoc struct {
	Name             string   `json:"name"`
	Bytes            int      `json:"bytes"`
	DescriptionBytes int      `json:"description_bytes"`
	SchemaBytes      int      `json:"schema_bytes"`
	Findings         []string `json:"findings,omitempty"`
}

type capabilitiesDoc struct {
	ProtocolVersion string          `json:"protocol_version,omitempty"`
	ClientInfo      json.RawMessage `json:"client_info,omitempty"`
	ServerInfo      json.RawMessage `json:"server_info,omitempty"`
	Client          json.RawMessage `json:"client,omitempty"`
	Server          json.RawMessage `json:"server,omitempty"`
	Instructions    *string         `json:"instructions,omitempty"`
}

func newSessionDoc(s *Session) sessionDoc {
	r := s.Report
	return sessionDoc{
		ID: r.ID, Label: r.Label, Transport: r.Transport, First: r.First, Last: r.Last,
		Frames: r.Traffic.Frames, Calls: r.Calls,
		Requests: r.Traffic.Requests, Responses: r.Traffic.Responses, Notifications: r.Traffic.Notifications,
		Errors: r.Counters.Errors, Warnings: r.Counters.Warnings, Invalid: r.Counters.Invalid,
		Pending: r.Counters.Pending, LateResults: r.Counters.LateResults,
		MissingFrames: r.Counters.MissingFrames, RunIDs: r.RunIDs,
	}
}

func newSummaryDoc(s *Session) summaryDoc {
	r := s.Report
	sum := summaryDoc{Tools: nonNil(r.Tools), SlowestCalls: nonNil(s.Slowest)}
	if r.Listing.Listed {
		d := &definitionsDoc{Tools: len(r.Definitions), Complete: r.Listing.Complete, PerTool: []toolCostDoc{}}
		for _, c := range r.Definitions {
			d.Bytes += c.Bytes
			d.PerTool = append(d.PerTool, toolCostDoc{
				Name: c.Name, Bytes: c.Bytes, DescriptionBytes: c.DescriptionBytes,
				SchemaBytes: c.SchemaBytes, Findings: c.Findings,
			})
		}
		sum.Definitions = d
	}
	return sum
}

// newCapabilitiesDoc is nil when the session said nothing about itself.
func newCapabilitiesDoc(c *checker.Capabilities) *capabilitiesDoc {
	if !c.Seen() {
		return nil
	}
	d := &capabilitiesDoc{
		ProtocolVersion: c.ProtocolVersion, ClientInfo: c.ClientInfo, ServerInfo: c.ServerInfo,
		Client: c.Client, Server: c.Server,
	}
	if c.HasInstructions {
		d.Instructions = &c.Instructions
	}
	return d
}

// marshal encodes v as encoding/json does without HTML escaping, indented
// as if it sat depth levels deep.
func marshal(v any, depth int) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent(string(bytes.Repeat([]byte(indentUnit), depth)), indentUnit)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// errorNames are the spec names of JSON-RPC and MCP error codes.
var errorNames = map[int64]string{
	-32700: "parse error",
	-32600: "invalid request",
	-32601: "method not found",
	-32602: "invalid params",
	-32603: "internal error",
	-32020: "header mismatch",
	-32021: "missing required client capability",
	-32022: "unsupported protocol version",
}

// errorName names the code of a JSON-RPC error object ("" when unnamed).
func errorName(errObj []byte) string {
	code := gjson.GetBytes(errObj, "code")
	if code.Type != gjson.Number || code.Num != float64(int64(code.Num)) {
		return ""
	}
	return errorNames[int64(code.Num)]
}

// objWriter appends one JSON object, member by member, compact; with html
// set its strings are also HTML-safe, for embedding in a page. Formats keep
// records compact and indent them as they write them out: it halves what
// goes through the spill.
type objWriter struct {
	b    []byte
	html bool
	n    int
}

func newObj(dst []byte, html bool) objWriter {
	return objWriter{b: append(dst, '{'), html: html}
}

func (o *objWriter) key(k string) {
	if o.n > 0 {
		o.b = append(o.b, ',')
	}
	o.n++
	o.b = append(o.b, '"')
	o.b = append(o.b, k...)
	o.b = append(o.b, '"', ':')
}

func (o *objWriter) str(k, v string) {
	o.key(k)
	o.b = appendString(o.b, v, o.html)
}

func (o *objWriter) strNonEmpty(k, v string) {
	if v != "" {
		o.str(k, v)
	}
}

func (o *objWriter) int(k string, v int64) {
	o.key(k)
	o.b = strconv.AppendInt(o.b, v, 10)
}

func (o *objWriter) bool(k string, v bool) {
	o.key(k)
	if v {
		o.b = append(o.b, "true"...)
	} else {
		o.b = append(o.b, "false"...)
	}
}

func (o *objWriter) float(k string, v float64) {
	o.key(k)
	o.b = appendFloat(o.b, v)
}

func (o *objWriter) time(k string, t time.Time) {
	o.key(k)
	o.b = appendTime(o.b, t)
}

// json appends a JSON value as it is. The html page never embeds one this
// way: it carries payloads as escaped strings.
func (o *objWriter) json(k string, v []byte) {
	o.key(k)
	o.b = append(o.b, v...)
}

func (o *objWriter) close() []byte {
	return append(o.b, '}')
}

// callFields writes a call's members (capture-store-export.md 7.2, plus
// round_trips and server_time_ms); body writes params, result and error.
func callFields(o *objWriter, r *checker.CallRecord, body func(o *objWriter, k string, v []byte)) {
	o.int("index", int64(r.Index))
	o.str("id", r.ID)
	o.str("method", r.Method)
	o.str("direction", r.Direction)
	o.str("state", r.State)
	o.str("status", r.Status)
	o.bool("is_tool", r.IsTool)
	if r.IsTool && r.Name != "" {
		o.str("tool_name", r.Name)
	}
	o.bool("is_error", r.IsError)
	o.bool("tool_error", r.ToolError)
	o.strNonEmpty("task_id", r.TaskID)
	o.strNonEmpty("task_status", r.TaskStatus)
	o.time("started_at", r.Start)
	if r.HasDuration {
		o.time("ended_at", r.End)
	}
	if !r.CancelledAt.IsZero() {
		o.time("cancelled_at", r.CancelledAt)
	}
	o.strNonEmpty("cancel_reason", r.CancelReason)
	if r.LateResult {
		o.bool("late_result", true)
	}
	if r.HasDuration {
		o.float("duration_ms", durationMs(r.Duration))
	}
	o.int("round_trips", int64(r.RoundTrips))
	if r.HasDuration {
		o.float("server_time_ms", durationMs(r.ServerTime))
	}
	if r.Params != nil {
		body(o, "params", r.Params)
	}
	if r.Result != nil {
		body(o, "result", r.Result)
	}
	if r.Error != nil {
		body(o, "error", r.Error)
		if name := errorName(r.Error); name != "" {
			o.str("error_name", name)
		}
	}
}

// eventFields writes a frame's members but its payload
// (capture-store-export.md 7.2, plus errors).
func eventFields(o *objWriter, ev *checker.FrameEvent) {
	f := ev.Frame
	o.int("seq", int64(f.Seq))
	o.time("timestamp", f.TS)
	o.str("direction", f.Direction)
	o.str("kind", ev.Kind)
	o.strNonEmpty("method", ev.Method)
	o.strNonEmpty("id", ev.ID)
	o.strNonEmpty("warning", ev.Warning)
	o.strNonEmpty("observation", ev.Observation)
	if ev.Mismatch {
		o.bool("mismatch", true)
	}
	if len(ev.Errors) > 0 {
		o.key("errors")
		o.b = append(o.b, '[')
		for i, e := range ev.Errors {
			if i > 0 {
				o.b = append(o.b, ',')
			}
			o.b = appendString(o.b, e, o.html)
		}
		o.b = append(o.b, ']')
	}
	if f.Status != 0 {
		o.int("http_status", int64(f.Status))
	}
	o.strNonEmpty("auth_challenge", f.AuthChallenge)
	if f.Truncated {
		o.bool("truncated", true)
	}
	// deprecated is the deprecation message itself, as the reference
	// gives it and scripts read it; absent when the frame is not
	// deprecated.
	o.strNonEmpty("deprecated", ev.Deprecated)
	if ev.HasCacheTTL {
		o.int("cache_ttl_ms", ev.CacheTTLMs)
	}
	o.strNonEmpty("cache_scope", ev.CacheScope)
	if ev.CacheStaleRefetch {
		o.bool("cache_stale_refetch", true)
	}
	if ev.CallIndex >= 0 {
		o.int("call_index", int64(ev.CallIndex))
	}
}
