package capture

import (
	"bytes"
	"strconv"
	"time"

	"github.com/mcpsnoop/mcpsnoop/internal/jsonstring"
	"github.com/mcpsnoop/mcpsnoop/internal/jsonwalk"
)

// The log writer's encoder. Writing a frame is on the capture's busiest
// path, and encoding/json walks a raw value twice (Compact, then again when
// the Frame is marshalled) with a byte-at-a-time state machine, which cost
// the shim more than half its pipelined throughput. So raw values are
// validated with the reader's scanner and compacted in one pass, and the
// envelope is written by hand. The bytes are exactly what encoding/json
// writes for the same Frame with HTML escaping off (frameEncoder's test
// holds it to that); strings still go through encoding/json.

// CompactJSON returns line compacted when it is one JSON value in valid
// UTF-8 nested at most MaxRawNesting deep (encoding/json's Compact, without
// HTML escaping), else ok is false:
// what a log writer keeps as raw, rather than as text. A line that is
// already compact is returned as is; scratch holds one that is not.
func CompactJSON(line []byte, scratch *bytes.Buffer) (raw []byte, ok bool) {
	valid, hasWS := lineJSON(line)
	if !valid {
		return nil, false
	}
	if !hasWS {
		return line, true
	}
	// Whitespace outside strings is all that compaction removes. The value
	// is valid, so strings can be skipped by looking for their closing
	// quote alone.
	i := skipToWS(line, 0)
	scratch.Reset()
	scratch.Grow(len(line))
	start := 0
	for i < len(line) {
		scratch.Write(line[start:i])
		for i < len(line) && isWS(line[i]) {
			i++
		}
		start = i
		i = skipToWS(line, i)
	}
	scratch.Write(line[start:])
	return scratch.Bytes(), true
}

// skipToWS returns the index of the first whitespace byte at or after i
// that is outside a string of the valid JSON text b, or len(b).
func skipToWS(b []byte, i int) int {
	for i < len(b) {
		switch c := b[i]; {
		case c == '"':
			i = jsonwalk.SkipString(b, i)
		case isWS(c):
			return i
		default:
			i++
		}
	}
	return i
}

// frameEncoder writes frames as log lines, every field of Frame in its
// order, as encoding/json would (omitempty included).
type frameEncoder struct {
	prefix []byte       // {"session_id":...,"server_label":...,"seq":
	raw    bytes.Buffer // scratch for compacting a reply_to
}

func newFrameEncoder(sessionID, label string) *frameEncoder {
	e := &frameEncoder{}
	e.prefix = append(e.prefix, `{"session_id":`...)
	e.prefix = e.appendString(e.prefix, sessionID)
	e.prefix = append(e.prefix, `,"server_label":`...)
	e.prefix = e.appendString(e.prefix, label)
	e.prefix = append(e.prefix, `,"seq":`...)
	return e
}

// appendString appends s as encoding/json writes it.
func (e *frameEncoder) appendString(dst []byte, s string) []byte {
	return jsonstring.Append(dst, s, false)
}

// handles reports whether appendFrame can write f: a timestamp
// encoding/json can write (years 0 to 9999), and a reply_to that is JSON.
// Others go through encoding/json, which fails on them as it should.
func (e *frameEncoder) handles(f *Frame) bool {
	if f.TS.Year() < 0 || f.TS.Year() > 9999 {
		return false
	}
	if len(f.ReplyTo) > 0 {
		if _, ok := CompactJSON(f.ReplyTo, &e.raw); !ok {
			return false
		}
	}
	return true
}

// appendFrame appends f, whose SessionID and ServerLabel are the encoder's
// and whose Raw is compact JSON, as one log line.
func (e *frameEncoder) appendFrame(dst []byte, f *Frame) []byte {
	dst = append(dst, e.prefix...)
	dst = strconv.AppendUint(dst, f.Seq, 10)
	dst = append(dst, `,"ts":"`...)
	dst = f.TS.AppendFormat(dst, time.RFC3339Nano)
	dst = append(dst, `","direction":`...)
	dst = e.appendString(dst, f.Direction)
	dst = append(dst, `,"transport":`...)
	dst = e.appendString(dst, f.Transport)
	if len(f.Raw) > 0 {
		dst = append(dst, `,"raw":`...)
		dst = append(dst, f.Raw...)
	}
	dst = e.appendField(dst, `,"text":`, f.Text)
	dst = e.appendField(dst, `,"mcp_method":`, f.McpMethod)
	dst = e.appendField(dst, `,"mcp_name":`, f.McpName)
	dst = e.appendField(dst, `,"mcp_protocol_version":`, f.McpProtocolVersion)
	if len(f.McpParamHeaders) > 0 {
		dst = append(dst, `,"mcp_param_headers":[`...)
		for i, h := range f.McpParamHeaders {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"name":`...)
			dst = e.appendString(dst, h.Name)
			dst = append(dst, `,"value":`...)
			dst = e.appendString(dst, h.Value)
			if h.Redacted {
				dst = append(dst, `,"redacted":true`...)
			}
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	dst = appendTrue(dst, `,"batch":true`, f.Batch)
	dst = e.appendField(dst, `,"conn_id":`, f.ConnID)
	dst = appendTrue(dst, `,"truncated":true`, f.Truncated)
	dst = appendTrue(dst, `,"redacted":true`, f.Redacted)
	if f.Status != 0 {
		dst = append(dst, `,"status":`...)
		dst = strconv.AppendInt(dst, int64(f.Status), 10)
	}
	dst = e.appendField(dst, `,"auth_challenge":`, f.AuthChallenge)
	dst = e.appendField(dst, `,"content_type":`, f.ContentType)
	dst = e.appendField(dst, `,"accept":`, f.Accept)
	dst = e.appendField(dst, `,"origin":`, f.Origin)
	if len(f.ReplyTo) > 0 {
		raw, _ := CompactJSON(f.ReplyTo, &e.raw) // checked by handles
		dst = append(dst, `,"reply_to":`...)
		dst = append(dst, raw...)
	}
	dst = appendTrue(dst, `,"redaction_skipped":true`, f.RedactionSkipped)
	if f.LastSeq != 0 {
		dst = append(dst, `,"last_seq":`...)
		dst = strconv.AppendUint(dst, f.LastSeq, 10)
	}
	if f.Dropped != 0 {
		dst = append(dst, `,"dropped":`...)
		dst = strconv.AppendUint(dst, f.Dropped, 10)
	}
	dst = e.appendField(dst, `,"host":`, f.Host)
	dst = appendTrue(dst, `,"by_proxy":true`, f.ByProxy)
	dst = e.appendField(dst, `,"http_method":`, f.HTTPMethod)
	dst = e.appendField(dst, `,"http_path":`, f.HTTPPath)
	dst = appendTrue(dst, `,"stream_empty":true`, f.StreamEmpty)
	dst = appendTrue(dst, `,"unreserved":true`, f.Unreserved)
	return append(dst, '}', '\n')
}

// appendField appends a string member, unless s is empty (omitempty).
func (e *frameEncoder) appendField(dst []byte, name, s string) []byte {
	if s == "" {
		return dst
	}
	dst = append(dst, name...)
	return e.appendString(dst, s)
}

// appendTrue appends a boolean member that is true (omitempty).
func appendTrue(dst []byte, member string, b bool) []byte {
	if b {
		dst = append(dst, member...)
	}
	return dst
}
