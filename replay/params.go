package replay

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strings"
)

// The per-request _meta keys of the Modern revision.
const (
	metaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	metaClientInfo         = "io.modelcontextprotocol/clientInfo"
	metaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
)

// object decodes a JSON object into its members, keeping each value's
// bytes; anything else (absent, null, not an object) gives an empty map.
func object(raw json.RawMessage) map[string]json.RawMessage {
	m := map[string]json.RawMessage{}
	if len(raw) > 0 {
		_ = json.Unmarshal(raw, &m)
		if m == nil {
			m = map[string]json.RawMessage{}
		}
	}
	return m
}

// encode writes v as compact JSON without HTML escaping, as captures log.
func encode(v any) json.RawMessage {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return json.RawMessage("null") // unreachable: maps of raw JSON and strings
	}
	return json.RawMessage(bytes.TrimRight(buf.Bytes(), "\n"))
}

// set returns params with key set to value (an object is made when params
// is not one).
func set(params json.RawMessage, key string, value json.RawMessage) json.RawMessage {
	m := object(params)
	m[key] = value
	return encode(m)
}

// request is a JSON-RPC request (or a notification, with id nil).
func request(id json.RawMessage, method string, params json.RawMessage) []byte {
	var b bytes.Buffer
	b.WriteString(`{"jsonrpc":"2.0"`)
	if id != nil {
		b.WriteString(`,"id":`)
		b.Write(id)
	}
	b.WriteString(`,"method":`)
	b.Write(encode(method))
	if len(params) > 0 {
		b.WriteString(`,"params":`)
		b.Write(params)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// response is a JSON-RPC response to id with result or error.
func response(id json.RawMessage, result, errObj json.RawMessage) []byte {
	m := map[string]json.RawMessage{"jsonrpc": json.RawMessage(`"2.0"`), "id": id}
	if errObj != nil {
		m["error"] = errObj
	} else {
		m["result"] = result
	}
	return encode(m)
}

// withID is a recorded response message re-addressed to id.
func withID(msg json.RawMessage, id json.RawMessage) []byte {
	m := object(msg)
	m["id"] = id
	return encode(m)
}

// resultOf is the result member of a response message (nil when it has
// none), errorOf its error member.
func resultOf(msg json.RawMessage) json.RawMessage { return nonNull(object(msg)["result"]) }
func errorOf(msg json.RawMessage) json.RawMessage  { return nonNull(object(msg)["error"]) }

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

func decodeError(raw json.RawMessage) (rpcError, bool) {
	var e rpcError
	if len(raw) == 0 || json.Unmarshal(raw, &e) != nil {
		return e, false
	}
	return e, true
}

// headerValue encodes a value for an MCP header (Mcp-Name): as it is when
// it is visible ASCII, space and tab without space at either end, else in
// the =?base64?...?= sentinel, which a plain value that looks like the
// sentinel also needs.
func headerValue(v string) string {
	plain := v == strings.TrimSpace(v) && !(strings.HasPrefix(v, "=?base64?") && strings.HasSuffix(v, "?="))
	for i := 0; plain && i < len(v); i++ {
		c := v[i]
		plain = c == ' ' || c == '\t' || (c >= 0x21 && c <= 0x7e)
	}
	if plain {
		return v
	}
	return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(v)) + "?="
}
