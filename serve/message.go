package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/tidwall/gjson"
)

// kind is what a JSON-RPC message is.
type kind int

const (
	kindInvalid kind = iota
	kindRequest
	kindNotification
	kindResponse
)

// message is one JSON-RPC message, read with gjson without decoding it:
// the handler forwards the bytes it was given, changing only an id or a
// progress token it remaps, in place.
type message struct {
	raw    []byte
	kind   kind
	id     gjson.Result // the raw id of a request or response
	method string
}

// parseMessage reads a JSON-RPC message; kind is kindInvalid for anything
// that is not a single JSON object with a method or an id.
func parseMessage(raw []byte) message {
	m := message{raw: raw}
	if !gjson.ValidBytes(raw) {
		return m
	}
	if first := firstByte(raw); first != '{' {
		return m
	}
	// Read from raw itself, so that Index places each value in raw.
	m.id = gjson.GetBytes(raw, "id")
	meth := gjson.GetBytes(raw, "method")
	switch {
	case meth.Type == gjson.String && m.id.Exists():
		m.kind, m.method = kindRequest, meth.Str
	case meth.Type == gjson.String:
		m.kind, m.method = kindNotification, meth.Str
	case m.id.Exists() && (gjson.GetBytes(raw, "result").Exists() || gjson.GetBytes(raw, "error").Exists()):
		m.kind = kindResponse
	}
	return m
}

// firstByte is the first byte of raw that is not JSON whitespace.
func firstByte(raw []byte) byte {
	for _, c := range raw {
		switch c {
		case ' ', '\t', '\r', '\n':
		default:
			return c
		}
	}
	return 0
}

// get reads a path of the message (gjson syntax).
func (m message) get(path string) gjson.Result { return gjson.GetBytes(m.raw, path) }

// metaPath is the gjson path of a key of params._meta (keys hold dots and
// slashes, which gjson needs escaped).
func metaPath(key string) string {
	var b bytes.Buffer
	b.WriteString("params._meta.")
	for _, r := range key {
		if r == '.' || r == '*' || r == '?' || r == '|' || r == '#' || r == '@' || r == '\\' {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// key is how an id or token is looked up: its JSON text, so that 1 and "1"
// stay apart.
func key(r gjson.Result) string { return r.Raw }

// errNoIndex: gjson could not say where a value sits in the message.
var errNoIndex = errors.New("cannot locate the value in the message")

// replace returns raw with the value r (found in raw) replaced by val.
func replace(raw []byte, r gjson.Result, val []byte) ([]byte, error) {
	if r.Index <= 0 || r.Index+len(r.Raw) > len(raw) || string(raw[r.Index:r.Index+len(r.Raw)]) != r.Raw {
		return nil, errNoIndex
	}
	out := make([]byte, 0, len(raw)-len(r.Raw)+len(val))
	out = append(out, raw[:r.Index]...)
	out = append(out, val...)
	return append(out, raw[r.Index+len(r.Raw):]...), nil
}

// errorResponse is a JSON-RPC error response to id (null when id is
// empty).
func errorResponse(id []byte, code int, text string) []byte {
	if len(id) == 0 {
		id = []byte("null")
	}
	msg, _ := json.Marshal(text)
	var b bytes.Buffer
	b.WriteString(`{"jsonrpc":"2.0","id":`)
	b.Write(id)
	b.WriteString(`,"error":{"code":`)
	b.WriteString(strconv.Itoa(code))
	b.WriteString(`,"message":`)
	b.Write(msg)
	b.WriteString(`}}`)
	return b.Bytes()
}

// cancelled is the notifications/cancelled the handler sends a server for
// a request whose client went away.
func cancelled(id []byte, reason string) []byte {
	r, _ := json.Marshal(reason)
	return []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + string(id) + `,"reason":` + string(r) + `}}`)
}

// JSON-RPC error codes the handler answers with.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
	codeInternalError  = -32603
	// 2026-07-28's.
	codeHeaderMismatch              = -32020
	codeMissingRequiredCapabilities = -32021
	codeUnsupportedProtocolVersion  = -32022
)
