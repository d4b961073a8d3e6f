package capture

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unsafe"
)

// decodeEnvelope validates data as one JSON object and decodes it into a
// Frame, in one pass and without copying: Raw and the string fields of the
// result alias data, which the caller must leave untouched for as long as
// the frame is used. valid is false when data is not exactly one JSON object;
// err reports a member of the wrong type. Field matching follows
// encoding/json: an exact name first, else a case-insensitive one; unknown
// fields are ignored and null leaves a field at its zero value.
func decodeEnvelope(data []byte) (f Frame, valid bool, err error) {
	if len(data) == 0 || data[0] != '{' {
		return f, false, nil
	}
	s := jsonScanner{b: data}
	end := s.object(0, func(ks, ke, vs, ve int) bool {
		if err == nil {
			err = f.setField(memberName(data[ks:ke]), data[vs:ve:ve])
		}
		return true
	})
	if end < 0 || s.ws(end) != len(data) {
		return Frame{}, false, nil
	}
	return f, true, err
}

// memberName decodes a quoted member name; it views the bytes when there is
// no escape to undo.
func memberName(quoted []byte) string {
	inner := quoted[1 : len(quoted)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return unsafe.String(unsafe.SliceData(inner), len(inner))
	}
	var name string
	json.Unmarshal(quoted, &name)
	return name
}

var envelopeFields = []string{
	"session_id", "server_label", "seq", "ts", "direction", "transport", "raw", "text",
	"mcp_method", "mcp_name", "mcp_protocol_version", "mcp_param_headers", "batch",
	"conn_id", "truncated", "redacted", "status", "auth_challenge",
	"content_type", "accept", "origin", "reply_to", "redaction_skipped", "last_seq", "dropped",
	"host", "by_proxy", "http_method", "http_path", "stream_empty",
	"unreserved",
}

// setField stores one member; v is its (valid) JSON text.
func (f *Frame) setField(name string, v []byte) error {
	if !isEnvelopeField(name) {
		for _, known := range envelopeFields {
			if strings.EqualFold(name, known) {
				name = known
				break
			}
		}
	}
	if v[0] == 'n' && name != "raw" {
		return nil // null leaves the field as it is
	}
	var err error
	switch name {
	case "session_id":
		f.SessionID, err = stringField(name, v)
	case "server_label":
		f.ServerLabel, err = stringField(name, v)
	case "seq":
		f.Seq, err = uintField(name, v)
	case "ts":
		var ts string
		if ts, err = stringField(name, v); err == nil {
			f.TS, err = time.Parse(time.RFC3339Nano, ts)
			if err != nil {
				return fmt.Errorf("field ts: %q is not an RFC 3339 time", ts)
			}
		}
	case "direction":
		f.Direction, err = stringField(name, v)
	case "transport":
		f.Transport, err = stringField(name, v)
	case "raw":
		f.Raw = v
	case "text":
		f.Text, err = stringField(name, v)
	case "mcp_method":
		f.McpMethod, err = stringField(name, v)
	case "mcp_name":
		f.McpName, err = stringField(name, v)
	case "mcp_protocol_version":
		f.McpProtocolVersion, err = stringField(name, v)
	case "mcp_param_headers":
		if v[0] != '[' {
			return typeError(name, v, "an array")
		}
		f.McpParamHeaders = nil
		if e := json.Unmarshal(v, &f.McpParamHeaders); e != nil {
			return fmt.Errorf("field mcp_param_headers: %v", e)
		}
	case "batch":
		f.Batch, err = boolField(name, v)
	case "conn_id":
		f.ConnID, err = stringField(name, v)
	case "truncated":
		f.Truncated, err = boolField(name, v)
	case "redacted":
		f.Redacted, err = boolField(name, v)
	case "status":
		if kindOf(v) != "a number" {
			return typeError(name, v, "an integer")
		}
		n, e := strconv.ParseInt(string(v), 10, 64)
		if e != nil || n != int64(int(n)) {
			return fmt.Errorf("field status: %s is not an integer", v)
		}
		f.Status = int(n)
	case "auth_challenge":
		f.AuthChallenge, err = stringField(name, v)
	case "content_type":
		f.ContentType, err = stringField(name, v)
	case "accept":
		f.Accept, err = stringField(name, v)
	case "origin":
		f.Origin, err = stringField(name, v)
	case "reply_to":
		f.ReplyTo = v
	case "redaction_skipped":
		f.RedactionSkipped, err = boolField(name, v)
	case "last_seq":
		f.LastSeq, err = uintField(name, v)
	case "dropped":
		f.Dropped, err = uintField(name, v)
	case "host":
		f.Host, err = stringField(name, v)
	case "by_proxy":
		f.ByProxy, err = boolField(name, v)
	case "http_method":
		f.HTTPMethod, err = stringField(name, v)
	case "http_path":
		f.HTTPPath, err = stringField(name, v)
	case "stream_empty":
		f.StreamEmpty, err = boolField(name, v)
	case "unreserved":
		f.Unreserved, err = boolField(name, v)
	}
	return err
}

func isEnvelopeField(name string) bool {
	for _, known := range envelopeFields {
		if name == known {
			return true
		}
	}
	return false
}

// stringField decodes a JSON string, viewing the bytes when there is no
// escape to undo.
func stringField(name string, v []byte) (string, error) {
	if v[0] != '"' {
		return "", typeError(name, v, "a string")
	}
	inner := v[1 : len(v)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return unsafe.String(unsafe.SliceData(inner), len(inner)), nil
	}
	var out string
	if err := json.Unmarshal(v, &out); err != nil {
		return "", fmt.Errorf("field %s: %v", name, err)
	}
	return out, nil
}

func uintField(name string, v []byte) (uint64, error) {
	if kindOf(v) != "a number" {
		return 0, typeError(name, v, "an unsigned integer")
	}
	n, err := strconv.ParseUint(unsafe.String(unsafe.SliceData(v), len(v)), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("field %s: %s is not an unsigned integer", name, v)
	}
	return n, nil
}

func boolField(name string, v []byte) (bool, error) {
	switch v[0] {
	case 't':
		return true, nil
	case 'f':
		return false, nil
	}
	return false, typeError(name, v, "a boolean")
}

// kindOf names the type of a valid JSON value.
func kindOf(v []byte) string {
	switch v[0] {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

func typeError(name string, v []byte, want string) error {
	return fmt.Errorf("field %s must be %s, got %s", name, want, kindOf(v))
}

// Scanner states.
const (
	scanOpen = iota
	scanDone
	scanBad
)

// valueScanner finds where a JSON object ends in a growing buffer, tracking
// strings and bracket nesting only; validation happens once the value is
// closed. It resumes where the previous call stopped.
type valueScanner struct {
	pos      int
	inString bool
	escaped  bool
	stack    []byte
}

func (s *valueScanner) run(b []byte) (int, int) {
	for ; s.pos < len(b); s.pos++ {
		c := b[s.pos]
		if s.inString {
			switch {
			case c == '\n':
				// JSON strings cannot hold a raw newline: the line was cut
				// inside a string.
				s.pos++
				return s.pos, scanBad
			case s.escaped:
				s.escaped = false
			case c == '\\':
				s.escaped = true
			case c == '"':
				s.inString = false
			}
			continue
		}
		switch c {
		case '"':
			s.inString = true
		case '{', '[':
			s.stack = append(s.stack, c)
		case '}', ']':
			open := byte('{')
			if c == ']' {
				open = '['
			}
			if len(s.stack) == 0 || s.stack[len(s.stack)-1] != open {
				s.pos++
				return s.pos, scanBad
			}
			s.stack = s.stack[:len(s.stack)-1]
			if len(s.stack) == 0 {
				s.pos++
				return s.pos, scanDone
			}
		}
	}
	return s.pos, scanOpen
}
