package checker

import (
	"bytes"
	"encoding/json"
	"github.com/mcpsnoop/mcpsnoop/internal/jsonwalk"
	"unsafe"

	"github.com/tidwall/gjson"
)

// msgKind is how a JSON-RPC frame is classified (check.md 1.3).
type msgKind uint8

const (
	kindNotRPC msgKind = iota // raw absent, not an object, or no JSON-RPC member
	kindRequest
	kindNotification
	kindResponse
	kindOther // JSON-RPC, but neither of the above (e.g. {"jsonrpc":"2.0","id":1})
)

// message is a lazily parsed view of a frame's raw JSON-RPC body. Only the
// top-level members are located up front; rules dig into params and result
// on demand.
type message struct {
	kind      msgKind
	jsonrpc   gjson.Result
	hasRPC    bool // jsonrpc member present (any value)
	id        gjson.Result
	hasID     bool
	method    string
	params    gjson.Result
	raw       []byte // the whole message, for walking params once
	pStart    int    // where params starts in raw
	pWalked   bool
	pCount    int
	pKeys     [12]string // params' members, found on the first paramField
	pVals     [12]gjson.Result
	pMore     bool // params has more members than pKeys holds
	result    gjson.Result
	hasResult bool
	errorVal  gjson.Result
	hasError  bool

	// Read from the result in the same pass, as every response needs them.
	resultTypeStr string
	isError       bool
}

// bytesString views b as a string without copying. A frame's bytes do not
// change while the engine ingests it, and anything kept is cloned.
func bytesString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// parseMessage classifies raw. One walk locates the top-level members and,
// inside an object result, the resultType and isError every response needs.
func parseMessage(raw []byte) message {
	var m message
	if len(raw) == 0 || raw[0] != '{' {
		return m
	}
	m.raw = raw
	var methodVal gjson.Result
	hasMethod := false
	jsonwalk.Members(raw, 0, func(ks, ke, vs int) int {
		key := raw[ks:ke]
		var ve int
		name := keyName(key)
		if name == "result" && raw[vs] == '{' {
			ve = jsonwalk.Members(raw, vs, func(rks, rke, rvs int) int {
				k := raw[rks:rke]
				rve := jsonwalk.SkipValue(raw, rvs)
				switch keyName(k) {
				case "resultType":
					m.resultTypeStr = ""
					if raw[rvs] == '"' {
						m.resultTypeStr = gjson.Parse(bytesString(raw[rvs:rve])).Str
					}
				case "isError":
					m.isError = raw[rvs] == 't'
				}
				return rve
			})
		} else {
			ve = jsonwalk.SkipValue(raw, vs)
		}
		value := gjson.Parse(bytesString(raw[vs:ve]))
		switch name {
		case "jsonrpc":
			m.jsonrpc, m.hasRPC = value, true
		case "id":
			m.id, m.hasID = value, true
		case "method":
			methodVal, hasMethod = value, true
		case "params":
			m.params, m.pStart = value, vs
		case "result":
			m.result, m.hasResult = value, true
		case "error":
			m.errorVal, m.hasError = value, value.Type != gjson.Null
		}
		return ve
	})
	if hasMethod && methodVal.Type == gjson.String {
		m.method = methodVal.Str
	}
	jsonrpcSet := m.hasRPC && !(m.jsonrpc.Type == gjson.String && m.jsonrpc.Str == "") && m.jsonrpc.Type != gjson.Null
	if !jsonrpcSet && m.method == "" && !m.hasResult && !m.hasError {
		return message{}
	}
	switch {
	case m.method != "" && m.hasID:
		m.kind = kindRequest
	case m.method != "":
		m.kind = kindNotification
	case m.hasResult || m.hasError:
		m.kind = kindResponse
	default:
		m.kind = kindOther
	}
	return m
}

// keyName is a quoted member name without its quotes, escapes undone.
func keyName(quoted []byte) string {
	inner := quoted[1 : len(quoted)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return bytesString(inner)
	}
	var name string
	json.Unmarshal(quoted, &name)
	return name
}

// idText is the id as written, the raw JSON text that keys a call.
func (m *message) idText() string { return m.id.Raw }

// resultField returns a member of the result object.
func (m *message) resultField(name string) gjson.Result {
	if !m.hasResult || !m.result.IsObject() {
		return gjson.Result{}
	}
	return m.result.Get(escapeKey(name))
}

// paramField returns a member of the params object.
// Rules ask for several members of params per request; one walk finds them
// all, instead of one scan of params (arguments and all) per question.
func (m *message) paramField(name string) gjson.Result {
	if !m.params.IsObject() {
		return gjson.Result{}
	}
	if !m.pWalked {
		m.walkParams()
	}
	for i := 0; i < m.pCount; i++ {
		if m.pKeys[i] == name {
			return m.pVals[i]
		}
	}
	if m.pMore {
		return m.params.Get(escapeKey(name))
	}
	return gjson.Result{}
}

// walkParams records params' top-level members (the first of a repeated
// name wins, as gjson's lookup does).
func (m *message) walkParams() {
	m.pWalked = true
	if m.pStart >= len(m.raw) || m.raw[m.pStart] != '{' {
		m.pMore = true
		return
	}
	jsonwalk.Members(m.raw, m.pStart, func(ks, ke, vs int) int {
		key := m.raw[ks:ke]
		ve := jsonwalk.SkipValue(m.raw, vs)
		if m.pCount == len(m.pKeys) {
			m.pMore = true
			return ve
		}
		m.pKeys[m.pCount] = keyName(key)
		m.pVals[m.pCount] = gjson.Parse(bytesString(m.raw[vs:ve]))
		m.pCount++
		return ve
	})
}

// isErrorResult reports a tool-level failure: result.isError is true.
func (m *message) isErrorResult() bool { return m.isError }

// resultType is result.resultType when it is a string.
func (m *message) resultType() string { return m.resultTypeStr }

// opName is the operation name a request targets: params.name for
// tools/call and prompts/get, params.uri for resource requests.
func (m *message) opName() string {
	var v gjson.Result
	switch m.method {
	case "tools/call", "prompts/get":
		v = m.paramField("name")
	case "resources/read", "resources/subscribe", "resources/unsubscribe":
		v = m.paramField("uri")
	}
	if v.Type == gjson.String {
		return v.Str
	}
	return ""
}

// escapeKey makes a literal member name safe as a gjson path.
func escapeKey(name string) string {
	needs := false
	for i := 0; i < len(name); i++ {
		switch name[i] {
		case '.', '*', '?', '|', '#', '@', '\\', '!', '=', '<', '>', '%':
			needs = true
		}
	}
	if !needs {
		return name
	}
	out := make([]byte, 0, len(name)+4)
	for i := 0; i < len(name); i++ {
		switch name[i] {
		case '.', '*', '?', '|', '#', '@', '\\', '!', '=', '<', '>', '%':
			out = append(out, '\\')
		}
		out = append(out, name[i])
	}
	return string(out)
}
