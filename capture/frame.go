// Package capture owns the session log: the Frame envelope every capture
// writes, writing it (LogWriter, the one log writer both captures use, with
// its exact loss accounting; redaction), reading logs back as a stream of
// frames, the state directory where logs live and the .mcpsnoop.toml
// settings. It knows nothing about signals or verdicts. The captures
// themselves live below it and import it, never the reverse: capture/stdio
// (the stdio shim) and capture/httpcapture (the streamable-HTTP proxy).
package capture

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"
)

// Directions a frame can travel. Readers accept any other string too: such a
// frame is treated as a protocol frame that no response can ever answer.
const (
	ClientToServer = "c2s"
	ServerToClient = "s2c"
	Stderr         = "stderr"
	Meta           = "meta"
)

// Transports a frame can arrive on.
const (
	TransportStdio = "stdio"
	TransportHTTP  = "http"
)

// ParamHeader is one Mcp-Param-* HTTP request header value.
type ParamHeader struct {
	Name     string `json:"name"`
	Value    string `json:"value"`
	Redacted bool   `json:"redacted,omitempty"`
}

// Frame is one envelope of a session log: one observed message, stderr line
// or control record. Field order and names follow the log format, so that
// logs written by other captures load unchanged.
//
// A Frame handed out by Reader aliases the reader's buffer, like the lines of
// a bufio.Scanner: Raw and the string fields are valid only until the next
// call to Next. Use Clone to keep a frame longer.
type Frame struct {
	SessionID          string          `json:"session_id"`
	ServerLabel        string          `json:"server_label"`
	Seq                uint64          `json:"seq"`
	TS                 time.Time       `json:"ts"`
	Direction          string          `json:"direction"`
	Transport          string          `json:"transport"`
	Raw                json.RawMessage `json:"raw,omitempty"`
	Text               string          `json:"text,omitempty"`
	McpMethod          string          `json:"mcp_method,omitempty"`
	McpName            string          `json:"mcp_name,omitempty"`
	McpProtocolVersion string          `json:"mcp_protocol_version,omitempty"`
	McpParamHeaders    []ParamHeader   `json:"mcp_param_headers,omitempty"`
	Batch              bool            `json:"batch,omitempty"`
	ConnID             string          `json:"conn_id,omitempty"`
	Truncated          bool            `json:"truncated,omitempty"`
	Redacted           bool            `json:"redacted,omitempty"`
	Status             int             `json:"status,omitempty"`
	AuthChallenge      string          `json:"auth_challenge,omitempty"`
	// Recorded by mcpsnoop's HTTP proxy, absent from older logs: the
	// Content-Type of a request or response, a request's Accept and Origin,
	// and on a status-only frame the raw id of the request it answers.
	ContentType string          `json:"content_type,omitempty"`
	Accept      string          `json:"accept,omitempty"`
	Origin      string          `json:"origin,omitempty"`
	ReplyTo     json.RawMessage `json:"reply_to,omitempty"`
	// Recorded by mcpsnoop, absent from older logs. RedactionSkipped: the
	// message would have cost redaction more than its budget, so its body
	// was replaced by what keeps its kind and id (the bytes forwarded were
	// not changed). LastSeq and Dropped ride only the closing frame, a meta
	// frame without raw that ends a log that lost frames: the last seq the
	// capture gave before it, and how many frames are not in the log.
	RedactionSkipped bool   `json:"redaction_skipped,omitempty"`
	LastSeq          uint64 `json:"last_seq,omitempty"`
	Dropped          uint64 `json:"dropped,omitempty"`
	// Recorded by mcpsnoop's HTTP proxy, absent from older logs. Host: the
	// request's Host header as the client sent it (the proxy forwards the
	// target's), on its c2s frames and on a refusal of the proxy's own.
	// ByProxy: the proxy answered this itself and the server never saw the
	// request (a 403 for a Host or Origin its DNS-rebinding guard refused).
	Host    string `json:"host,omitempty"`
	ByProxy bool   `json:"by_proxy,omitempty"`
	// Recorded by mcpsnoop's HTTP proxy on every frame, absent from older
	// logs: the HTTP method of the exchange the frame belongs to (POST,
	// GET, DELETE) and its URL path, never its query. A status-only frame
	// answering a GET or a DELETE has no request frame before it, and
	// these say what it answered.
	HTTPMethod string `json:"http_method,omitempty"`
	HTTPPath   string `json:"http_path,omitempty"`
	// StreamEmpty, recorded by mcpsnoop's HTTP proxy on a status-only s2c
	// frame: the answer was an event stream that ended cleanly without a
	// single event, so the request it answered (reply_to) never got its
	// answer.
	StreamEmpty bool `json:"stream_empty,omitempty"`
	// Unreserved rides a log's first frame when no room could be set
	// aside for the closing frame as the log opened (the disk was nearly
	// full): should the disk fill up, what the log loses at its end may
	// go uncounted, unless it ends with a closing frame after all.
	Unreserved bool `json:"unreserved,omitempty"`
}

// HasBody reports whether the frame carries any observed content (a JSON
// value or a text line). A frame without one is a bare HTTP status.
func (f *Frame) HasBody() bool {
	return len(f.Raw) > 0 || f.Text != ""
}

// Clone returns a copy of f that shares no memory with the reader's buffer.
func (f Frame) Clone() Frame {
	c := f
	c.SessionID = strings.Clone(f.SessionID)
	c.ServerLabel = strings.Clone(f.ServerLabel)
	c.Direction = strings.Clone(f.Direction)
	c.Transport = strings.Clone(f.Transport)
	c.Raw = bytes.Clone(f.Raw)
	c.Text = strings.Clone(f.Text)
	c.McpMethod = strings.Clone(f.McpMethod)
	c.McpName = strings.Clone(f.McpName)
	c.McpProtocolVersion = strings.Clone(f.McpProtocolVersion)
	c.ConnID = strings.Clone(f.ConnID)
	c.AuthChallenge = strings.Clone(f.AuthChallenge)
	c.ContentType = strings.Clone(f.ContentType)
	c.Accept = strings.Clone(f.Accept)
	c.Origin = strings.Clone(f.Origin)
	c.Host = strings.Clone(f.Host)
	c.HTTPMethod = strings.Clone(f.HTTPMethod)
	c.HTTPPath = strings.Clone(f.HTTPPath)
	c.ReplyTo = bytes.Clone(f.ReplyTo)
	if f.McpParamHeaders != nil {
		c.McpParamHeaders = make([]ParamHeader, len(f.McpParamHeaders))
		for i, h := range f.McpParamHeaders {
			c.McpParamHeaders[i] = ParamHeader{Name: strings.Clone(h.Name), Value: strings.Clone(h.Value), Redacted: h.Redacted}
		}
	}
	return c
}

// SessionMeta is the content of a session's meta frame (seq 1). A stdio
// session's says what was run and where, and which client process started
// the capture (PPID and PPIDStart together name that process across pid
// reuse; they are left out when they cannot be read, never guessed). An
// HTTP proxy's (mcpsnoop's addition) names its Target and nothing else.
type SessionMeta struct {
	Command   []string    `json:"command,omitempty"`
	Cwd       string      `json:"cwd,omitempty"`
	PPID      int         `json:"ppid,omitempty"`
	PPIDStart string      `json:"ppid_start,omitempty"`
	Target    *HTTPTarget `json:"target,omitempty"`
}

// HTTPTarget is the server an HTTP proxy forwards to, as its meta frame
// records it: scheme, host (an IPv6 address without brackets) and port
// (the scheme's default when the URL gives none), never the URL's user,
// path or query, which may carry credentials.
type HTTPTarget struct {
	Scheme string `json:"scheme"`
	Host   string `json:"host"`
	Port   int    `json:"port"`
}

// JSON is the meta frame's raw value, without HTML escaping so that an "&"
// in an argument stays as typed.
func (m SessionMeta) JSON() []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(m) // strings and ints only: cannot fail
	return bytes.TrimRight(buf.Bytes(), "\n")
}

// MediaType is a Content-Type (or an Accept range) without its parameters,
// trimmed and lower-cased: what the proxy and the checker compare.
func MediaType(v string) string {
	if i := strings.IndexByte(v, ';'); i >= 0 {
		v = v[:i]
	}
	return strings.ToLower(strings.TrimSpace(v))
}
