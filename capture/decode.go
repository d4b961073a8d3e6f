package capture

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/tidwall/gjson"
)

// validJSON reports whether b is one syntactically valid JSON value. gjson's
// validator is the fast path; encoding/json has the last word because it is
// what the format's writers use (it accepts invalid UTF-8 in strings, for one).
func validJSON(b []byte) bool {
	return gjson.ValidBytes(b) || json.Valid(b)
}

// decodeEnvelope decodes one valid JSON object into a Frame without copying:
// Raw and the string fields of the result alias data, which the caller must
// leave untouched for as long as the frame is used. Field matching follows
// encoding/json: an exact name first, else a case-insensitive one; unknown
// fields are ignored and null leaves a field at its zero value.
func decodeEnvelope(data []byte) (Frame, error) {
	s := unsafe.String(unsafe.SliceData(data), len(data))
	var f Frame
	var err error
	gjson.Parse(s).ForEach(func(key, value gjson.Result) bool {
		err = f.setField(key.Str, value, data)
		return err == nil
	})
	return f, err
}

var envelopeFields = []string{
	"session_id", "server_label", "seq", "ts", "direction", "transport", "raw", "text",
	"mcp_method", "mcp_name", "mcp_protocol_version", "mcp_param_headers", "batch",
	"conn_id", "truncated", "redacted", "status", "auth_challenge",
}

func (f *Frame) setField(name string, v gjson.Result, data []byte) error {
	if !isEnvelopeField(name) {
		for _, known := range envelopeFields {
			if strings.EqualFold(name, known) {
				name = known
				break
			}
		}
	}
	if v.Type == gjson.Null && name != "raw" {
		return nil
	}
	var err error
	switch name {
	case "session_id":
		f.SessionID, err = stringField(name, v)
	case "server_label":
		f.ServerLabel, err = stringField(name, v)
	case "seq":
		if v.Type != gjson.Number {
			return typeError(name, v, "an unsigned integer")
		}
		f.Seq, err = strconv.ParseUint(v.Raw, 10, 64)
		if err != nil {
			return fmt.Errorf("field seq: %s is not an unsigned integer", v.Raw)
		}
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
		f.Raw = subslice(data, v)
	case "text":
		f.Text, err = stringField(name, v)
	case "mcp_method":
		f.McpMethod, err = stringField(name, v)
	case "mcp_name":
		f.McpName, err = stringField(name, v)
	case "mcp_protocol_version":
		f.McpProtocolVersion, err = stringField(name, v)
	case "mcp_param_headers":
		if v.Type != gjson.JSON || !v.IsArray() {
			return typeError(name, v, "an array")
		}
		f.McpParamHeaders = nil
		if e := json.Unmarshal(subslice(data, v), &f.McpParamHeaders); e != nil {
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
		if v.Type != gjson.Number {
			return typeError(name, v, "an integer")
		}
		n, e := strconv.ParseInt(v.Raw, 10, 64)
		if e != nil || n != int64(int(n)) {
			return fmt.Errorf("field status: %s is not an integer", v.Raw)
		}
		f.Status = int(n)
	case "auth_challenge":
		f.AuthChallenge, err = stringField(name, v)
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

// subslice returns the bytes of v inside data without copying when gjson
// knows where v sits, which it does for values reached by ForEach.
func subslice(data []byte, v gjson.Result) []byte {
	if v.Index > 0 && v.Index+len(v.Raw) <= len(data) && string(data[v.Index:v.Index+len(v.Raw)]) == v.Raw {
		return data[v.Index : v.Index+len(v.Raw) : v.Index+len(v.Raw)]
	}
	return []byte(v.Raw)
}

func stringField(name string, v gjson.Result) (string, error) {
	if v.Type != gjson.String {
		return "", typeError(name, v, "a string")
	}
	return v.Str, nil
}

func boolField(name string, v gjson.Result) (bool, error) {
	switch v.Type {
	case gjson.True:
		return true, nil
	case gjson.False:
		return false, nil
	}
	return false, typeError(name, v, "a boolean")
}

func typeError(name string, v gjson.Result, want string) error {
	got := "a value"
	switch v.Type {
	case gjson.String:
		got = "a string"
	case gjson.Number:
		got = "a number"
	case gjson.True, gjson.False:
		got = "a boolean"
	case gjson.JSON:
		got = "an object"
		if v.IsArray() {
			got = "an array"
		}
	}
	return fmt.Errorf("field %s must be %s, got %s", name, want, got)
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
