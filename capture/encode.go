package capture

import (
	"bytes"
	"encoding/json"
	"strconv"
	"time"

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
// UTF-8 (encoding/json's Compact, without HTML escaping), else ok is false:
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

// frameEncoder writes stdio frames as log lines.
type frameEncoder struct {
	prefix []byte // {"session_id":...,"server_label":...,"seq":
	str    bytes.Buffer
	strEnc *json.Encoder
}

func newFrameEncoder(sessionID, label string) *frameEncoder {
	e := &frameEncoder{}
	e.strEnc = json.NewEncoder(&e.str)
	e.strEnc.SetEscapeHTML(false)
	e.prefix = append(e.prefix, `{"session_id":`...)
	e.prefix = e.appendString(e.prefix, sessionID)
	e.prefix = append(e.prefix, `,"server_label":`...)
	e.prefix = e.appendString(e.prefix, label)
	e.prefix = append(e.prefix, `,"seq":`...)
	return e
}

// appendString appends s as encoding/json writes it.
func (e *frameEncoder) appendString(dst []byte, s string) []byte {
	plain := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			plain = false
			break
		}
	}
	if plain {
		dst = append(dst, '"')
		dst = append(dst, s...)
		return append(dst, '"')
	}
	e.str.Reset()
	_ = e.strEnc.Encode(s) // a string always encodes
	return append(dst, bytes.TrimSuffix(e.str.Bytes(), []byte{'\n'})...)
}

// handles reports whether f uses only the fields appendFrame writes (those
// a stdio capture produces); others go through encoding/json.
func (e *frameEncoder) handles(f *Frame) bool {
	return f.McpMethod == "" && f.McpName == "" && f.McpProtocolVersion == "" && len(f.McpParamHeaders) == 0 &&
		!f.Batch && f.ConnID == "" && f.Status == 0 && f.AuthChallenge == "" && f.ContentType == "" &&
		f.Accept == "" && f.Origin == "" && len(f.ReplyTo) == 0 && f.LastSeq == 0 && f.Dropped == 0 &&
		f.TS.Year() >= 0 && f.TS.Year() <= 9999
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
	if f.Text != "" {
		dst = append(dst, `,"text":`...)
		dst = e.appendString(dst, f.Text)
	}
	if f.Truncated {
		dst = append(dst, `,"truncated":true`...)
	}
	if f.Redacted {
		dst = append(dst, `,"redacted":true`...)
	}
	if f.RedactionSkipped {
		dst = append(dst, `,"redaction_skipped":true`...)
	}
	return append(dst, '}', '\n')
}
