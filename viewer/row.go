package viewer

import (
	"math"
	"strings"
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/checker"
)

// Row is one frame of a session as the engine judged it.
//
// A live view holds up to 200,000 rows, so a row is kept small: the
// strings many rows share (session id, label, transport, log path,
// direction, kind, method, tool, HTTP metadata) are interned, the time is
// an integer, and what most frames lack (the engine's remarks, MCP
// parameter headers) hangs off a pointer that is nil when empty.
type Row struct {
	Seq uint64
	// Line is the frame's line in its log (Source).
	Line int32
	// CallIndex is the engine's index of the call the frame belongs to,
	// -1 when it belongs to none.
	CallIndex int32

	// Interned.
	Direction, Kind, Method, Tool string
	// ID is the JSON-RPC id as raw JSON text ("" for none).
	ID string

	ts     int64 // Unix nanoseconds; noTime when the envelope had none
	tsOff  int32 // the timestamp's offset from UTC, in seconds
	status int16 // HTTP status, 0 for none
	flags  rowFlags
	// body is the frame's raw JSON, or its text when flagText is set; it
	// is cleared when the store releases it (flagReleased).
	body string

	src   *rowSource // interned
	http  *httpMeta  // interned; nil when the frame has no HTTP metadata
	extra *rowExtra  // nil when empty
	call  *Call
}

type rowFlags uint8

const (
	flagReleased rowFlags = 1 << iota
	flagMismatch
	flagBatch
	flagTruncated
	flagRedacted
	flagText
)

const noTime = math.MinInt64

// rowSource is what the rows of one session read from one log share.
type rowSource struct {
	session, label, transport, path string
}

// httpMeta is the HTTP metadata of a frame; frames of one connection
// mostly share it.
type httpMeta struct {
	connID, contentType, accept, origin         string
	mcpMethod, mcpName, protocol, authChallenge string
}

// rowExtra is what few frames have.
type rowExtra struct {
	warning, observation, deprecated string
	errors                           []string
	params                           []capture.ParamHeader
	replyTo                          string
}

// Interner shares the strings rows repeat. The rows of one store are made
// through one Interner (Load's, or the Follower's for the live store). It
// is not safe for concurrent use. Past internMax entries a table starts
// over: rows keep the strings they have, later rows share new copies.
type Interner struct {
	strs    map[string]string
	sources map[rowSource]*rowSource
	https   map[httpMeta]*httpMeta
}

const internMax = 1 << 16

// NewInterner returns an empty table.
func NewInterner() *Interner {
	return &Interner{strs: map[string]string{}, sources: map[rowSource]*rowSource{}, https: map[httpMeta]*httpMeta{}}
}

// Str returns s, copied once and shared by later calls. s may view a
// buffer that is reused: the table keeps its own copy.
func (in *Interner) Str(s string) string {
	if s == "" {
		return ""
	}
	if v, ok := in.strs[s]; ok {
		return v
	}
	if len(in.strs) >= internMax {
		clear(in.strs)
	}
	v := strings.Clone(s)
	in.strs[v] = v
	return v
}

func (in *Interner) source(k rowSource) *rowSource {
	if p := in.sources[k]; p != nil {
		return p
	}
	if len(in.sources) >= internMax {
		clear(in.sources)
	}
	p := &rowSource{in.Str(k.session), in.Str(k.label), in.Str(k.transport), in.Str(k.path)}
	in.sources[*p] = p
	return p
}

func (in *Interner) http(k httpMeta) *httpMeta {
	if k == (httpMeta{}) {
		return nil
	}
	if p := in.https[k]; p != nil {
		return p
	}
	if len(in.https) >= internMax {
		clear(in.https)
	}
	p := &httpMeta{in.Str(k.connID), in.Str(k.contentType), in.Str(k.accept), in.Str(k.origin),
		in.Str(k.mcpMethod), in.Str(k.mcpName), in.Str(k.protocol), in.Str(k.authChallenge)}
	in.https[*p] = p
	return p
}

// Row makes the row of one engine event. Every string of the event may
// view the reader's buffer, which the next line overwrites, so the row
// shares none of them.
func (in *Interner) Row(ev *checker.FrameEvent) *Row {
	f := ev.Frame
	r := &Row{
		Seq: f.Seq, Line: int32(ev.Pos.Line), CallIndex: int32(ev.CallIndex),
		Direction: in.Str(f.Direction), Kind: in.Str(ev.Kind), Method: in.Str(ev.Method), Tool: in.Str(ev.Tool),
		ID:     strings.Clone(ev.ID),
		ts:     noTime,
		status: int16(f.Status),
		src:    in.source(rowSource{f.SessionID, f.ServerLabel, f.Transport, ev.Pos.Name}),
		http: in.http(httpMeta{f.ConnID, f.ContentType, f.Accept, f.Origin,
			f.McpMethod, f.McpName, f.McpProtocolVersion, f.AuthChallenge}),
	}
	if !f.TS.IsZero() {
		r.ts = f.TS.UnixNano()
		_, off := f.TS.Zone()
		r.tsOff = int32(off)
	}
	switch {
	case len(f.Raw) > 0:
		r.body = string(f.Raw)
	case f.Text != "":
		r.body = strings.Clone(f.Text)
		r.flags |= flagText
	}
	for _, fl := range []struct {
		on bool
		f  rowFlags
	}{{ev.Mismatch, flagMismatch}, {f.Batch, flagBatch}, {f.Truncated, flagTruncated}, {f.Redacted, flagRedacted}} {
		if fl.on {
			r.flags |= fl.f
		}
	}
	if ev.Warning != "" || ev.Observation != "" || ev.Deprecated != "" || len(ev.Errors) > 0 || len(f.McpParamHeaders) > 0 || len(f.ReplyTo) > 0 {
		x := &rowExtra{warning: in.Str(ev.Warning), observation: strings.Clone(ev.Observation),
			deprecated: in.Str(ev.Deprecated), replyTo: string(f.ReplyTo)}
		for _, e := range ev.Errors {
			x.errors = append(x.errors, strings.Clone(e))
		}
		for _, h := range f.McpParamHeaders {
			x.params = append(x.params, capture.ParamHeader{Name: in.Str(h.Name), Value: strings.Clone(h.Value), Redacted: h.Redacted})
		}
		r.extra = x
	}
	return r
}

// SessionID is the session the frame belongs to.
func (r *Row) SessionID() string { return r.src.session }

// Label is the envelope's server label.
func (r *Row) Label() string { return r.src.label }

// Transport is the envelope's transport (stdio, http).
func (r *Row) Transport() string { return r.src.transport }

// Source names the log the frame was read from.
func (r *Row) Source() string { return r.src.path }

// Time is the envelope's timestamp, in the offset the log gave it.
func (r *Row) Time() time.Time {
	if r.ts == noTime {
		return time.Time{}
	}
	t := time.Unix(0, r.ts)
	if r.tsOff == 0 {
		return t.UTC()
	}
	return t.In(time.FixedZone("", int(r.tsOff)))
}

// HTTPStatus is the HTTP status the frame carried, 0 for none.
func (r *Row) HTTPStatus() int { return int(r.status) }

// Raw is the frame's JSON body; nil for a text frame or a released body.
func (r *Row) Raw() []byte {
	if r.flags&flagText != 0 || r.body == "" {
		return nil
	}
	return []byte(r.body)
}

// Text is the frame's text body (stderr, a line that is not JSON).
func (r *Row) Text() string {
	if r.flags&flagText == 0 {
		return ""
	}
	return r.body
}

// Released reports that the store let the body go to stay in its budget.
func (r *Row) Released() bool { return r.flags&flagReleased != 0 }

// Mismatch reports that routing headers disagree with the body.
func (r *Row) Mismatch() bool { return r.flags&flagMismatch != 0 }

// Truncated reports that the capture cut the frame at 16 MiB.
func (r *Row) Truncated() bool { return r.flags&flagTruncated != 0 }

// Warning joins what the engine warned of on the frame.
func (r *Row) Warning() string {
	if r.extra == nil {
		return ""
	}
	return r.extra.warning
}

// Observation is what the engine noted that is not a warning.
func (r *Row) Observation() string {
	if r.extra == nil {
		return ""
	}
	return r.extra.observation
}

// Deprecated is the deprecation note.
func (r *Row) Deprecated() string {
	if r.extra == nil {
		return ""
	}
	return r.extra.deprecated
}

// Errors lists the error findings counted on the frame.
func (r *Row) Errors() []string {
	if r.extra == nil {
		return nil
	}
	return r.extra.errors
}

// Status is the row's status column: its call's status (pending, ok,
// error, ...) when it belongs to one; "invalid" for a frame that is not
// JSON-RPC; "error" for a frame the engine counted an error on (an
// unmatched error response, an HTTP failure); otherwise empty.
func (r *Row) Status() string {
	switch {
	case r.call != nil:
		return r.call.Status
	case r.Kind == checker.EventInvalid:
		return "invalid"
	case len(r.Errors()) > 0:
		return "error"
	}
	return ""
}

// Duration is the call's duration, when it has one.
func (r *Row) Duration() (time.Duration, bool) {
	if r.call == nil || !r.call.HasDuration {
		return 0, false
	}
	return r.call.Duration, true
}

// release lets the body go.
func (r *Row) release() {
	r.body = ""
	r.flags |= flagReleased
}
